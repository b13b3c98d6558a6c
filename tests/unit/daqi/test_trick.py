"""Who wins a trick. Trumps are ♥ unless a test says otherwise; seats 0..4 play in order."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.daqi.cards import DECK, HEARTS, parse_cards
from engine.daqi.options import make_options
from engine.daqi.trick import trick_winner, winning_index
from engine.daqi.trumps import TRUMP, Trumps

DEFAULT = make_options()
HEARTS_TRUMP = Trumps(HEARTS)


def winner(*plays, trumps=HEARTS_TRUMP, options=DEFAULT):
    """Index (0 = the lead) of the winning play among plays written in notation."""
    return winning_index([parse_cards(p) for p in plays], trumps, options)


def test_the_highest_card_of_the_led_suit_wins():
    assert winner("♠Q", "♠3", "♠A", "♠K", "♠8") == 2


def test_cards_of_another_side_suit_cannot_win():
    assert winner("♠3", "♣A", "♦A", "♠4", "♣K") == 3
    assert winner("♠3", "♣A", "♦A", "♣K", "♦K") == 0


def test_a_void_player_trumps_the_led_suit_and_a_higher_trump_beats_it():
    assert winner("♠A", "♥3", "♠K", "♠Q", "♠J") == 1
    assert winner("♠A", "♥3", "♣2", "♠Q", "♠J") == 2
    assert winner("♠A", "♥3", "♣2", "♥2", "BJ") == 4


def test_identical_cards_the_one_played_first_wins():
    assert winner("♠A", "♠A", "♠3", "♠4", "♠5") == 0
    assert winner("♠3", "♠A", "♠A", "♠4", "♠5") == 1


def test_equal_side_7s_the_one_played_first_wins():
    assert winner("♠A", "♣7", "♦7", "♠7", "♠5") == 1


def test_the_trump_7_beats_a_side_7():
    assert winner("♠A", "♣7", "♥7", "♠7", "♠5") == 2


def test_a_pair_is_won_by_the_highest_pair_of_the_led_suit():
    assert winner("♠Q ♠Q", "♠A ♠A", "♠3 ♠3", "♠K ♠K", "♠4 ♠5") == 1


def test_two_cards_that_are_not_a_pair_cannot_win_a_pair():
    assert winner("♠Q ♠Q", "♠A ♠K", "♣A ♣A", "♠3 ♠4", "♠5 ♠6") == 0


def test_a_pair_can_be_trumped_only_with_a_trump_pair():
    assert winner("♠Q ♠Q", "♥A BJ", "♠3 ♠4", "♥3 ♥3", "♠5 ♠6") == 3
    assert winner("♠Q ♠Q", "♥A BJ", "SJ BJ", "♥3 ♠A", "♠5 ♠6") == 0


def test_two_7s_of_different_suits_cannot_trump_a_pair():
    assert winner("♠Q ♠Q", "♣7 ♦7", "♥3 ♥3", "♠3 ♠4", "♠5 ♠6") == 2


def test_a_tractor_is_won_by_the_highest_tractor_of_the_led_suit_and_length():
    assert winner("♠9 ♠9 ♠10 ♠10", "♠6 ♠6 ♠8 ♠8", "♠Q ♠Q ♠K ♠K", "♠A ♠A ♠3 ♠3", "♣3 ♣4 ♣5 ♣6") == 2


def test_pairs_that_are_no_tractor_cannot_win_a_tractor():
    assert winner("♠5 ♠5 ♠6 ♠6", "♠A ♠A ♠Q ♠Q", "♣A ♣A ♣K ♣K", "♠3 ♠4 ♠8 ♠9", "♦3 ♦3 ♦4 ♦4") == 0


def test_a_tractor_can_be_trumped_only_with_a_trump_tractor_of_the_same_length():
    assert winner("♠5 ♠5 ♠6 ♠6", "♥A ♥A ♥J ♥J", "♥3 ♥3 ♥4 ♥4", "♣3 ♣4 ♣5 ♣6", "♦3 ♦3 ♦4 ♦4") == 2
    assert winner("♠5 ♠5 ♠6 ♠6", "♥A ♥A ♥J ♥J", "SJ SJ BJ BJ", "♥3 ♥3 ♥4 ♥4", "♦3 ♦3 ♦4 ♦4") == 2


def test_trump_tractors_beat_non_trump_tractors():
    assert winner("♠K ♠K ♠A ♠A", "♥2 ♥2 ♥3 ♥3", "♠Q ♠Q ♠J ♠J", "♦3 ♦3 ♦4 ♦4", "♣3 ♣4 ♣5 ♣6") == 1


def test_a_higher_trump_tractor_beats_a_lower_one():
    assert winner("♠3 ♠3 ♠4 ♠4", "♥2 ♥2 ♥3 ♥3", "♥6 ♥6 ♥8 ♥8", "♥9 ♥9 ♥10 ♥10", "SJ SJ BJ BJ") == 4
    assert winner("♠3 ♠3 ♠4 ♠4", "♥2 ♥2 ♥3 ♥3", "♥6 ♥6 ♥8 ♥8", "♥9 ♥9 ♥10 ♥10", "♥4 ♥4 ♥5 ♥5") == 3


def test_a_dropped_in_667788_ranks_by_its_8s():
    assert winner("♥6 ♥6 ♥7 ♥7 ♥8 ♥8", "♥8 ♥8 ♥9 ♥9 ♥10 ♥10", "♠3 ♠3 ♠4 ♠4 ♠5 ♠5") == 1
    assert winner("♥7 ♥7 ♥8 ♥8", "♥6 ♥6 ♥8 ♥8") == 0


def test_mixed_trumps_cannot_win_a_trump_lead_however_high():
    assert winner("♥3 ♥3", "BJ SJ", "♥4 ♥4", "♠7 ♠A", "♥5 ♥6") == 2


def test_with_no_trump_suit_only_permanent_trumps_can_trump():
    no_trump = Trumps(None)
    assert winner("♥Q", "♠A", "♥A", "♣2", "♦K", trumps=no_trump) == 3
    assert winner("♥Q ♥Q", "♠A ♠A", "SJ SJ", "♣2 ♣2", "♦K ♦K", trumps=no_trump) == 2


def test_trick_winner_names_the_seat():
    plays = [(3, parse_cards("♠Q")), (4, parse_cards("♠A")), (0, parse_cards("♥3")),
             (1, parse_cards("♠K")), (2, parse_cards("♠3"))]
    assert trick_winner(3, plays, HEARTS_TRUMP, DEFAULT) == 0


def test_trick_winner_wants_the_lead_first():
    with pytest.raises(ValueError):
        trick_winner(1, [(0, parse_cards("♠Q"))], HEARTS_TRUMP, DEFAULT)


@given(st.permutations(DECK), st.sampled_from([None, 0, 1, 2, 3]))
def test_a_trick_of_singles_goes_to_the_first_of_the_strongest_cards_of_the_led_suit_or_trumps(deck, suit):
    trumps = Trumps(suit)
    cards = deck[:5]
    led = trumps.follow_suit(cards[0])
    contenders = [i for i, c in enumerate(cards) if trumps.follow_suit(c) in (led, TRUMP)]
    best = max(trumps.strength(cards[i]) for i in contenders)
    expected = min(i for i in contenders if trumps.strength(cards[i]) == best)
    assert winning_index([(c,) for c in cards], trumps, DEFAULT) == expected


THROW = make_options({"allow_throw": True})


def test_a_throw_is_beaten_only_by_trumps_covering_each_part_with_the_same_shape():
    lead = "♠A ♠A ♠K ♠Q"
    assert winner(lead, "♥3 ♥3 ♥4 ♥A", "♥5 ♥6 ♥8 ♥9", "♠3 ♠3 ♠4 ♠5", options=THROW) == 1
    assert winner(lead, "♥3 ♥3 ♥4 ♥A", "♥5 ♥5 ♥4 ♥A", "SJ BJ ♥6 ♥6", options=THROW) == 3


def test_a_trump_tractor_covers_two_thrown_pairs():
    assert winner("♠A ♠A ♠Q ♠Q", "♥3 ♥3 ♥4 ♥4", "♣3 ♣3 ♣4 ♣4", options=THROW) == 1


def test_a_throw_is_not_a_lead_without_the_option():
    with pytest.raises(ValueError):
        winner("♠A ♠A ♠K ♠Q", "♥3 ♥3 ♥4 ♥A")
