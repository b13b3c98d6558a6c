"""The bottom (埋底) and the one extra overcall after burying (daqi.md, "The bottom")."""

from collections import Counter

import pytest

from engine.core.errors import RuleViolation
from engine.daqi import RULESET
from engine.daqi.cards import CLUBS, SPADES
from engine.daqi.commands import Bid, Bury, Pass
from engine.daqi.events import (
    BiddingClosed,
    BidMade,
    BottomBuried,
    BottomTaken,
    Passed,
    PlayStarted,
)
from engine.daqi.points import points
from engine.daqi.state import Burying, Overcalling, Playing

from .tables import bury, cards, fixed_deal, pass_round, run, to_burying

BOTTOM = "♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10 ♣J"
# Seat 1 bids ♥7 (seat 0 holds the other ♥7); seat 3 holds a ♠7 pair; seat 1 also has a ♣7 pair.
DEAL = fixed_deal({0: "♥7", 1: "♥7 ♣7 ♣7 ♠K ♠5", 3: "♠7 ♠7"}, bottom=BOTTOM)


def _rejected(state, cmd):
    with pytest.raises(RuleViolation) as err:
        RULESET.decide(state, cmd)
    return err.value


def test_the_declarer_takes_the_8_bottom_cards_into_hand():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    assert isinstance(state, Burying) and state.declarer == 1
    assert len(state.hands[1]) == 28
    assert not Counter(cards(BOTTOM)) - Counter(state.hands[1])


def test_the_declarer_buries_any_8_cards_face_down():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    chosen = "♠K ♠5 ♣7 ♣3 ♣4 ♣5 ♣6 ♣8"
    state, events = bury(state, chosen)
    assert events[0] == BottomBuried(1, tuple(sorted(cards(chosen))))
    assert len(state.hands[1]) == 20
    assert sorted(state.bottom) == sorted(cards(chosen))


@pytest.mark.parametrize(
    ("chosen", "code"),
    [("♣3 ♣4 ♣5", "wrong_bury_count"), ("♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10 BJ", "cards_not_held")],
)
def test_exactly_8_held_cards_are_buried(chosen, code):
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    assert _rejected(state, Bury(1, cards(chosen))).code == code


def test_only_the_declarer_buries():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    assert _rejected(state, Bury(2, cards(BOTTOM))).code == "not_declarer"


def test_without_a_fanzhu_each_player_may_overcall_once_after_burying_in_play_order_from_the_declarer():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    state, _ = bury(state, BOTTOM)
    assert isinstance(state, Overcalling)
    turns = []
    events = []
    while isinstance(state, Overcalling):
        turns.append(state.turn)
        assert RULESET.deadline(state).defaults == {state.turn: Pass(state.turn)}
        state, evs = run(state, Pass(state.turn))
        events += evs
    assert turns == [1, 2, 3, 4, 0]
    assert isinstance(events[-1], PlayStarted) and isinstance(state, Playing)
    assert state.declarer == 1


def test_the_first_valid_overcall_makes_its_maker_declarer_who_takes_and_reburies_the_bottom():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    state, _ = bury(state, BOTTOM)
    state, _ = run(state, Pass(1), Pass(2))
    state, events = run(state, Bid(3, cards("♠7 ♠7")))
    assert events == [
        BidMade(3, cards("♠7 ♠7"), overcall=True),
        BiddingClosed(3, SPADES),
        BottomTaken(3, tuple(sorted(cards(BOTTOM)))),
    ]
    assert isinstance(state, Burying) and state.declarer == 3 and len(state.hands[3]) == 28
    state, events = bury(state)
    assert isinstance(state, Playing), "there is no further overcall"
    assert isinstance(events[-1], PlayStarted) and events[-1].declarer == 3


def test_the_declarer_may_switch_suit_with_a_higher_bid_in_the_extra_overcall():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    state, _ = bury(state, BOTTOM)
    state, events = run(state, Bid(1, cards("♣7 ♣7")))
    assert BiddingClosed(1, CLUBS) in events
    assert isinstance(state, Burying) and state.declarer == 1 and state.again


def test_after_a_fanzhu_during_bidding_there_is_no_extra_overcall():
    state = to_burying(DEAL, [Bid(1, cards("♥7")), Bid(3, cards("♠7 ♠7"))])
    state, events = bury(state)
    assert [type(e) for e in events] == [BottomBuried, PlayStarted]
    assert isinstance(state, Playing)


def test_a_declarer_reinforcing_their_own_bid_is_no_fanzhu_and_the_extra_overcall_follows():
    state = to_burying(DEAL, [Bid(1, cards("♥7")), Bid(1, cards("♣7 ♣7"))])
    state, _ = bury(state)
    assert isinstance(state, Overcalling) and state.asked == 0


def test_the_extra_overcall_must_beat_the_standing_bid():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    state, _ = bury(state, BOTTOM)
    state, _ = run(state, Pass(1), Pass(2), Pass(3), Pass(4))
    err = _rejected(state, Bid(0, cards("♥7")))
    assert err.code == "bid_too_low"
    assert RULESET.legal_actions(state, 0) == [Pass(0)]


def test_the_extra_overcall_goes_round_in_turn():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    state, _ = bury(state, BOTTOM)
    err = _rejected(state, Bid(3, cards("♠7 ♠7")))
    assert (err.code, err.message) == (
        "not_your_turn",
        "the overcall goes round in play order: it is seat 1's turn",
    )


def test_after_a_flip_decided_trump_any_bid_overcalls_in_the_extra_round():
    state = to_burying(fixed_deal({2: "♦9 ♥7"}, flip=(2, 0), bottom=BOTTOM))
    assert state.declarer == 2
    state, _ = bury(state)
    state, events = run(state, Bid(2, cards("♥7")))
    assert isinstance(events[0], BidMade) and not events[0].overcall
    assert isinstance(state, Burying) and state.trumps.trump_suit == 1


def test_every_seat_is_asked_in_the_extra_round_even_without_a_bid_to_make():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    state, _ = bury(state, BOTTOM)
    state, events = pass_round(state)
    assert [e.seat for e in events if isinstance(e, Passed)] == [1, 2, 3, 4, 0]


def test_the_timeout_burial_keeps_points_and_trumps_when_it_can():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    (cmd,) = RULESET.deadline(state).defaults.values()
    assert points(cmd.cards) == 0
    assert not any(state.trumps.is_trump(c) for c in cmd.cards)


def test_every_burial_offered_is_legal():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    offered = RULESET.legal_actions(state, 1)
    assert len(offered) >= 2
    for cmd in offered:
        RULESET.decide(state, cmd)
    assert RULESET.legal_actions(state, 0) == []
