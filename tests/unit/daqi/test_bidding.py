"""Bidding (daqi.md, "Bidding"): 叫主 with 7s during the deal, 反主, 加固, the final window,
nobody bid."""

import pytest

from engine.core.errors import RuleViolation
from engine.daqi import RULESET
from engine.daqi.bidding import bid_rank, possible_bids
from engine.daqi.cards import HEARTS, SPADES
from engine.daqi.commands import Bid, DealNext, Pass
from engine.daqi.events import BiddingClosed, BidMade, BottomTaken, Passed
from engine.daqi.state import Burying, FinalBids

from .tables import cards, deal, fixed_deal, pass_all, run, started


def _rejected(state, cmd):
    with pytest.raises(RuleViolation) as err:
        RULESET.decide(state, cmd)
    return err.value


# Seat 1 receives ♥7 as its first card, seat 3 ♠7 ♠7 first; dealer 0: seat 1's first card is
# card 1 of the deal, seat 3's pair arrives with cards 3 and 8.
BIDDERS = fixed_deal({1: "♥7 ♥7", 2: "♦7 ♦7", 3: "♠7 ♠7", 4: "SJ SJ", 0: "BJ BJ"})


def test_a_player_who_has_received_a_seven_may_show_it_during_the_deal():
    state, _ = deal(started(BIDDERS), 2)
    state, events = run(state, Bid(1, cards("♥7")))
    assert events == [BidMade(1, cards("♥7"), overcall=False)]
    assert state.bids.best.seat == 1


def test_a_seven_not_yet_received_cannot_be_shown():
    state, _ = deal(started(BIDDERS), 1)
    err = _rejected(state, Bid(1, cards("♥7")))
    assert (err.code, err.message) == ("cards_not_held", "you do not hold ♥7")


@pytest.mark.parametrize("shown", ["♥8", "SJ", "♠7 ♥7", "♥7 ♥8", "BJ SJ", "♥7 ♥7 ♥7"])
def test_only_sevens_bid_a_single_seven_a_pair_of_sevens_or_a_joker_pair(shown):
    assert bid_rank(cards(shown)) is None


def test_the_overcall_order_is_single_seven_then_diamond_club_heart_spade_pairs_then_small_then_big_jokers():
    order = ["♣7", "♦7 ♦7", "♣7 ♣7", "♥7 ♥7", "♠7 ♠7", "SJ SJ", "BJ BJ"]
    ranks = [bid_rank(cards(b)) for b in order]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    assert {bid_rank(cards(s)) for s in ("♠7", "♥7", "♣7", "♦7")} == {ranks[0]}


def test_a_later_strictly_higher_bid_overcalls_and_its_maker_becomes_declarer():
    state, _ = deal(started(BIDDERS), 9)
    state, _ = run(state, Bid(1, cards("♥7")))
    state, events = run(state, Bid(3, cards("♠7 ♠7")))
    assert events == [BidMade(3, cards("♠7 ♠7"), overcall=True)]
    assert state.bids.best.seat == 3 and state.bids.overcalled
    state, _ = deal(state)
    state, events = pass_all(state)
    assert BiddingClosed(3, SPADES) in events


def test_equal_bids_do_not_overcall_the_first_shown_stands():
    deal_cmd = fixed_deal({1: "♥7", 2: "♠7"})
    state, _ = deal(started(deal_cmd), 3)
    state, _ = run(state, Bid(1, cards("♥7")))
    err = _rejected(state, Bid(2, cards("♠7")))
    assert err.code == "bid_too_low"
    assert err.message.startswith("♠7 does not beat the standing bid ♥7 (seat 1)")


def test_a_lower_pair_cannot_overcall_a_higher_pair():
    state, _ = deal(started(BIDDERS), 10)
    state, _ = run(state, Bid(3, cards("♠7 ♠7")))
    assert _rejected(state, Bid(1, cards("♥7 ♥7"))).code == "bid_too_low"
    state, _ = run(state, Bid(4, cards("SJ SJ")))
    state, _ = run(state, Bid(0, cards("BJ BJ")))
    assert state.bids.best.seat == 0


def test_a_joker_pair_names_no_trump_suit():
    state, _ = deal(started(BIDDERS), 10)
    state, _ = run(state, Bid(4, cards("SJ SJ")))
    state, _ = deal(state)
    state, events = pass_all(state)
    assert BiddingClosed(4, None) in events
    assert state.trumps.trump_suit is None


def test_a_player_may_overcall_their_own_bid_to_reinforce_it_and_that_is_no_fanzhu():
    state, _ = deal(started(BIDDERS), 2)
    state, _ = run(state, Bid(1, cards("♥7")))
    state, _ = deal(state, 5)
    state, events = run(state, Bid(1, cards("♥7 ♥7")))
    assert events == [BidMade(1, cards("♥7 ♥7"), overcall=False)]
    assert not state.bids.overcalled
    assert _rejected(state, Bid(1, cards("♥7 ♥7"))).message.startswith(
        "♥7 ♥7 does not beat your own bid"
    )


def test_shown_cards_go_back_into_the_hand():
    state, _ = deal(started(BIDDERS), 2)
    state, _ = run(state, Bid(1, cards("♥7")))
    assert cards("♥7")[0] in state.hands[1]
    assert RULESET.view(state, 4).bids[0].cards == cards("♥7")


def test_while_dealing_a_player_is_offered_only_the_bids_that_beat_the_standing_one():
    state, _ = deal(started(BIDDERS), 10)
    state, _ = run(state, Bid(1, cards("♥7")))
    offered = {a.cards for a in RULESET.legal_actions(state, 2)}
    assert offered == {cards("♦7 ♦7")}
    state, _ = run(state, Bid(3, cards("♠7 ♠7")))
    assert RULESET.legal_actions(state, 2) == []
    assert RULESET.legal_actions(state, 1) == []


def test_possible_bids_lists_singles_only_while_nobody_has_bid():
    held = cards("♥7 ♥7 ♣7 SJ")
    assert set(possible_bids(held, 0)) == {cards("♥7"), cards("♣7"), cards("♥7 ♥7")}
    assert possible_bids(held, 1) == [cards("♥7 ♥7")]


def test_passing_while_the_cards_are_dealt_is_not_a_move():
    state, _ = deal(started(BIDDERS), 3)
    err = _rejected(state, Pass(1))
    assert err.code == "nothing_to_pass"


# ---- the final window ------------------------------------------------------------------------


def test_after_the_last_card_a_final_window_asks_every_player_to_bid_or_pass():
    state, _ = deal(started(BIDDERS), 100)
    assert isinstance(state, FinalBids)
    deadline = RULESET.deadline(state)
    assert deadline.defaults == {s: Pass(s) for s in range(5)}
    assert deadline.timeout_ms == RULESET.options().bid_window_ms


def test_the_final_window_lets_players_finish_bidding():
    state, _ = deal(started(BIDDERS))
    state, events = run(state, Bid(2, cards("♦7 ♦7")))
    assert events == [BidMade(2, cards("♦7 ♦7"))]


def test_the_final_window_closes_early_when_every_player_has_passed():
    state, _ = deal(started(BIDDERS))
    state, _ = run(state, Pass(0), Pass(1), Pass(2), Pass(3))
    assert isinstance(state, FinalBids)
    state, events = run(state, Pass(4))
    assert isinstance(state, Burying)
    assert [type(e) for e in events] == [Passed, BiddingClosed, BottomTaken]


def test_a_bid_in_the_final_window_reopens_it_until_everyone_has_passed_again():
    state, _ = deal(started(BIDDERS))
    state, _ = run(state, Pass(0), Pass(1), Bid(2, cards("♦7 ♦7")))
    assert state.passed == (False,) * 5
    assert set(RULESET.deadline(state).defaults) == {0, 1, 2, 3, 4}


def test_in_the_final_window_a_bidder_may_reinforce_their_own_bid():
    state, _ = deal(started(BIDDERS))
    state, _ = run(state, Bid(1, cards("♥7")), Bid(1, cards("♥7 ♥7")))
    assert state.bids.best == state.bids.shown[-1] and not state.bids.overcalled


def test_a_player_who_passed_may_bid_again_only_after_another_player_bids():
    state, _ = deal(started(BIDDERS))
    state, _ = run(state, Pass(3))
    err = _rejected(state, Bid(3, cards("♠7 ♠7")))
    assert err.code == "already_passed"
    assert RULESET.legal_actions(state, 3) == []
    state, _ = run(state, Bid(1, cards("♥7 ♥7")))
    assert Bid(3, cards("♠7 ♠7")) in RULESET.legal_actions(state, 3)


# ---- nobody bid ------------------------------------------------------------------------------


def test_nobody_bid_the_player_who_received_the_flip_is_declarer_and_its_suit_is_trumps():
    state = started(fixed_deal({2: "♥9"}, flip=(2, 0)))
    state, _ = deal(state)
    state, events = pass_all(state)
    assert BiddingClosed(2, HEARTS, by_flip=True) in events
    assert state.declarer == 2 and state.trumps.trump_suit == HEARTS


def test_nobody_bid_and_a_joker_flip_means_no_trump_suit():
    state = started(fixed_deal({3: "♠3 SJ"}, flip=(3, 1)))
    state, _ = deal(state)
    state, events = pass_all(state)
    assert BiddingClosed(3, None, by_flip=True) in events


def test_no_bid_is_taken_once_bidding_has_closed():
    state, _ = deal(started(BIDDERS))
    state, _ = pass_all(state)
    err = _rejected(state, Bid(3, cards("♠7 ♠7")))
    assert err.code == "bidding_closed"


def test_bids_are_made_only_with_the_players_own_cards():
    state, _ = deal(started(BIDDERS))
    err = _rejected(state, Bid(0, cards("♠7 ♠7")))
    assert (err.code, err.message) == ("cards_not_held", "you do not hold ♠7 ♠7")


def test_the_table_clock_does_not_wait_for_bids():
    state, _ = deal(started(BIDDERS), 4)
    state, events = run(state, DealNext())
    assert events[0].index == 4
