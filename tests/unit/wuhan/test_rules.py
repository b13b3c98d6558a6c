"""One test per rule of rules/wuhan.md, each a fixed deal of tests/scenarios/wuhan/ played move
by move (Table.of(name, k): the scenario after its first k actions)."""

from __future__ import annotations

import pytest

from engine.core.errors import RuleViolation
from engine.mahjong.actions import Konged, TileDiscarded, TileDrawn
from engine.mahjong.melds import KONG_CONCEALED, KONG_EXPOSED
from engine.mahjong.tiles import parse_tiles
from engine.wuhan import RULESET
from engine.wuhan.events import ClaimWindowOpened, IndicatorTurned, LaidOut
from engine.wuhan.scoring import opened
from engine.wuhan.state import Claims, LastFour, Turn

from .table import Table, scenario

SMALL = "small_win_on_a_discard"  # seat 1 pongs E (actions 1-2), discards 9p (3), waits on 5m


def deal(name: str, **changes: object) -> dict:
    return {**scenario(name)["deal"], **changes}


def with_hand(base: str | dict, seat: int, hand: str, **changes: object) -> dict:
    d = {**(deal(base) if isinstance(base, str) else base), **changes}
    hands = list(d["hands"])
    hands[seat] = hand
    return {**d, "hands": hands}


# --- Tiles, seats, dealer -------------------------------------------------------------------------


def test_136_tiles_the_dealer_takes_14_the_others_13():
    t = Table.of(SMALL, 0)
    assert [t.hand.seats[s].size() for s in range(4)] == [14, 13, 13, 13]
    assert sorted(t.hand.wall.order) == sorted(parse_tiles("123456789m 123456789p 123456789s ESWNCFP") * 4)
    assert RULESET.check(t.state) == []


def test_the_dealer_stays_when_the_dealer_wins():
    t = Table.of("first_winner_from_the_dealer_takes_the_discard")
    assert t.ended().winner == 0 and t.ended().next_dealer == 0 and t.ended().passes == 0


def test_the_dealer_stays_when_the_hand_is_drawn():
    t = Table.of("last_four_without_a_win_is_a_drawn_hand")
    t.finish()
    assert t.ended().outcome == "draw" and t.ended().next_dealer == 0


def test_otherwise_the_dealership_passes_to_the_next_seat():
    t = Table.of(SMALL)
    assert t.ended().winner == 1 and t.ended().next_dealer == 1 and t.ended().passes == 1


# --- 赖子 and 赖子皮 --------------------------------------------------------------------------------


def test_the_indicator_after_the_deal_gives_the_laizi_and_the_skins_and_everyone_sees_it():
    t = Table.of(SMALL, 0)
    turned = next(ev for ev in t.log if isinstance(ev, IndicatorTurned))
    assert (str(turned.indicator), str(turned.laizi), [str(s) for s in turned.skins]) == ("N", "C", ["N", "W"])
    for seat in (None, 0, 1, 2, 3):
        assert RULESET.redact(turned, seat) == turned
        v = RULESET.view(t.state, seat)
        assert (str(v.indicator), str(v.laizi)) == ("N", "C")


def test_the_indicator_stays_on_the_wall_out_of_play():
    t = Table.of(SMALL, 0)
    # Dealt 53, the indicator turned: the next live draw is the tile after it.
    assert t.hand.wall.front == 54 and str(t.hand.wall.next_live()) == "9s"
    assert RULESET.check(t.state) == []


def test_a_discarded_laizi_is_a_laizi_kong_nobody_may_claim_and_a_replacement_follows():
    t = Table.of("discarded_laizi_is_a_laizi_kong", 4)
    events = t.act(3, "discard", "C")
    assert [type(ev) for ev in events] == [LaidOut, TileDrawn]
    assert events[0].kong == "赖子杠" and events[0].discarded
    assert events[1].from_tail and str(events[1].tile) == "4p"
    assert t.hand.laid[3] == parse_tiles("C") and not t.hand.seats[3].river[-1:] == parse_tiles("C")


def test_a_laizi_kong_on_ones_own_turn_is_the_same_move_as_discarding_it():
    as_kong = Table.of("discarded_laizi_is_a_laizi_kong", 4)
    as_discard = Table.of("discarded_laizi_is_a_laizi_kong", 4)
    kong_events = as_kong.act(3, "kong", "C")
    discard_events = as_discard.act(3, "discard", "C")
    assert [type(e) for e in kong_events] == [type(e) for e in discard_events]
    assert as_kong.hand.laid == as_discard.hand.laid


def test_a_loser_pays_four_times_for_each_own_laizi_kong():
    t = Table.of("discarded_laizi_is_a_laizi_kong")
    assert t.formula(3) == "1 × 4(赖子杠) × 2(放冲) × 4 = 32"
    assert t.ended().deltas == (-8, 44, -4, -32)


def test_a_laizi_stands_for_any_tile_in_a_winning_hand_soft():
    # Seat 1 holds the 赖子 C instead of 9s and wins seat 2's 9s: C pairs the 5m, a soft win
    # without 硬胡's ×2.
    t = Table(with_hand(SMALL, 1, "123m 456p 78s C 5m 9p EE"), min_win=4)
    for seat, action, tile in [(0, "discard", "E"), (1, "pong", "E"), (1, "discard", "9p"),
                               (2, "discard", "9s"), (1, "win", None)]:
        t.act(seat, action, tile)
    assert not t.settlement.hard and [f.name for f in t.settlement.winner_factors] == ["开口"]


def test_a_laizi_standing_for_itself_is_a_hard_win():
    # Seat 2's 9s completes 111m 444p CCC 99s: all pungs with C as itself, scored hard (×2)
    # rather than soft.
    t = Table(with_hand(SMALL, 1, "111m 444p CCC 9s 9p EE"), min_win=4)
    for seat, action, tile in [(0, "discard", "E"), (1, "pong", "E"), (1, "discard", "9p"),
                               (2, "discard", "9s"), (1, "win", None)]:
        t.act(seat, action, tile)
    assert t.settlement.hard and t.settlement.big_wins == ("all_pungs",)


def test_with_two_laizi_in_hand_only_a_big_win_may_be_won():
    t = Table(with_hand(SMALL, 1, "123m 456p 7s CC 5m 9p EE"), min_win=1)
    for seat, action, tile in [(0, "discard", "E"), (1, "pong", "E"), (1, "discard", "9p"), (2, "discard", "9s")]:
        t.act(seat, action, tile)
    t.act(3, "discard", "5m")  # a 小胡 for seat 1, with two 赖子: no window opens
    assert not isinstance(t.hand.phase, Claims)
    with pytest.raises(RuleViolation) as exc:
        t.act(1, "win")
    assert exc.value.code == "big_win_only"


def test_a_laizi_and_a_skin_cannot_help_make_a_chow():
    # Indicator 6m: the 赖子 is 7m, the skins 6m and 5m. Seat 1's 6m 7m would chow the dealer's
    # 8m with ordinary tiles; as a skin and a 赖子 they cannot, and seat 1 just draws.
    d = with_hand(with_hand(SMALL, 0, "1m 4m 8m 2p 5p 8p 3s 6s 9s E S F P 9m"), 1, "6m 7m 123p 456p 789s EE", indicator="6m")
    t = Table(d)
    t.act(0, "discard", "8m")
    assert t.hand.phase == Turn(1, parse_tiles("9s")[0], "wall")


def test_a_skin_is_laid_out_alone_as_a_skin_kong_never_in_a_four_tile_kong():
    # Seat 2 holds all four W (a skin): each is a 皮杠 of its own, no 暗杠.
    t = Table(with_hand(SMALL, 2, "WWWW 8m 3p 7p 9p 1s 4s 8s S F"))
    for seat, action, tile in [(0, "discard", "E"), (1, "pong", "E"), (1, "discard", "9p")]:
        t.act(seat, action, tile)
    assert "kong W" in t.legal(2)
    events = t.act(2, "kong", "W")
    assert [type(e) for e in events] == [LaidOut, TileDrawn] and events[0].kong == "皮杠"
    assert not any(m.kind == KONG_CONCEALED for m in t.hand.seats[2].melds)


def test_holding_a_skin_forbids_winning():
    t = Table(with_hand(SMALL, 1, "123m 456p 789s 5m N EE"), min_win=1)
    for seat, action, tile in [(0, "discard", "E"), (1, "pong", "E")]:
        t.act(seat, action, tile)
    # Seat 1 keeps the skin N and discards 5m... then cannot win on anything.
    t.act(1, "discard", "9s")
    t.act(2, "discard", "9s")
    assert not any(isinstance(ev, ClaimWindowOpened) and 1 in dict(ev.options) for ev in t.log[-2:])


def test_a_skin_kong_replacement_that_wins_is_kong_bloom():
    t = Table.of("skin_kong_replacement_wins_kong_bloom")
    s = t.settlement
    assert s.big_wins == ("kong_bloom",) and s.base == 10
    assert t.settlement.winner_formula() == "12 = 2(开口) × 2(皮杠) × 1.5(自摸) × 2(硬胡)"
    assert [t.formula(seat) for seat in (0, 2, 3)] == ["10 × 12 = 120"] * 3


# --- Claims -------------------------------------------------------------------------------------


def test_only_the_next_player_may_chow():
    # Seat 2 holds 78s: the dealer's 9s is not its to chow (seat 1 is next).
    t = Table(with_hand(SMALL, 0, "1m 4m 7m 2p 5p 8p 3s 6s 9s 9s S F P 9m"))
    t.act(0, "discard", "9s")
    assert not isinstance(t.hand.phase, Claims) or 2 not in dict(t.hand.phase.window.options)


def test_the_next_player_may_chow_with_two_ordinary_tiles():
    t = Table(with_hand(SMALL, 1, "123m 456p 78s 5m 9p EE 1s"))
    t.act(0, "discard", "9s")
    assert "chow 7s" in t.legal(1)
    t.act(1, "chow", "7s")
    assert isinstance(t.hand.phase, Turn) and t.hand.phase.seat == 1 and opened(t.hand.seats[1].melds)


def test_pong_and_kong_from_anyone_beat_a_chow():
    t = Table(with_hand(with_hand(SMALL, 1, "123m 456p 78s 5m 9p EE 1s"), 3, "3m 5m 9m 1p 6p 1s 2s 5s 9s 9s S F P"))
    t.act(0, "discard", "9s")
    t.act(1, "chow", "7s")
    assert isinstance(t.hand.phase, Claims)  # seat 3 may still pong
    t.act(3, "pong", "9s")
    assert t.hand.phase == Turn(3, None, "claimed")


def test_an_exposed_kong_from_a_discard_is_an_opening_and_draws_a_replacement():
    t = Table.of("exposed_kong_from_a_discard", 1)
    events = t.act(1, "kong", "E")
    assert [type(e) for e in events][-2:] == [Konged, TileDrawn]
    assert events[-2].kind == KONG_EXPOSED and events[-1].from_tail
    assert opened(t.hand.seats[1].melds)


def test_an_added_kong_may_be_robbed_and_the_kong_maker_pays_for_everyone():
    t = Table.of("robbed_added_kong_maker_pays_for_everyone", 5)
    events = t.act(2, "kong", "5m")
    assert isinstance(events[-1], ClaimWindowOpened) and events[-1].robbing
    t.act(1, "win")
    s = t.settlement
    assert s.big_wins == ("robbed_kong",) and (s.liable, s.liable_for) == (2, "抢杠")
    assert t.formula(2) == "10 × 2(开口) × 1.5(放冲) × 4 = 120"
    assert t.ended().deltas == (0, 200, -200, 0)


def test_a_concealed_kong_is_not_an_opening():
    t = Table(with_hand(SMALL, 0, "1m 4m 7m 2p 5p 8p 3s 9s 6666s S F"))
    t.act(0, "kong", "6s")
    assert t.hand.seats[0].melds[0].kind == KONG_CONCEALED and not opened(t.hand.seats[0].melds)


# --- Who pays (承包) ------------------------------------------------------------------------------


def test_an_unready_discarder_of_a_quan_qiu_ren_pays_everybodys_amounts():
    t = Table.of("unready_discarder_of_quan_qiu_ren_pays_for_everyone")
    s = t.settlement
    assert s.big_wins == ("all_pungs", "all_claimed") and s.base == 20
    assert (s.liable, s.liable_for) == (2, "全求人")
    assert [t.formula(seat) for seat in (0, 2, 3)] == [
        "20 × 32 = 640 → 哈顶 700", "20 × 1.5(放冲) × 32 = 960 → 哈顶 700", "20 × 32 = 640 → 哈顶 700"]
    assert [line.payer for line in s.lines] == [2, 2, 2]


def test_the_seat_a_one_suit_winner_took_the_third_opening_from_pays_everybodys_amounts():
    t = Table.of("third_opening_of_one_suit_pays_for_everyone")
    s = t.settlement
    assert s.big_wins == ("one_suit",) and (s.liable, s.liable_for) == (3, "清一色")
    assert s.winner_formula() == "24 = 8(开口×3) × 1.5(自摸) × 2(硬胡)"
    assert t.ended().deltas == (0, 720, 0, -720)


# --- Winning ------------------------------------------------------------------------------------


def test_a_player_must_have_opened_to_win():
    # Seat 1's concealed hand waits on 5m, but it never claimed anything: it may not win.
    d = with_hand(with_hand(SMALL, 1, "123m 456p 789s EEE 5m"), 3, "3m 5m 9m 1p 6p 1s 2s 5s 7s S F P 4p")
    t = Table(d, min_win=1)
    t.act(0, "discard", "E")
    t.act(1, "pass")
    t.act(1, "discard", "9s")
    t.act(2, "discard", "4s")
    t.act(3, "discard", "5m")
    with pytest.raises(RuleViolation) as exc:
        t.act(1, "win")
    assert exc.value.code == "not_opened"


def test_a_win_needs_32_from_one_loser_before_caps():
    t = Table.of("below_min_win_cannot_be_won", 5)
    with pytest.raises(RuleViolation) as exc:
        t.act(1, "win")
    assert exc.value.code == "below_min_win" and "8" in exc.value.message and "32" in exc.value.message


def test_a_small_win_is_scored_with_every_factor():
    t = Table.of(SMALL)
    s = t.settlement
    assert s.big_wins == () and s.base == 1 and s.hard
    assert s.winner_formula() == "4 = 2(开口) × 2(硬胡)"
    assert [t.formula(seat) for seat in (0, 2, 3)] == ["1 × 2(庄家) × 4 = 8", "1 × 4 = 4", "1 × 2(放冲) × 4 = 8"]
    assert t.ended().deltas == (-8, 20, -4, -8)


def test_only_one_winner_the_first_counting_from_the_dealer():
    t = Table.of("first_winner_from_the_dealer_takes_the_discard", 7)
    assert isinstance(t.hand.phase, Claims)  # seat 2 said win; the dealer, first in order, is asked
    t.act(0, "win")
    assert t.ended().winner == 0 and t.ended().deltas == (40, -16, -16, -8)


def test_with_the_option_the_first_winner_counts_from_the_discarder():
    t = Table.of("first_winner_from_the_discarder_with_the_option")
    assert t.ended().winner == 2 and t.ended().deltas == (-16, -8, 28, -4)


def test_the_last_four_draws_allow_only_a_self_drawn_win():
    t = Table.of("last_four_self_draw_wins_hai_di_lao")
    while not isinstance(t.hand.phase, LastFour) or str(t.hand.phase.drawn) != "5m":
        seat, cmd = next(iter(RULESET.deadline(t.state).defaults.items()))
        t._apply(cmd)
    assert t.hand.wall.live == 0 and t.legal(1) == ["win", "pass"]
    for action, tile in [("discard", "5m"), ("kong", "5m")]:
        with pytest.raises(RuleViolation) as exc:
            t.act(1, action, tile)
        assert exc.value.code == "last_four"
    t.act(1, "win")
    assert t.settlement.big_wins == ("last_four",) and t.ended().deltas == (-60, 180, -60, -60)


def test_the_last_ten_tiles_are_never_drawn_and_without_a_win_the_hand_is_drawn():
    t = Table.of("last_four_without_a_win_is_a_drawn_hand")
    t.finish()
    ended = t.ended()
    assert ended.outcome == "draw" and ended.deltas == (0, 0, 0, 0)
    draws = [ev for ev in t.log if isinstance(ev, TileDrawn)]
    assert len(draws) == 136 - 53 - 1 - 10  # dealt, the indicator, the 10 never drawn
    assert all(isinstance(ev, TileDrawn) for ev in t.log[-5:-1])  # the last four: no discard
    assert not any(isinstance(ev, TileDiscarded) for ev in t.log[-5:])
