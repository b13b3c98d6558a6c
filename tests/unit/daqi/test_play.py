"""Trick play at the table (daqi.md, "Play"): who leads, the order, following, points, the end."""

import json
from pathlib import Path

import pytest

from engine.core.errors import RuleViolation
from engine.daqi import RULESET
from engine.daqi.cards import HEARTS, SPADES
from engine.daqi.commands import Bid, Bury, DealNext, Pass, PlayCards
from engine.daqi.events import (
    BiddingClosed,
    BidMade,
    BottomBuried,
    BottomTaken,
    CardsPlayed,
    FriendRevealed,
    HandEnded,
    Passed,
    ThrowFailed,
    TrickWon,
)
from engine.daqi.state import Playing, Waiting
from engine.scenario import ScenarioError, run_scenario

from .tables import (
    bury,
    cards,
    endgame,
    finish_by_defaults,
    fixed_deal,
    pass_round,
    play,
    run,
    to_burying,
)

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "daqi"
BOTTOM = "♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10 ♣J"


def _rejected(state, cmd):
    with pytest.raises(RuleViolation) as err:
        RULESET.decide(state, cmd)
    return err.value


def _playing():
    state = to_burying(fixed_deal({1: "♥7", 3: "♥7"}, bottom=BOTTOM), [Bid(1, cards("♥7"))])
    state, _ = bury(state, BOTTOM)
    state, _ = pass_round(state)
    return state


def test_the_declarer_leads_the_first_trick():
    state = _playing()
    assert isinstance(state, Playing) and state.turn == 1
    assert list(RULESET.deadline(state).defaults) == [1]


def test_play_goes_in_play_order():
    state = _playing()
    lead = RULESET.legal_actions(state, 1)[0]
    state, _ = run(state, lead)
    assert state.turn == 2
    assert RULESET.legal_actions(state, 3) == []
    err = _rejected(state, PlayCards(3, state.hands[3][:1]))
    assert (err.code, err.message) == ("not_your_turn", "it is seat 2's turn to play")


def test_the_winner_of_a_trick_leads_the_next():
    state = endgame(
        {0: "♠3 ♠4", 1: "♠A ♦3", 2: "♠5 ♦4", 3: "♠6 ♦6", 4: "♠8 ♦8"},
        declarer=0, leader=0, trump_suit=HEARTS,
    )
    plays = [(0, "♠3"), (1, "♠A"), (2, "♠5"), (3, "♠6"), (4, "♠8")]
    state, _ = run(state, *(PlayCards(s, cards(c)) for s, c in plays))
    assert state.leader == 1 and state.turn == 1


def test_a_follow_that_breaks_the_rules_is_rejected_with_the_players_reason():
    state = endgame(
        {0: "♥9 ♥9", 1: "♥3 ♥3 ♥4", 2: "♠3 ♠4", 3: "♠5 ♠6", 4: "♠8 ♠9"},
        declarer=0, leader=0, trump_suit=None,
    )
    state, _ = play(state, 0, "♥9 ♥9")
    err = _rejected(state, PlayCards(1, cards("♥3 ♥4")))
    assert (err.code, err.message) == (
        "must_follow_pair",
        "you hold a pair of ♥: you must play a pair",
    )


def test_a_lead_of_mixed_suits_is_rejected():
    state = endgame({0: "♠3 ♥4"}, declarer=0, leader=0, trump_suit=None)
    assert _rejected(state, PlayCards(0, cards("♠3 ♥4"))).code == "not_a_combination"


def test_cards_not_held_cannot_be_played():
    state = endgame({0: "♠3 ♥4"}, declarer=0, leader=0, trump_suit=None)
    err = _rejected(state, PlayCards(0, cards("♠A")))
    assert (err.code, err.message) == ("cards_not_held", "you do not hold ♠A")


def test_a_void_player_trumping_with_the_same_shape_wins_the_trick():
    state = endgame(
        {0: "♠A ♠A", 1: "♥3 ♥3", 2: "♠5 ♠6", 3: "♠8 ♠9", 4: "♠J ♠Q"},
        declarer=0, leader=0, trump_suit=HEARTS,
    )
    plays = [(0, "♠A ♠A"), (1, "♥3 ♥3"), (2, "♠5 ♠6"), (3, "♠8 ♠9"), (4, "♠J ♠Q")]
    state, events = run(state, *(PlayCards(s, cards(c)) for s, c in plays))
    assert TrickWon(20, 1, 5) in events


def test_the_points_of_a_trick_go_to_its_winner():
    state = _playing()
    state, events = finish_by_defaults(state)
    tricks = [e for e in events if isinstance(e, TrickWon)]
    ended = events[-1]
    won = [0] * 5
    for t in tricks:
        won[t.seat] += t.points
    assert tuple(won) == ended.won


def test_the_hand_ends_when_every_card_is_played():
    state = _playing()
    state, events = finish_by_defaults(state)
    assert isinstance(events[-1], HandEnded) and isinstance(state, Waiting)
    played = [c for e in events if isinstance(e, CardsPlayed) for c in e.cards]
    assert len(played) == 100
    assert _rejected(state, PlayCards(1, cards("♠3"))).code == "no_hand_in_progress"


def test_every_offered_play_is_legal_and_the_timeout_play_is_one_of_them():
    state = _playing()
    for _ in range(15):
        seat = state.turn
        offered = RULESET.legal_actions(state, seat)
        for cmd in offered:
            RULESET.decide(state, cmd)
        default = RULESET.deadline(state).defaults[seat]
        assert default in offered
        state, _ = run(state, default)


# ---- scenario files --------------------------------------------------------------------------

def _overcall(outcome):
    assert BidMade(3, cards("♠7 ♠7"), overcall=True) in outcome.events
    assert BiddingClosed(3, SPADES) in outcome.events
    assert not any(isinstance(e, Passed) for e in outcome.events[outcome.events.index(
        next(e for e in outcome.events if isinstance(e, BottomBuried))):])


def _friend(outcome):
    assert FriendRevealed(3) in outcome.events
    assert (outcome.events[-1].declarer, outcome.events[-1].friend) == (1, 3)


def _extra_overcall(outcome):
    closed = [e for e in outcome.events if isinstance(e, BiddingClosed)]
    assert closed == [BiddingClosed(1, HEARTS), BiddingClosed(3, SPADES)]
    taken = [e for e in outcome.events if isinstance(e, BottomTaken)]
    assert taken[1] == BottomTaken(3, cards("♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10 ♣J"))
    assert outcome.events[-1].declarer == 3


def _first_to_play(outcome):
    assert BiddingClosed(2, HEARTS, by_flip=True) in outcome.events
    assert [e for e in outcome.events if isinstance(e, FriendRevealed)] == [FriendRevealed(3)]
    assert (outcome.events[-1].declarer, outcome.events[-1].friend) == (2, 3)


EXPECTED = {
    "overcall_during_the_deal.json": _overcall,
    "extra_overcall_after_burying.json": _extra_overcall,
    "nobody_bid_first_trump_seven_is_friend.json": _first_to_play,
    "friend_revealed.json": _friend,
    "illegal_follow.json": ("must_follow_pair", "you hold a pair of ♦: you must play a pair"),
}


def test_every_scenario_file_has_an_expectation():
    assert set(p.name for p in SCENARIOS.glob("*.json")) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_scenario_files_play_as_expected(name):
    spec = json.loads((SCENARIOS / name).read_text(encoding="utf-8"))
    expected = EXPECTED[name]
    if isinstance(expected, tuple):
        with pytest.raises(ScenarioError) as err:
            run_scenario(spec)
        assert (err.value.code, err.value.message) == expected
        return
    outcome = run_scenario(spec)
    assert isinstance(outcome.events[-1], HandEnded)
    assert sum(outcome.result.deltas) == 0
    assert RULESET.check(outcome.state) == []
    expected(outcome)


# ---- 甩牌 (option allow_throw) ----------------------------------------------------------------

THROW_HANDS = {0: "♠A ♠K ♠3", 1: "♠Q ♦3 ♦4", 2: "♦5 ♦6 ♦8", 3: "♦9 ♦10 ♦J", 4: "♣3 ♣4 ♣6"}


def test_throwing_several_combinations_is_not_a_lead_by_default():
    state = endgame(THROW_HANDS, declarer=0, leader=0, trump_suit=HEARTS)
    assert _rejected(state, PlayCards(0, cards("♠A ♠K"))).code == "not_a_combination"


def test_a_throw_nobody_can_beat_is_played_whole():
    state = endgame(
        {0: "♠A ♠K", 1: "♦Q ♦3", 2: "♦5 ♦6", 3: "♦9 ♦10", 4: "♣3 ♣4"},
        declarer=0, leader=0, trump_suit=HEARTS, allow_throw=True,
    )
    state, events = play(state, 0, "♠A ♠K")
    assert events == [CardsPlayed(0, cards("♠K ♠A"))]


def test_a_throw_another_player_could_beat_plays_only_that_part():
    state = endgame(THROW_HANDS, declarer=0, leader=0, trump_suit=HEARTS, allow_throw=True)
    state, events = play(state, 0, "♠A ♠K ♠3")
    assert events == [
        ThrowFailed(0, cards("♠3 ♠K ♠A"), cards("♠3")),
        CardsPlayed(0, cards("♠3")),
    ]
    assert sorted(state.hands[0]) == sorted(cards("♠A ♠K"))


def test_is_legal_judges_any_play_without_raising():
    state = endgame(THROW_HANDS, declarer=0, leader=0, trump_suit=HEARTS)
    assert RULESET.is_legal(state, PlayCards(0, cards("♠A")))
    assert not RULESET.is_legal(state, PlayCards(0, cards("♠A ♠K")))
    assert not RULESET.is_legal(state, PlayCards(1, cards("♠Q")))


# ---- the human form of commands --------------------------------------------------------------

@pytest.mark.parametrize(
    ("spec", "command"),
    [
        ({"action": "deal_next"}, DealNext()),
        ({"seat": 1, "action": "bid", "cards": "♥7 ♥7"}, Bid(1, cards("♥7 ♥7"))),
        (
            {"seat": 0, "action": "bury", "cards": "C3 C4 C5 C6 C8 C9 C10 C11"},
            Bury(0, cards(BOTTOM)),
        ),
        ({"seat": 0, "action": "play", "cards": "♠A ♠A"}, PlayCards(0, cards("♠A ♠A"))),
        ({"seat": 2, "action": "pass"}, Pass(2)),
    ],
)
def test_commands_are_read_from_their_human_form(spec, command):
    assert RULESET.parse_command(spec) == command


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ({"action": "discard", "seat": 0}, "unknown action 'discard'"),
        ({"action": "pass", "seat": 5}, "'seat' 0..4"),
        ({"action": "play", "seat": 0}, "needs 'cards'"),
        ({"action": "play", "seat": 0, "cards": "♠X"}, "bad card '♠X'"),
        ({"action": "deal_next", "seat": 0}, "takes no seat"),
    ],
)
def test_a_bad_command_names_its_bad_part(spec, words):
    with pytest.raises(ValueError, match=words):
        RULESET.parse_command(spec)
