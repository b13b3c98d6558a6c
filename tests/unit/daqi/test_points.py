from hypothesis import given
from hypothesis import strategies as st

from engine.daqi.cards import DECK, parse_cards
from engine.daqi.points import points


def test_a_5_is_worth_5_points():
    assert points(parse_cards("♠5")) == 5


def test_a_10_is_worth_10_points():
    assert points(parse_cards("♦10")) == 10


def test_a_king_is_worth_10_points():
    assert points(parse_cards("♥K")) == 10


def test_other_cards_are_worth_nothing():
    assert points(parse_cards("♠A ♠Q ♣J ♦9 ♥7 ♠2 ♣3 SJ BJ")) == 0


def test_the_two_decks_hold_200_points():
    assert points(DECK) == 200


@given(st.permutations(DECK), st.integers(0, 108))
def test_points_split_between_any_two_heaps_add_up_to_200(deck, cut):
    assert points(deck[:cut]) + points(deck[cut:]) == 200
