"""Following and leading. Trumps are ♥ unless a test says otherwise."""

import itertools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.core.errors import RuleViolation
from engine.daqi.cards import DECK, HEARTS, format_cards, parse_cards
from engine.daqi.combos import classify
from engine.daqi.follow import (
    check_follow,
    check_lead,
    failed_throw,
    is_legal_follow,
    is_legal_lead,
    legal_follows,
    legal_leads,
)
from engine.daqi.options import make_options
from engine.daqi.trumps import Trumps

DEFAULT = make_options()
FREE_TRACTOR = make_options({"must_follow_tractor": False})
CHAIN = make_options({"trump_chain_tractors": True})
HEARTS_TRUMP = Trumps(HEARTS)


def legal(hand, lead, play, options=DEFAULT, trumps=HEARTS_TRUMP):
    return is_legal_follow(parse_cards(hand), parse_cards(lead), parse_cards(play), trumps, options)


def rejected(hand, lead, play, options=DEFAULT, trumps=HEARTS_TRUMP):
    """(code, message) of the rule violation `play` commits."""
    with pytest.raises(RuleViolation) as err:
        check_follow(parse_cards(hand), parse_cards(lead), parse_cards(play), trumps, options)
    return err.value.code, err.value.message


def answers(hand, lead, options=DEFAULT, trumps=HEARTS_TRUMP, limit=10_000):
    plays = legal_follows(parse_cards(hand), parse_cards(lead), trumps, options, limit=limit)
    return {format_cards(p) for p in plays}


def same(*plays):
    """Plays written in any order, in the canonical form legal_follows uses (sorted by id)."""
    return {format_cards(sorted(parse_cards(p))) for p in plays}


# --- leading -----------------------------------------------------------------------------------


def test_the_leader_may_lead_a_single_a_pair_or_a_tractor_of_one_suit():
    hand = parse_cards("♠9 ♠9 ♠10 ♠10 ♥6 ♥6 ♥8 ♥8 SJ")
    for lead in ("♠9", "♠9 ♠9", "♠9 ♠9 ♠10 ♠10", "♥6 ♥6 ♥8 ♥8", "SJ"):
        check_lead(hand, parse_cards(lead), HEARTS_TRUMP, DEFAULT)


def test_a_lead_of_two_suits_is_rejected():
    with pytest.raises(RuleViolation) as err:
        check_lead(parse_cards("♠A ♣A"), parse_cards("♠A ♣A"), HEARTS_TRUMP, DEFAULT)
    assert (err.value.code, err.value.message) == (
        "not_a_combination", "a lead must be all of one suit (trumps count as one suit)"
    )


def test_several_combinations_at_once_cannot_be_led_without_throwing():
    with pytest.raises(RuleViolation) as err:
        check_lead(parse_cards("♠A ♠K ♠3"), parse_cards("♠A ♠K"), HEARTS_TRUMP, DEFAULT)
    assert (err.value.code, err.value.message) == (
        "not_a_combination", "♠A ♠K is not a single, a pair or a tractor: lead one of those"
    )


def test_a_player_can_play_only_cards_they_hold():
    with pytest.raises(RuleViolation) as err:
        check_lead(parse_cards("♠A ♠K"), parse_cards("♠A ♠A"), HEARTS_TRUMP, DEFAULT)
    assert (err.value.code, err.value.message) == ("cards_not_held", "you do not hold a second ♠A")
    with pytest.raises(RuleViolation) as err:
        check_lead(parse_cards("♠A ♠K"), parse_cards("♥Q"), HEARTS_TRUMP, DEFAULT)
    assert (err.value.code, err.value.message) == ("cards_not_held", "you do not hold ♥Q")


def test_a_lead_needs_at_least_one_card():
    with pytest.raises(RuleViolation) as err:
        check_lead(parse_cards("♠A"), (), HEARTS_TRUMP, DEFAULT)
    assert err.value.code == "wrong_card_count"


def test_legal_leads_are_every_single_pair_and_tractor():
    hand = parse_cards("♠6 ♠6 ♠8 ♠8 ♥7 ♥7 SJ")
    assert {format_cards(p) for p in legal_leads(hand, HEARTS_TRUMP, DEFAULT)} == {
        "♠6", "♠8", "♥7", "SJ", "♠6 ♠6", "♠8 ♠8", "♥7 ♥7", "♠6 ♠6 ♠8 ♠8"
    }


# --- any lead -----------------------------------------------------------------------------------


def test_a_follower_plays_as_many_cards_as_the_lead():
    assert rejected("♠A ♠K ♠3", "♠Q ♠Q", "♠A") == (
        "wrong_card_count", "the lead has 2 cards: you must play 2 cards"
    )
    assert rejected("♠A ♠K ♠3", "♠Q", "♠A ♠K") == (
        "wrong_card_count", "the lead has 1 card: you must play 1 card"
    )


def test_a_follower_can_play_only_cards_they_hold():
    assert rejected("♠A ♠K ♠3", "♠Q", "♠J") == ("cards_not_held", "you do not hold ♠J")


# --- single lead ---------------------------------------------------------------------------------


def test_a_single_must_be_followed_by_a_card_of_the_led_suit():
    assert legal("♠A ♣K ♥3", "♠Q", "♠A")
    assert rejected("♠A ♣K ♥3", "♠Q", "♣K") == (
        "must_follow_suit", "you still hold ♠: play ♠ before other suits"
    )
    assert rejected("♠A ♣K ♥3", "♠Q", "♥3") == (
        "must_follow_suit", "you still hold ♠: play ♠ before other suits"
    )
    assert answers("♠A ♠A ♠4 ♣K ♥3", "♠Q") == {"♠4", "♠A"}


def test_a_player_void_in_the_led_suit_may_trump_or_discard_any_card():
    assert answers("♣K ♥3 BJ", "♠Q") == {"♣K", "♥3", "BJ"}


def test_a_led_trump_must_be_followed_by_a_trump_and_every_7_and_2_is_a_trump():
    assert legal("♠7 ♠A", "♥Q", "♠7")
    assert rejected("♠7 ♠A", "♥Q", "♠A") == (
        "must_follow_suit", "you still hold trumps: play trumps before other suits"
    )
    assert answers("♣2 ♥3 SJ ♠A ♠K", "♦7") == {"♣2", "♥3", "SJ"}


def test_a_side_7_led_is_a_trump_lead_not_its_suit():
    assert legal("♠A ♥3", "♠7", "♥3")
    assert rejected("♠A ♥3", "♠7", "♠A")[0] == "must_follow_suit"


# --- pair lead -------------------------------------------------------------------------------------


def test_to_a_pair_a_player_holding_a_pair_of_the_led_suit_must_play_a_pair():
    assert legal("♠A ♠A ♠K ♠3", "♠Q ♠Q", "♠A ♠A")
    assert rejected("♠A ♠A ♠K ♠3", "♠Q ♠Q", "♠K ♠3") == (
        "must_follow_pair", "you hold a pair of ♠: you must play a pair"
    )
    assert rejected("♠A ♠A ♠K ♠3", "♠Q ♠Q", "♠A ♠K") == (
        "must_follow_pair", "you hold a pair of ♠: you must play a pair"
    )
    assert answers("♠A ♠A ♠4 ♠4 ♠K ♣3", "♠Q ♠Q") == {"♠4 ♠4", "♠A ♠A"}


def test_to_a_pair_without_a_pair_any_two_cards_of_the_led_suit():
    assert legal("♠A ♠K ♠3 ♣3 ♣3", "♠Q ♠Q", "♠A ♠3")
    assert rejected("♠A ♠K ♠3 ♣3 ♣3", "♠Q ♠Q", "♣3 ♣3") == (
        "must_follow_suit", "you still hold ♠: play ♠ before other suits"
    )
    assert answers("♠A ♠K ♠3 ♣3 ♣3", "♠Q ♠Q") == same("♠A ♠K", "♠A ♠3", "♠K ♠3")


def test_to_a_pair_with_one_card_of_the_led_suit_play_it_and_any_other_card():
    assert answers("♠A ♣3 ♣3 ♥4", "♠Q ♠Q") == same("♠A ♣3", "♠A ♥4")
    assert rejected("♠A ♣3 ♣3 ♥4", "♠Q ♠Q", "♣3 ♣3")[0] == "must_follow_suit"


def test_to_a_pair_a_void_player_may_trump_with_a_pair_or_play_any_two_cards():
    assert answers("♣3 ♣3 ♥4 ♥4", "♠Q ♠Q") == same("♣3 ♣3", "♣3 ♥4", "♥4 ♥4")


def test_to_a_trump_pair_any_pair_of_trumps_must_be_played():
    assert legal("♣7 ♣7 ♥A BJ", "♥Q ♥Q", "♣7 ♣7")
    assert rejected("♣7 ♣7 ♥A BJ", "♥Q ♥Q", "♥A BJ") == (
        "must_follow_pair", "you hold a pair of trumps: you must play a pair"
    )


def test_two_7s_of_different_suits_do_not_answer_a_pair():
    assert rejected("♣7 ♠7 ♥7 ♥7", "♥Q ♥Q", "♣7 ♠7") == (
        "must_follow_pair", "you hold a pair of trumps: you must play a pair"
    )
    assert answers("♣7 ♠7 ♥A", "♥Q ♥Q") == same("♣7 ♠7", "♣7 ♥A", "♠7 ♥A")


# --- tractor lead, side suit -------------------------------------------------------------------------

SIDE_2 = "♠9 ♠9 ♠10 ♠10"
SIDE_3 = "♠9 ♠9 ♠10 ♠10 ♠J ♠J"


def test_to_a_tractor_a_player_holding_a_tractor_of_as_many_pairs_must_play_it():
    hand = "♠6 ♠6 ♠8 ♠8 ♠A ♠K ♣3"
    assert legal(hand, SIDE_2, "♠6 ♠6 ♠8 ♠8")
    assert rejected(hand, SIDE_2, "♠6 ♠6 ♠A ♠K") == (
        "must_follow_tractor", "you hold a 2-pair tractor of ♠: you must play a 2-pair tractor"
    )
    assert answers(hand, SIDE_2) == {"♠6 ♠6 ♠8 ♠8"}


def test_to_a_tractor_a_longer_tractor_held_gives_every_tractor_of_the_leads_length():
    assert answers("♠3 ♠3 ♠4 ♠4 ♠5 ♠5 ♠K", SIDE_2) == same("♠3 ♠3 ♠4 ♠4", "♠4 ♠4 ♠5 ♠5")


def test_to_a_tractor_without_one_play_as_many_pairs_of_the_led_suit_as_held():
    hand = "♠5 ♠5 ♠A ♠A ♠K ♠3 ♣3"
    assert legal(hand, SIDE_2, "♠5 ♠5 ♠A ♠A")
    assert rejected(hand, SIDE_2, "♠5 ♠5 ♠K ♠3") == (
        "must_follow_pairs", "you hold 2 pairs of ♠: you must play 2 pairs"
    )
    assert answers(hand, SIDE_2) == {"♠5 ♠5 ♠A ♠A"}


def test_to_a_tractor_with_one_pair_play_it_then_singles_of_the_led_suit():
    hand = "♠5 ♠5 ♠A ♠K ♠3 ♣3"
    assert rejected(hand, SIDE_2, "♠5 ♠A ♠K ♠3") == (
        "must_follow_pairs", "you hold a pair of ♠: you must play a pair"
    )
    assert answers(hand, SIDE_2) == same("♠5 ♠5 ♠A ♠K", "♠5 ♠5 ♠A ♠3", "♠5 ♠5 ♠K ♠3")


def test_to_a_tractor_with_fewer_cards_of_the_led_suit_play_them_all_and_fill_with_any():
    hand = "♠5 ♠5 ♠A ♣3 ♥4"
    assert rejected(hand, SIDE_2, "♠5 ♠5 ♣3 ♥4") == (
        "must_follow_suit", "you still hold ♠: play ♠ before other suits"
    )
    assert answers(hand, SIDE_2) == same("♠5 ♠5 ♠A ♣3", "♠5 ♠5 ♠A ♥4")


def test_to_a_tractor_a_void_player_may_trump_with_a_tractor_or_play_anything():
    hand = "♥6 ♥6 ♥8 ♥8 ♣3"
    assert legal(hand, SIDE_2, "♥6 ♥6 ♥8 ♥8")
    assert legal(hand, SIDE_2, "♥6 ♥8 ♥8 ♣3")


def test_to_a_tractor_of_three_a_tractor_of_two_and_a_pair_are_three_pairs():
    hand = "♠3 ♠3 ♠4 ♠4 ♠A ♠A ♠K ♠Q"
    assert legal(hand, SIDE_3, "♠3 ♠3 ♠4 ♠4 ♠A ♠A")
    assert rejected(hand, SIDE_3, "♠3 ♠3 ♠4 ♠4 ♠K ♠Q") == (
        "must_follow_pairs", "you hold 3 pairs of ♠: you must play 3 pairs"
    )
    assert answers(hand, SIDE_3) == {"♠3 ♠3 ♠4 ♠4 ♠A ♠A"}


def test_to_a_tractor_of_three_a_held_tractor_of_three_must_be_played():
    hand = "♠3 ♠3 ♠4 ♠4 ♠5 ♠5 ♠A ♠A"
    assert rejected(hand, SIDE_3, "♠3 ♠3 ♠4 ♠4 ♠A ♠A") == (
        "must_follow_tractor", "you hold a 3-pair tractor of ♠: you must play a 3-pair tractor"
    )
    assert answers(hand, SIDE_3) == {"♠3 ♠3 ♠4 ♠4 ♠5 ♠5"}


def test_to_a_tractor_of_three_two_pairs_and_two_singles_of_the_led_suit():
    hand = "♠3 ♠3 ♠4 ♠4 ♠A ♠K ♠Q ♣5"
    assert rejected(hand, SIDE_3, "♠3 ♠3 ♠4 ♠A ♠K ♠Q") == (
        "must_follow_pairs", "you hold 2 pairs of ♠: you must play 2 pairs"
    )
    assert answers(hand, SIDE_3) == same(
        "♠3 ♠3 ♠4 ♠4 ♠A ♠K", "♠3 ♠3 ♠4 ♠4 ♠A ♠Q", "♠3 ♠3 ♠4 ♠4 ♠K ♠Q"
    )


def test_option_must_follow_tractor_off_any_pairs_answer_a_tractor():
    hand = "♠6 ♠6 ♠8 ♠8 ♠A ♠A"
    assert legal(hand, SIDE_2, "♠6 ♠6 ♠A ♠A", FREE_TRACTOR)
    assert not legal(hand, SIDE_2, "♠6 ♠6 ♠A ♠A")
    assert answers(hand, SIDE_2, FREE_TRACTOR) == same("♠6 ♠6 ♠8 ♠8", "♠6 ♠6 ♠A ♠A", "♠8 ♠8 ♠A ♠A")


# --- tractor lead, trumps ------------------------------------------------------------------------------

TRUMP_2 = "♥9 ♥9 ♥10 ♥10"
TRUMP_3 = "♥9 ♥9 ♥10 ♥10 ♥J ♥J"


def test_to_a_trump_tractor_a_held_trump_tractor_must_be_played():
    hand = "♥3 ♥3 ♥4 ♥4 ♣7 ♣7 ♠A"
    assert rejected(hand, TRUMP_2, "♥3 ♥3 ♣7 ♣7") == (
        "must_follow_tractor", "you hold a 2-pair tractor of trumps: you must play a 2-pair tractor"
    )
    assert answers(hand, TRUMP_2) == {"♥3 ♥3 ♥4 ♥4"}


def test_a_dropped_in_trump_7_pair_makes_a_held_tractor():
    hand = "♥6 ♥6 ♥7 ♥7 ♥A ♥K"
    assert rejected(hand, TRUMP_2, "♥6 ♥6 ♥A ♥K") == (
        "must_follow_tractor", "you hold a 2-pair tractor of trumps: you must play a 2-pair tractor"
    )
    assert answers(hand, TRUMP_2) == {"♥6 ♥6 ♥7 ♥7"}


def test_a_dropped_in_trump_2_pair_makes_a_held_tractor():
    assert answers("♥2 ♥2 ♥3 ♥3 ♥A ♥K", TRUMP_2) == {"♥2 ♥2 ♥3 ♥3"}


def test_a_held_667788_answers_a_trump_tractor_of_three_and_offers_each_two_pair_part():
    hand = "♥6 ♥6 ♥7 ♥7 ♥8 ♥8 ♠A"
    assert answers(hand, TRUMP_3) == {"♥6 ♥6 ♥7 ♥7 ♥8 ♥8"}
    assert answers(hand, TRUMP_2) == same("♥6 ♥6 ♥7 ♥7", "♥7 ♥7 ♥8 ♥8", "♥6 ♥6 ♥8 ♥8")


def test_the_joker_tractor_answers_a_trump_tractor_of_two():
    assert answers("SJ SJ BJ BJ ♥A ♥K", TRUMP_2) == {"SJ SJ BJ BJ"}


def test_permanent_trump_pairs_that_are_no_tractor_count_as_pairs():
    hand = "♣7 ♣7 ♠2 ♠2 ♥A ♥K"
    assert rejected(hand, TRUMP_2, "♣7 ♣7 ♥A ♥K") == (
        "must_follow_pairs", "you hold 2 pairs of trumps: you must play 2 pairs"
    )
    assert answers(hand, TRUMP_2) == {"♠2 ♠2 ♣7 ♣7"}


def test_option_trump_chain_makes_more_held_tractors_to_follow_with():
    hand = "♣7 ♣7 ♥7 ♥7 ♥A ♥A"
    assert legal(hand, TRUMP_2, "♣7 ♣7 ♥A ♥A")
    assert rejected(hand, TRUMP_2, "♣7 ♣7 ♥A ♥A", CHAIN)[0] == "must_follow_tractor"
    assert answers(hand, TRUMP_2, CHAIN) == {"♥7 ♥7 ♣7 ♣7"}


def test_to_a_trump_tractor_of_three_a_joker_tractor_and_a_pair_are_three_pairs():
    hand = "SJ SJ BJ BJ ♥K ♥K ♥Q ♠A"
    assert rejected(hand, TRUMP_3, "SJ SJ BJ BJ ♥K ♥Q") == (
        "must_follow_pairs", "you hold 3 pairs of trumps: you must play 3 pairs"
    )
    assert answers(hand, TRUMP_3) == {"♥K ♥K SJ SJ BJ BJ"}


def test_a_tractor_lead_with_drop_ins_is_followed_like_any_trump_tractor():
    assert answers("♥9 ♥9 ♥10 ♥10 ♥3", "♥6 ♥6 ♥7 ♥7") == {"♥9 ♥9 ♥10 ♥10"}
    assert answers("♥9 ♥9 ♥K ♥3 ♠4", "♥2 ♥2 ♥3 ♥3") == same("♥9 ♥9 ♥K ♥3")


# --- bounded answers -----------------------------------------------------------------------------------------


def test_with_many_free_choices_legal_follows_gives_representatives_including_every_trump_answer():
    hand = parse_cards("♥3 ♥3 ♥4 ♥4 ♥K ♥K ♣A ♣K ♣10 ♣5 ♦A ♦K ♦Q ♦J ♦10 ♦9 ♦8 ♦6 ♦5 ♦4")
    lead = parse_cards("♠Q ♠Q")
    plays = legal_follows(hand, lead, HEARTS_TRUMP, DEFAULT)
    assert len(plays) <= 10
    assert all(is_legal_follow(hand, lead, p, HEARTS_TRUMP, DEFAULT) for p in plays)
    assert {format_cards(p) for p in plays if classify(p, HEARTS_TRUMP, DEFAULT)} >= {
        "♥3 ♥3", "♥4 ♥4", "♥K ♥K"
    }
    assert parse_cards("♦4 ♦6") in plays  # the cheapest discard
    assert parse_cards("♣10 ♦10") in plays  # the most points for a partner, cheapest first
    tractor_lead = parse_cards("♠Q ♠Q ♠K ♠K")
    plays = legal_follows(hand, tractor_lead, HEARTS_TRUMP, DEFAULT)
    assert parse_cards("♥3 ♥3 ♥4 ♥4") in plays


# --- properties ------------------------------------------------------------------------------------------------

# Two suits and the permanent trumps near the drop-ins, doubled as in the deck: hands drawn
# from here hold many pairs and tractors.
POOL = parse_cards("♠3 ♠4 ♠5 ♠6 ♠8 ♠A ♥2 ♥3 ♥6 ♥7 ♥8 ♥A ♣2 ♣7 ♦7 SJ BJ") * 2
SUIT = st.sampled_from([None, 0, 1, 2, 3])
OPTIONS = st.sampled_from([DEFAULT, FREE_TRACTOR, CHAIN])


@st.composite
def deals(draw, hand_size):
    """(hand, lead): a hand and another player's legal lead, from one deck."""
    picked = draw(st.lists(st.integers(0, len(POOL) - 1), min_size=hand_size[0] + 1,
                           max_size=hand_size[1] + 8, unique=True))
    cards = [POOL[i] for i in picked]
    size = draw(st.integers(hand_size[0], min(hand_size[1], len(cards) - 1)))
    hand, other = cards[:size], cards[size:]
    suit = draw(SUIT)
    options = draw(OPTIONS)
    leads = legal_leads(other, Trumps(suit), options)
    lead = draw(st.sampled_from(sorted(leads, key=len, reverse=True)[:8] + leads[:2]))
    return hand, lead, Trumps(suit), options


def distinct_plays(hand, size):
    return {tuple(sorted(p)) for p in itertools.combinations(hand, size)}


@settings(max_examples=300)
@given(deals((1, 9)))
def test_legal_follows_are_exactly_the_plays_check_follow_accepts(deal):
    hand, lead, trumps, options = deal
    found = set(legal_follows(hand, lead, trumps, options, limit=10**9))
    accepted = {p for p in distinct_plays(hand, len(lead)) if is_legal_follow(hand, lead, p, trumps, options)}
    assert found == accepted


@settings(max_examples=150)
@given(deals((10, 20)))
def test_every_bounded_legal_follow_passes_check_follow(deal):
    hand, lead, trumps, options = deal
    plays = legal_follows(hand, lead, trumps, options)
    assert plays
    for play in plays:
        check_follow(hand, lead, play, trumps, options)


@settings(max_examples=150)
@given(deals((1, 9)))
def test_legal_leads_are_exactly_the_leads_check_lead_accepts(deal):
    hand, _, trumps, options = deal
    found = set(legal_leads(hand, trumps, options))
    accepted = {
        p for size in range(1, len(hand) + 1) for p in distinct_plays(hand, size)
        if is_legal_lead(hand, p, trumps, options)
    }
    assert found == accepted


@given(st.permutations(DECK), SUIT)
def test_a_void_player_is_always_offered_every_trump_pair_against_a_pair(deck, suit):
    trumps = Trumps(suit)
    lead = parse_cards("♣A ♣A") if suit == 0 else parse_cards("♠A ♠A")
    led = trumps.follow_suit(lead[0])
    hand = [c for c in deck[:24] if trumps.follow_suit(c) != led]
    trump_pairs = {c for c in hand if trumps.is_trump(c) and hand.count(c) == 2}
    plays = legal_follows(hand, lead, trumps, DEFAULT)
    assert {p[0] for p in plays if p[0] == p[1] and trumps.is_trump(p[0])} == trump_pairs


# --- 甩牌 (option allow_throw) ---------------------------------------------------------------------------------

THROW = make_options({"allow_throw": True})
A_THROW = "♠A ♠A ♠K ♠Q"


def test_option_allow_throw_lets_several_combinations_of_one_suit_be_led():
    hand = parse_cards("♠A ♠A ♠K ♠Q ♣3")
    check_lead(hand, parse_cards(A_THROW), HEARTS_TRUMP, THROW)
    assert not is_legal_lead(hand, parse_cards(A_THROW), HEARTS_TRUMP, DEFAULT)
    with pytest.raises(RuleViolation) as err:
        check_lead(hand, parse_cards("♠A ♣3"), HEARTS_TRUMP, THROW)
    assert err.value.code == "not_a_combination"


def test_a_throw_stands_when_nobody_holds_a_higher_combination_of_any_part():
    others = [parse_cards("♠3 ♠3 ♠4 ♣A"), parse_cards("♠J ♠10 ♥A ♥A"), ()]
    assert failed_throw(parse_cards(A_THROW), others, HEARTS_TRUMP, THROW) is None


def test_a_failed_throw_plays_only_its_smallest_part_that_can_be_beaten():
    others = [parse_cards("♠3 ♠3 ♠4"), parse_cards("♠K ♠J")]
    assert failed_throw(parse_cards(A_THROW), others, HEARTS_TRUMP, THROW) == parse_cards("♠Q")
    pairs = parse_cards("♠A ♠A ♠Q ♠Q")
    others = [parse_cards("♠K ♠K"), parse_cards("♠8")]
    assert failed_throw(pairs, others, HEARTS_TRUMP, THROW) == parse_cards("♠Q ♠Q")


def test_a_thrown_tractor_fails_against_a_higher_tractor():
    throw = parse_cards("♠3 ♠3 ♠4 ♠4 ♠A")
    others = [parse_cards("♠5 ♠5 ♠6 ♠6")]
    assert failed_throw(throw, others, HEARTS_TRUMP, THROW) == parse_cards("♠3 ♠3 ♠4 ♠4")


def test_a_throw_is_followed_with_as_many_pairs_of_the_led_suit_as_it_holds():
    hand = "♠3 ♠3 ♠4 ♠5 ♠9 ♣2"
    assert legal(hand, A_THROW, "♠3 ♠3 ♠4 ♠5", THROW)
    assert rejected(hand, A_THROW, "♠3 ♠4 ♠5 ♠9", THROW) == (
        "must_follow_pairs", "you hold a pair of ♠: you must play a pair"
    )
    assert rejected(hand, A_THROW, "♠3 ♠3 ♠4 ♣2", THROW)[0] == "must_follow_suit"
    assert answers(hand, A_THROW, THROW) == same("♠3 ♠3 ♠4 ♠5", "♠3 ♠3 ♠4 ♠9", "♠3 ♠3 ♠5 ♠9")


def test_a_void_player_is_offered_a_trump_play_covering_the_throw():
    hand = parse_cards("♥3 ♥3 ♥4 ♥A ♣5 ♣9 ♣2 ♦4 ♦6 ♦8 ♦9 ♦10")
    plays = legal_follows(hand, parse_cards(A_THROW), HEARTS_TRUMP, THROW)
    assert tuple(sorted(parse_cards("♥3 ♥3 ♥A ♣2"))) in plays
    assert all(is_legal_follow(hand, parse_cards(A_THROW), p, HEARTS_TRUMP, THROW) for p in plays)


THROW_OPTIONS = st.sampled_from([THROW, make_options({"allow_throw": True, "trump_chain_tractors": True})])


@settings(max_examples=150)
@given(deals((1, 8)), THROW_OPTIONS, st.data())
def test_legal_follows_to_a_throw_are_exactly_the_plays_check_follow_accepts(deal, options, data):
    hand, lead, trumps, _ = deal
    lead_suit = trumps.follow_suit(lead[0])
    leader = [c for c in POOL if trumps.follow_suit(c) == lead_suit]
    throw = data.draw(st.lists(st.sampled_from(leader), min_size=2, max_size=5))
    assume(all(throw.count(c) + hand.count(c) <= 2 for c in throw))
    found = set(legal_follows(hand, throw, trumps, options, limit=10**9))
    accepted = {p for p in distinct_plays(hand, len(throw)) if is_legal_follow(hand, throw, p, trumps, options)}
    assert found == accepted
