"""One test per rule of rules/koudian.md, each a fixed deal played move by move."""

from __future__ import annotations

import pytest

from engine.core.contract import StartHand, Status
from engine.core.errors import RuleViolation
from engine.core.payments import Payment
from engine.koudian import RULESET
from engine.koudian.events import DealerChosen, HandEnded, MatchEnded
from engine.koudian.state import Claims, Turn
from engine.koudian.winning import completes
from engine.mahjong.actions import ClaimAnswered, Konged, TileDiscarded, TileDrawn, Win
from engine.mahjong.tiles import counts, parse_tile, parse_tiles

from .table import DEALER, LOOSE_2, LOOSE_3, READY_ON_3P_6P, SEED_DEAL, Table, seed_table

# The draws after seat 1 declares ready, each discarded by its drawer: 7s (seat 2), 8s (seat 3),
# 1p (seat 0); seat 1's next draw is the wall's fifth tile.
AROUND = "7s 8s 1p"


def around_to_seat_1(t: Table) -> None:
    """Seats 2, 3 and 0 each discard the tile they drew."""
    for seat in (2, 3, 0):
        turn = t.hand.phase
        assert isinstance(turn, Turn) and turn.seat == seat
        t.act(seat, "discard", str(turn.drawn))


def play_defaults(t: Table) -> None:
    """Every remaining decision by its auto-play default (托管) until the hand ends."""
    while RULESET.status(t.state) is Status.IN_HAND:
        seat, cmd = next(iter(RULESET.deadline(t.state).defaults.items()))
        t._apply(cmd)


# --- Tiles and seating -------------------------------------------------------------------------


def test_the_set_is_136_tiles_without_flowers_and_the_dealer_takes_14_the_others_13():
    t = Table(SEED_DEAL)
    assert [t.hand.seats[s].size() for s in range(4)] == [14, 13, 13, 13]
    assert sorted(t.hand.wall.order) == sorted(parse_tiles("123456789m 123456789p 123456789s ESWNCFP") * 4)
    assert RULESET.check(t.state) == []


def test_the_dealer_discards_first():
    t = Table(SEED_DEAL, dealer=0)
    assert t.hand.phase == Turn(0, None, "deal")
    with pytest.raises(RuleViolation) as exc:
        t.act(1, "discard", "1m")
    assert exc.value.code == "not_your_turn"


def test_the_first_dealer_of_a_match_is_the_highest_dice_roll_and_the_dice_are_recorded():
    t = Table.__new__(Table)
    t.log = list(RULESET.create("t", RULESET.options()))
    t.state = Table._fold(t.log)
    events = t.start(b"any seed")
    chosen = next(ev for ev in events if isinstance(ev, DealerChosen))
    totals = [sum(r) for r in chosen.rolls[-1]]
    assert totals[chosen.dealer] == max(totals) and totals.count(max(totals)) == 1
    started = events[-1]
    assert started.dice is not None and started.dealer == chosen.dealer


# --- Turn ---------------------------------------------------------------------------------------


def test_there_is_no_chow():
    # Seat 1 holds 1m2m and 4m5m... the next seat may not chow the dealer's 3m.
    t = Table(["3m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C", "12m 45m 789m 45p 99s 1p 2p", LOOSE_2, LOOSE_3])
    t.act(0, "discard", "3m")
    assert isinstance(t.hand.phase, Turn) and t.hand.phase.seat == 1
    assert not any(type(a).__name__ == "Chow" for a in t.legal(1))


def test_any_player_who_is_not_ready_may_pong_any_discard_before_the_next_draw():
    # Seat 3 (not next to the dealer) holds a pair of C.
    t = Table([DEALER, READY_ON_3P_6P, LOOSE_2, "3m 6m 9m 1p 7p 1s 3s 6s 9s N CC F"])
    t.act(0, "discard", "C")
    assert isinstance(t.hand.phase, Claims)
    assert [type(a).__name__ for a in t.legal(3)] == ["Pong", "Pass"]
    t.act(3, "pong", "C")
    assert t.hand.phase == Turn(3, None, "pong")
    assert t.hand.wall.front == 53  # nobody drew
    t.act(3, "discard", "N")
    assert isinstance(t.hand.phase, Turn) and t.hand.phase.seat == 0


def test_a_ready_player_may_not_pong():
    t = seed_table(wall="E 9s")
    t.act(2, "discard", "9s")  # seat 1 holds 99s but is locked: no claim window opens
    assert isinstance(t.hand.phase, Turn) and t.hand.phase.seat == 3
    with pytest.raises(RuleViolation) as exc:
        t.act(1, "pong", "9s")
    assert exc.value.code == "no_pong_when_ready"


KONG_DEALER = "CCCC 1m 4m 7m 2p 5p 8p 1s 4s 7s W"
LOOSE_3_NO_C = "3m 6m 9m 1p 7p 1s 3s 6s 9s N F P S"


def test_a_concealed_kong_is_declared_on_ones_own_turn_and_stays_hidden_from_the_others():
    t = Table([KONG_DEALER, READY_ON_3P_6P, LOOSE_2, LOOSE_3_NO_C], tail="E")
    assert [a for a in t.legal(0) if type(a).__name__ == "Kong"] == [RULESET.parse_command({"seat": 0, "action": "kong", "tile": "C"})]
    events = t.act(0, "kong", "C")
    kong = next(ev for ev in events if isinstance(ev, Konged))
    assert kong.kind == "kong_concealed"
    assert RULESET.redact(kong, 1).tile is None and RULESET.redact(kong, 0).tile == parse_tile("C")
    assert RULESET.view(t.state, 2).melds[0][0].tile is None
    assert "C" not in str(RULESET.view(t.state, 2).melds)
    play_defaults(t)
    assert t.ended().concealed_kongs[0] == (parse_tile("C"),)


def test_every_kong_draws_its_replacement_from_the_tail_and_keeps_one_more_stack_back():
    t = Table([KONG_DEALER, READY_ON_3P_6P, LOOSE_2, LOOSE_3_NO_C], tail="E")
    live = t.hand.wall.live
    events = t.act(0, "kong", "C")
    assert events[-1] == TileDrawn(0, parse_tile("E"), from_tail=True)
    assert (t.hand.wall.back, t.hand.wall.reserve) == (1, 14)
    assert t.hand.wall.live == live - 3


def test_an_exposed_kong_from_a_discard_needs_a_concealed_pung_and_can_be_switched_off():
    hands = [DEALER, READY_ON_3P_6P, LOOSE_2, "3m 6m 9m 1p 7p 1s 3s 6s 9s N CCC"]
    t = Table(hands, tail="F")
    t.act(0, "discard", "C")
    assert {type(a).__name__ for a in t.legal(3)} == {"Pong", "Kong", "Pass"}
    t.act(3, "kong", "C")
    assert t.hand.seats[3].melds[0].kind == "kong_exposed"
    assert t.hand.phase == Turn(3, parse_tile("F"), "kong_exposed")
    off = Table(hands, allow_exposed_kong_from_discard=False)
    off.act(0, "discard", "C")
    assert {type(a).__name__ for a in off.legal(3)} == {"Pong", "Pass"}


def test_an_added_kong_puts_a_fourth_tile_on_ones_own_pong():
    hands = [DEALER, READY_ON_3P_6P, LOOSE_2, "3m 6m 9m 1p 7p 1s 3s 6s 9s N CC F"]
    t = Table(hands, wall="E 7s 8s C", tail="P")
    t.act(0, "discard", "C")
    t.act(3, "pong", "C")
    t.act(3, "discard", "N")
    t.act(0, "discard", "E")  # the dealer's draw; then seat 1, 2 discard their draws
    t.act(1, "discard", "7s")
    t.act(2, "discard", "8s")
    assert t.hand.phase.drawn == parse_tile("C")
    t.act(3, "kong", "C")
    assert t.hand.seats[3].melds[0].kind == "kong_added"
    assert t.hand.phase == Turn(3, parse_tile("P"), "kong_added")


# --- Declaring ready ---------------------------------------------------------------------------


def test_a_player_may_only_win_after_declaring_ready():
    # Seat 1 never declares; its hand completes with the self-drawn 6p, but it may not win.
    t = Table(SEED_DEAL, wall="E 7s 8s 1p 6p")
    t.act(0, "discard", "C")
    t.act(1, "discard", "E")
    around_to_seat_1(t)
    assert Win(1) not in t.legal(1)
    with pytest.raises(RuleViolation) as exc:
        t.act(1, "win")
    assert exc.value.code == "not_ready"


def test_declaring_ready_needs_a_hand_one_tile_from_winning():
    t = Table(SEED_DEAL, wall="E")
    t.act(0, "discard", "C")
    with pytest.raises(RuleViolation) as exc:
        t.act(1, "declare_ready", "4p")
    assert exc.value.code == "not_ready_after_discard"
    events = t.act(1, "declare_ready", "E")
    assert events[0].waits == parse_tiles("3p 6p")


def test_the_face_down_discard_cannot_be_seen_ponged_or_won_on_and_shows_at_hand_end():
    # Seat 2 holds a pair of E and is ready on E... neither may claim the face-down E.
    t = Table([DEALER, READY_ON_3P_6P, "2m 5m 8m 3p 6p 9p 2s 5s 8s EE W F", LOOSE_3], wall="E 7s")
    t.act(0, "discard", "C")
    events = t.act(1, "declare_ready", "E")
    declared = events[0]
    assert isinstance(t.hand.phase, Turn) and t.hand.phase.seat == 2  # no claim window
    for seat in (0, 2, 3):
        assert RULESET.redact(declared, seat).tile is None
        assert RULESET.view(t.state, seat).rivers[1] == (None,)
    assert RULESET.view(t.state, 1).rivers[1] == (parse_tile("E"),)
    play_defaults(t)
    assert t.ended().face_down[1] == parse_tile("E")


def test_a_locked_hand_discards_every_draw_that_does_not_win_by_itself():
    t = seed_table(wall="E " + AROUND + " 9m")
    around_to_seat_1(t)
    drawn = t.log.index(TileDrawn(1, parse_tile("9m")))
    assert t.log[drawn + 1] == TileDiscarded(1, parse_tile("9m"), auto=True)
    assert isinstance(t.hand.phase, Turn) and t.hand.phase.seat == 2


def test_a_locked_hand_may_not_change_its_tiles():
    t = seed_table(wall="E " + AROUND + " 6p")
    around_to_seat_1(t)
    with pytest.raises(RuleViolation) as exc:
        t.act(1, "discard", "4p")
    assert exc.value.code == "hand_locked"


def test_a_locked_hand_may_kong_only_when_its_winning_tiles_stay_the_same():
    # 444p 5p waits on 3p 5p 6p; a kong of 4p would leave only 5p: not allowed, 4p is discarded.
    t = Table([DEALER, "123m 456m 789m 444p 5p", LOOSE_2, LOOSE_3], wall="E " + AROUND + " 4p")
    t.act(0, "discard", "C")
    assert t.act(1, "declare_ready", "E")[0].waits == parse_tiles("3p 5p 6p")
    around_to_seat_1(t)
    assert TileDiscarded(1, parse_tile("4p"), auto=True) in t.log
    # PPP beside 45p keeps waiting on 3p 6p: the kong is offered.
    t = Table([DEALER, "123m 456m PPP 45p 99s", LOOSE_2, LOOSE_3_NO_C.replace("P", "W")], wall="E " + AROUND + " P")
    t.act(0, "discard", "C")
    t.act(1, "declare_ready", "E")
    around_to_seat_1(t)
    assert {type(a).__name__ for a in t.legal(1)} == {"Kong", "Discard"}


# --- Winning hands -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand",
    ["123m 456p 789s 234m 55p", "123m 456p 789s EEE 55p", "123m 456p 111s EEE CC", "123s 999m 111s CCC FF", "111m 999p EEE CCC 55s"],
)
def test_four_sets_and_a_pair_win_in_any_mix_of_suits(hand):
    assert completes(counts(parse_tiles(hand)), 0, seven_pairs=False)


def test_kongs_count_as_pungs():
    assert completes(counts(parse_tiles("123m 456p 789s 55p")), 1, seven_pairs=False)


def test_seven_pairs_do_not_win_unless_the_option_allows_them():
    hand = ["1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C", "11m 22m 33m 44p 55p 66s 7s", LOOSE_2, LOOSE_3]
    t = Table(hand, wall="E")
    t.act(0, "discard", "C")
    with pytest.raises(RuleViolation) as exc:
        t.act(1, "declare_ready", "E")
    assert exc.value.code == "not_ready_after_discard"
    t = Table(hand, wall="E", seven_pairs=True)
    t.act(0, "discard", "C")
    assert t.act(1, "declare_ready", "E")[0].waits == (parse_tile("7s"),)


# --- Points: the seed's 3p/6p example ---------------------------------------------------------


def test_a_discarded_3p_cannot_be_won_on():
    t = seed_table(wall="E 7s")
    t.act(2, "discard", "3p")
    assert isinstance(t.hand.phase, Turn) and t.hand.phase.seat == 3
    assert t.legal(1) == []
    with pytest.raises(RuleViolation) as exc:
        t.act(1, "win")
    assert exc.value.code == "below_threshold"
    assert "6 or more" in exc.value.message


def test_a_self_drawn_3p_wins_6_points():
    t = seed_table(wall="E " + AROUND + " 3p")
    around_to_seat_1(t)
    t.act(1, "win")
    assert (t.result.outcome, t.result.points) == ("self_draw", 6)
    assert t.result.deltas == (-6, 18, -6, -6)


def test_on_a_self_draw_each_of_the_three_others_pays_the_winner_as_one_payment_each():
    t = seed_table(wall="E " + AROUND + " 3p")
    around_to_seat_1(t)
    t.act(1, "win")
    assert t.result.payments == (Payment(0, 1, 6, "self_draw"), Payment(2, 1, 6, "self_draw"),
                                 Payment(3, 1, 6, "self_draw"))


def test_a_discarded_6p_wins_6_points():
    t = seed_table(wall="E 7s")
    t.act(2, "discard", "6p")
    t.act(1, "win")
    assert (t.result.outcome, t.result.points) == ("discard_win", 6)


def test_a_self_drawn_6p_wins_12_points():
    t = seed_table(wall="E " + AROUND + " 6p")
    around_to_seat_1(t)
    t.act(1, "win")
    assert (t.result.outcome, t.result.points) == ("self_draw", 12)
    assert t.result.deltas == (-12, 36, -12, -12)


def test_a_self_draw_worth_less_than_3_cannot_win():
    # Ready on 1p/4p with 23p: a self-drawn 1p is worth 1 and is discarded by itself.
    t = Table([DEALER, "123m 456m 789m 23p 99s", "2m 5m 8m 3p 6p 9p 2s 5s 8s E S W F", LOOSE_3], wall="E " + AROUND.replace("1p", "7p") + " 1p")
    t.act(0, "discard", "C")
    t.act(1, "declare_ready", "E")
    around_to_seat_1(t)
    assert TileDiscarded(1, parse_tile("1p"), auto=True) in t.log


def test_winds_and_dragons_are_worth_10():
    t = Table([DEALER, "123m 456m 789m 99s NN", LOOSE_2, LOOSE_3.replace("N", "S")], wall="E " + AROUND + " N")
    t.act(0, "discard", "C")
    t.act(1, "declare_ready", "E")
    around_to_seat_1(t)
    t.act(1, "win")
    assert t.result.points == 20


def test_a_concealed_kong_replacement_wins_as_a_self_draw_doubled():
    hands = [DEALER, "123m 456m PPP 45p 99s", LOOSE_2, LOOSE_3_NO_C.replace("P", "W")]
    t = Table(hands, wall="E " + AROUND + " P", tail="6p")
    t.act(0, "discard", "C")
    t.act(1, "declare_ready", "E")
    around_to_seat_1(t)
    t.act(1, "kong", "P")
    t.act(1, "win")
    assert (t.result.outcome, t.result.points) == ("kong_self_draw", 12)


def test_an_exposed_kong_replacement_wins_as_a_discard_win_not_doubled_and_needs_6():
    hands = [DEALER, "123m 456m PPP 45p 99s", LOOSE_2, LOOSE_3_NO_C.replace("P", "W")]
    t = Table(hands, wall="E P", tail="6p")
    t.act(0, "discard", "C")
    t.act(1, "declare_ready", "E")
    t.act(2, "discard", "P")
    assert {type(a).__name__ for a in t.legal(1)} == {"Kong", "Pass"}
    t.act(1, "kong", "P")
    t.act(1, "win")
    assert (t.result.outcome, t.result.points) == ("kong_replacement_win", 6)
    assert t.result.deltas == (-6, 18, -6, -6)  # nobody discarded the winning tile: no 包
    low = Table(hands, wall="E P", tail="3p")
    low.act(0, "discard", "C")
    low.act(1, "declare_ready", "E")
    low.act(2, "discard", "P")
    low.act(1, "kong", "P")
    assert TileDiscarded(1, parse_tile("3p"), auto=True) in low.log


# --- Who pays ----------------------------------------------------------------------------------


def test_normally_each_of_the_three_others_pays_the_winner():
    t = seed_table(wall="E " + AROUND + " 6p", base_score=1)
    around_to_seat_1(t)
    t.act(1, "win")
    assert t.result.deltas == (-12, 36, -12, -12)


def test_a_player_not_ready_who_discards_a_6_plus_winning_tile_pays_for_all_three():
    t = seed_table(wall="E 7s")
    t.act(2, "discard", "6p")
    t.act(1, "win")
    assert t.ended().payer == 2
    assert t.result.deltas == (0, 18, -18, 0)


def test_a_ready_player_who_discards_the_winning_tile_does_not_pay_for_three():
    hands = [DEALER, READY_ON_3P_6P, "234s 567s 888s EE WW", LOOSE_3]
    t = Table(hands, wall="N 1p 2p 8p 7p 6p")
    t.act(0, "discard", "C")
    t.act(1, "declare_ready", "N")
    t.act(2, "declare_ready", "1p")
    t.act(3, "discard", "2p")
    t.act(0, "discard", "8p")  # seat 1 discards 7p by itself, seat 2 its drawn 6p
    assert TileDiscarded(2, parse_tile("6p"), auto=True) in t.log
    t.act(1, "win")
    assert t.ended().payer is None
    assert t.result.deltas == (-6, 18, -6, -6)


ROB_HANDS = [
    "1m 4m 7m 2p 5p 8p 1s 4s 8s E S W N C",
    "123m 456m 789m 7s 9s PP",
    "2m 5m 8m 3p 6p 9p 2s 5s 88s S W F",
    "3m 6m 9m 1p 7p 1s 3s 6s 9s N C F P",
]


def rob_table() -> Table:
    """Seat 2 pongs the dealer's 8s, seat 1 then declares ready on 8s, seat 2 draws the last 8s."""
    t = Table(ROB_HANDS, wall="1p 2p E 8s", tail="C")
    t.act(0, "discard", "8s")
    t.act(2, "pong", "8s")
    t.act(2, "discard", "F")
    t.act(3, "discard", "1p")
    t.act(0, "discard", "2p")
    t.act(1, "declare_ready", "E")
    return t


def test_a_ready_player_may_rob_an_added_kong_and_a_kong_maker_not_ready_pays_for_all_three():
    t = rob_table()
    t.act(2, "kong", "8s")
    assert [type(a).__name__ for a in t.legal(1)] == ["Win", "Pass"]
    t.act(1, "win")
    assert (t.result.outcome, t.result.points) == ("robbed_kong", 8)
    assert t.ended().payer == 2 and t.result.deltas == (0, 24, -24, 0)


def test_the_seat_that_pays_for_all_three_makes_one_payment_of_three_shares():
    t = rob_table()
    t.act(2, "kong", "8s")
    t.act(1, "win")
    assert t.result.payments == (Payment(2, 1, 24, "bao"),)


def test_an_added_kong_nobody_robs_gets_its_replacement():
    t = rob_table()
    t.act(2, "kong", "8s")
    t.act(1, "pass")
    assert t.hand.phase == Turn(2, parse_tile("C"), "kong_added")


def test_if_all_three_others_are_ready_and_wait_on_the_added_kong_tile_the_hand_is_drawn():
    hands = [
        "123m 456m 789m 78p EE 9p",
        "123s 456s 789s 78p SS",
        "2m 5m 8m 1p 3p 99p 2s 5s N C F P",
        "123s 456s 789s 78p WW",
    ]
    t = Table(hands, wall="F C P 9p")
    t.act(0, "discard", "9p")
    t.act(2, "pong", "9p")
    t.act(2, "discard", "N")
    t.act(3, "declare_ready", "F")
    t.act(0, "declare_ready", "C")
    t.act(1, "declare_ready", "P")
    t.act(2, "kong", "9p")
    assert (t.result.outcome, t.result.deltas) == ("kong_draw", (0, 0, 0, 0))


def test_several_players_winning_on_one_discard_the_first_after_the_discarder_wins():
    hands = [DEALER, READY_ON_3P_6P, LOOSE_2, "345m 78p 111s 333s NN"]
    t = Table(hands, wall="E 7s 2s 8s 1p 9s")
    t.act(0, "discard", "C")
    t.act(1, "declare_ready", "E")
    t.act(2, "discard", "7s")
    t.act(3, "declare_ready", "2s")
    t.act(0, "discard", "8s")  # seat 1 discards 1p by itself
    t.act(2, "discard", "6p")
    window = t.hand.phase.window
    assert {s for s, _ in window.options} == {1, 3}
    t.act(1, "win")  # seat 1 answers first, but seat 3 sits first after the discarder
    assert RULESET.status(t.state) is Status.IN_HAND
    t.act(3, "win")
    assert t.ended().winner == 3


def test_a_player_after_the_head_bump_winner_wins_if_the_first_passes():
    hands = [DEALER, READY_ON_3P_6P, LOOSE_2, "345m 78p 111s 333s NN"]
    t = Table(hands, wall="E 7s 2s 8s 1p 9s")
    for seat, action, tile in [(0, "discard", "C"), (1, "declare_ready", "E"), (2, "discard", "7s"),
                               (3, "declare_ready", "2s"), (0, "discard", "8s"), (2, "discard", "6p")]:
        t.act(seat, action, tile)
    t.act(3, "pass")
    t.act(1, "win")
    assert t.ended().winner == 1


# --- Draw --------------------------------------------------------------------------------------


def test_the_hand_is_drawn_when_the_live_wall_reaches_the_12_tile_reserve_and_nobody_pays():
    t = Table(SEED_DEAL)
    play_defaults(t)
    draws = [ev for ev in t.log if isinstance(ev, TileDrawn)]
    assert len(draws) == 136 - 53 - 12
    assert t.result.outcome == "draw" and t.result.deltas == (0, 0, 0, 0)


def test_the_last_tile_is_not_discarded_when_it_does_not_win():
    t = Table(SEED_DEAL)
    play_defaults(t)
    assert isinstance(t.log[-2], TileDrawn) and isinstance(t.log[-1], HandEnded)


def test_each_kong_keeps_one_more_stack_standing():
    t = Table([KONG_DEALER, READY_ON_3P_6P, LOOSE_2, LOOSE_3_NO_C])
    t.act(0, "kong", "C")
    play_defaults(t)
    draws = [ev for ev in t.log if isinstance(ev, TileDrawn)]
    assert len(draws) == 136 - 53 - 14  # the replacement and 68 live draws; 14 tiles stand


def test_the_last_tile_wins_for_the_player_who_draws_it():
    # Dealer 2: the 71st draw is seat 1's. Every other 3p and 6p is held where nobody discards it.
    hands = [
        "333p 66p 1m 4m 7m 2s 5s 8s E F",
        READY_ON_3P_6P,
        "2m 5m 8m 9p 2p 1s 4s 7s S W F C 7p N",
        "3p 6p 3m 6m 9m 1p 3s 6s 9s N C F P",
    ]
    deal = RULESET.fixed_deal({"dealer": 2, "hands": hands, "wall": "7p 9p E"}, b"salt")
    order = list(deal.order)
    last = 136 - 12 - 1
    six = order.index(parse_tile("6p"), 53)
    order[six], order[last] = order[last], order[six]
    t = Table.__new__(Table)
    t.log = list(RULESET.create("t", RULESET.options()))
    t.state = Table._fold(t.log)
    t._apply(type(deal)(2, tuple(order), b"salt"))
    t.act(2, "discard", "7p")
    t.act(3, "discard", "7p")
    t.act(0, "discard", "9p")
    t.act(1, "declare_ready", "E")
    play_defaults(t)
    assert t.result.outcome == "self_draw" and t.result.points == 12
    assert sum(isinstance(ev, TileDrawn) for ev in t.log) == 136 - 53 - 12


# --- Dealer and match --------------------------------------------------------------------------


def test_the_dealer_passes_to_the_next_seat_when_another_player_wins():
    t = seed_table(wall="E 7s")
    t.act(2, "discard", "6p")
    t.act(1, "win")
    assert (t.ended().next_dealer, t.ended().passes) == (1, 1)


def test_the_dealer_stays_after_winning():
    hands = ["1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N", "123m 456m 789m 45p 99s C", LOOSE_2, LOOSE_3]
    t = Table(hands, dealer=1, wall="7s")
    t.act(1, "declare_ready", "C")
    t.act(2, "discard", "6p")
    t.act(1, "win")
    assert (t.ended().next_dealer, t.ended().passes) == (1, 0)


def test_the_dealer_stays_on_a_draw_unless_the_option_says_otherwise():
    t = Table(SEED_DEAL)
    play_defaults(t)
    assert (t.ended().next_dealer, t.ended().passes) == (0, 0)
    t = Table(SEED_DEAL, dealer_stays_on_draw=False)
    play_defaults(t)
    assert (t.ended().next_dealer, t.ended().passes) == (1, 1)


def test_a_match_ends_when_the_dealership_has_gone_around_rounds_per_match_times():
    options = RULESET.options({"rounds_per_match": 1, "dealer_stays_on_draw": False})
    log = list(RULESET.create("t", options))
    state = RULESET.initial()
    for ev in log:
        state = RULESET.evolve(state, ev)
    t = Table.__new__(Table)
    t.log, t.state = log, state
    for n in range(4):
        assert RULESET.status(t.state) is Status.WAITING_FOR_HAND
        t._apply(StartHand(bytes([n]), b"salt"))
        play_defaults(t)  # auto-play never declares ready: every hand is drawn and the deal passes
    assert RULESET.status(t.state) is Status.MATCH_OVER
    assert isinstance(t.log[-1], MatchEnded) and sorted(t.log[-1].seating) == [0, 1, 2, 3]
    with pytest.raises(RuleViolation) as exc:
        t._apply(StartHand(b"x", b"salt"))
    assert exc.value.code == "match_over"


# --- Options -----------------------------------------------------------------------------------


def test_base_score_multiplies_the_points():
    t = seed_table(wall="E 7s", base_score=5)
    t.act(2, "discard", "6p")
    t.act(1, "win")
    assert t.result.deltas == (0, 90, -90, 0)


def test_a_bad_option_is_named():
    with pytest.raises(ValueError, match="seven_pair"):
        RULESET.options({"seven_pair": True})
    with pytest.raises(ValueError, match="base_score"):
        RULESET.options({"base_score": 0})
    with pytest.raises(ValueError, match="dealer_stays_on_draw"):
        RULESET.options({"dealer_stays_on_draw": "yes"})


def test_the_claim_answers_of_a_seat_are_seen_by_that_seat_only():
    t = seed_table(wall="E 7s")
    t.act(2, "discard", "6p")
    answered = t.act(1, "pass")[0]
    assert isinstance(answered, ClaimAnswered)
    assert RULESET.redact(answered, 1) == answered
    assert all(RULESET.redact(answered, s) is None for s in (0, 2, 3))


def test_a_kong_is_declared_after_drawing_not_right_after_a_pong():
    t = Table([DEALER, READY_ON_3P_6P, LOOSE_2, "3m 6m 9m 1p 7p 1s 3s CC PPPP"])
    t.act(0, "discard", "C")
    t.act(3, "pong", "C")
    assert not any(type(a).__name__ == "Kong" for a in t.legal(3))
    with pytest.raises(RuleViolation) as exc:
        t.act(3, "kong", "P")
    assert exc.value.code == "no_kong" and "after drawing" in exc.value.message


def test_no_kong_when_the_wall_has_no_room_for_its_replacement_and_reserve():
    # Seat 1 keeps CCCC to the end (auto-play discards what it draws) and sees 70, 66 ... 2 live tiles.
    hands = ["1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N F", "CCCC 123m 456m 789m", LOOSE_2, LOOSE_3_NO_C]
    t = Table(hands)
    offered = []
    while RULESET.status(t.state) is Status.IN_HAND:
        phase = t.hand.phase
        if isinstance(phase, Turn) and phase.seat == 1:
            offered.append((t.hand.wall.live, any(type(a).__name__ == "Kong" for a in t.legal(1))))
            if t.hand.wall.live < 3:
                with pytest.raises(RuleViolation) as exc:
                    t.act(1, "kong", "C")
                assert exc.value.code == "wall_too_short"
        t._apply(next(iter(RULESET.deadline(t.state).defaults.values())))
    assert all(kong == (live >= 3) for live, kong in offered)
    assert offered[-1][0] == 2
