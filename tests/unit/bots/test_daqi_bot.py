"""打七's strong bot, one test per decision: it follows suit, reads who its allies are, gives
points to a trick an ally keeps, takes a trick worth points, leads what stands, bids late."""

from __future__ import annotations

import random

from engine.daqi import RULESET
from engine.daqi.cards import HEARTS
from engine.daqi.commands import Bid, Pass, PlayCards
from engine.daqi.friend import Partnership
from engine.daqi.strong_bot import allies, strong_bot
from tests.unit.daqi.tables import cards, deal, endgame, fixed_deal, play, run, started


def choice(state, seat):
    return strong_bot(RULESET.view(state, seat), RULESET.legal_actions(state, seat), random.Random(1))


def test_follows_suit_in_daqi():
    state = endgame({0: "♠10 ♦6", 1: "♠3 ♦A", 2: "♦4 ♦9", 3: "♦3 ♦J", 4: "♦5 ♦Q"},
                    declarer=4, leader=0, trump_suit=HEARTS)
    state, _ = play(state, 0, "♠10")
    assert choice(state, 1) == PlayCards(1, cards("♠3"))


def test_a_taker_counts_everyone_but_the_declarer_as_a_likely_ally():
    state = endgame({0: "♠10 ♦6", 1: "♠3 ♦A", 2: "♦4 ♦9", 3: "♦3 ♦J", 4: "♦5 ♦Q"},
                    declarer=4, leader=0, trump_suit=HEARTS)
    assert allies(RULESET.view(state, 1)) == {0, 1, 2, 3}
    assert allies(RULESET.view(state, 4)) == {4}


def test_the_holder_of_the_friend_card_knows_it_is_the_declarer_s_friend():
    state = endgame({0: "♠10 ♦6", 1: "♥7 ♦A", 2: "♦4 ♦9", 3: "♦3 ♦J", 4: "♦5 ♦Q"},
                    declarer=4, leader=0, trump_suit=HEARTS)
    assert allies(RULESET.view(state, 1)) == {1, 4}


def test_gives_its_points_to_a_trick_a_likely_ally_keeps():
    # Seat 2 (a taker, like seat 1) wins with ♠A; everyone else has played: the ♠K's 10 go to
    # the takers. (The greedy bot, unsure of an unrevealed side, throws its ♠5.)
    state = endgame({0: "♠10 ♦6", 1: "♠K ♠5", 2: "♠A ♦9", 3: "♠3 ♦J", 4: "♠4 ♦Q"},
                    declarer=0, leader=2, trump_suit=HEARTS)
    state, _ = run(state, *(PlayCards(s, cards(c)) for s, c in [(2, "♠A"), (3, "♠3"), (4, "♠4"), (0, "♠10")]))
    assert choice(state, 1) == PlayCards(1, cards("♠K"))


def test_keeps_its_points_from_a_trick_the_declarer_wins():
    state = endgame({0: "♠A ♦6", 1: "♠K ♠5", 2: "♠3 ♦9", 3: "♠4 ♦J", 4: "♠6 ♦Q"},
                    declarer=0, leader=2, trump_suit=HEARTS)
    state, _ = run(state, *(PlayCards(s, cards(c)) for s, c in [(2, "♠3"), (3, "♠4"), (4, "♠6"), (0, "♠A")]))
    assert choice(state, 1) == PlayCards(1, cards("♠5"))


def test_takes_a_trick_worth_points_high_while_opponents_still_play():
    state = endgame({0: "♠10 ♦6", 1: "♠J ♦8", 2: "♠A ♠Q", 3: "♦3 ♦9", 4: "♦4 ♦J"},
                    declarer=4, leader=0, trump_suit=HEARTS)
    state, _ = play(state, 0, "♠10")
    state, _ = play(state, 1, "♠J")
    assert choice(state, 2) == PlayCards(2, cards("♠A"))


def test_adds_points_to_a_trick_its_revealed_partner_keeps():
    state = endgame({0: "♠A ♦3", 1: "♠3 ♦4", 2: "♠4 ♦6", 3: "♠6 ♦8", 4: "♠K ♠8"},
                    declarer=0, leader=0, trump_suit=HEARTS, partnership=Partnership("holder", 4), revealed=True)
    state, _ = run(state, *(PlayCards(s, cards(c)) for s, c in [(0, "♠A"), (1, "♠3"), (2, "♠4"), (3, "♠6")]))
    assert choice(state, 4) == PlayCards(4, cards("♠K"))


def test_leads_a_pair_nobody_can_beat_in_its_suit():
    state = endgame({0: "♦A ♦A ♠3 ♣K", 1: "♠4 ♦4 ♦5 ♣3", 2: "♠5 ♦6 ♦8 ♣4", 3: "♠6 ♦9 ♦J ♣5", 4: "♠8 ♦Q ♦K ♣6"},
                    declarer=0, leader=0, trump_suit=HEARTS)
    assert choice(state, 0) == PlayCards(0, cards("♦A ♦A"))


def test_lets_the_deal_go_on_until_its_hand_is_nearly_dealt():
    strong = fixed_deal({2: "♥7 ♥A ♥K ♥Q ♥J ♥10 ♥9 ♥8 ♠2 BJ"})
    state, _ = deal(started(strong), 50)
    assert RULESET.legal_actions(state, 2)
    assert choice(state, 2) is None


def test_bids_a_seven_whose_suit_makes_the_whole_hand_strong():
    strong = fixed_deal({2: "♥7 ♥A ♥K ♥Q ♥J ♥10 ♥9 ♥8 ♥6 ♥5 ♠2 ♣2 BJ SJ ♦7"})
    state, _ = deal(started(strong))
    assert choice(state, 2) == Bid(2, cards("♥7"))


def test_passes_the_final_window_with_a_weak_hand():
    weak = fixed_deal({2: "♥7 ♠3 ♠4 ♠5 ♠6 ♣3 ♣4 ♣5 ♦3 ♦4"})
    state, _ = deal(started(weak))
    assert choice(state, 2) == Pass(2)
