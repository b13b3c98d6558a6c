import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.daqi.cards import DECK, HEARTS, SPADES, format_cards, parse_cards
from engine.daqi.combos import (
    classify,
    components,
    cover,
    longest_tractor,
    pairs_in,
    tractors_in,
)
from engine.daqi.options import make_options
from engine.daqi.trumps import TRUMP, Trumps

DEFAULT = make_options()
CHAIN = make_options({"trump_chain_tractors": True})
HEARTS_TRUMP = Trumps(HEARTS)
NO_TRUMP = Trumps(None)


def combo(text, trumps=HEARTS_TRUMP, options=DEFAULT):
    return classify(parse_cards(text), trumps, options)


def shape(text, trumps=HEARTS_TRUMP, options=DEFAULT):
    found = combo(text, trumps, options)
    return None if found is None else (found.kind, found.suit, found.pairs)


def test_any_one_card_is_a_single():
    assert shape("♠3") == ("single", SPADES, 0)
    assert shape("♣7") == ("single", TRUMP, 0)


def test_a_pair_is_two_identical_cards():
    assert shape("♠A ♠A") == ("pair", SPADES, 1)
    assert shape("BJ BJ") == ("pair", TRUMP, 1)


def test_two_7s_of_different_suits_are_not_a_pair():
    assert combo("♠7 ♥7") is None


def test_two_cards_of_one_rank_and_different_suits_are_not_a_pair():
    assert combo("♠A ♣A") is None
    assert combo("SJ BJ") is None


def test_pairs_of_adjacent_ranks_in_a_side_suit_are_a_tractor():
    assert shape("♠9 ♠9 ♠10 ♠10") == ("tractor", SPADES, 2)
    assert shape("♠J ♠J ♠Q ♠Q ♠K ♠K") == ("tractor", SPADES, 3)


def test_in_a_side_suit_8_and_6_are_adjacent_so_6688_is_a_tractor():
    assert shape("♠6 ♠6 ♠8 ♠8") == ("tractor", SPADES, 2)
    assert shape("♠5 ♠5 ♠6 ♠6 ♠8 ♠8 ♠9 ♠9") == ("tractor", SPADES, 4)


def test_a_side_7_pair_never_joins_its_suits_run():
    assert combo("♠6 ♠6 ♠7 ♠7") is None
    assert combo("♠6 ♠6 ♠7 ♠7 ♠8 ♠8") is None


def test_a_side_suit_run_is_a_down_to_3_and_does_not_wrap():
    assert shape("♠3 ♠3 ♠4 ♠4") == ("tractor", SPADES, 2)
    assert combo("♠A ♠A ♠3 ♠3") is None


def test_pairs_that_are_not_adjacent_are_no_tractor():
    assert combo("♠5 ♠5 ♠8 ♠8") is None
    assert combo("♠5 ♠5 ♠6 ♠6 ♠9 ♠9") is None


def test_pairs_of_different_suits_are_no_tractor():
    assert combo("♠9 ♠9 ♣10 ♣10") is None


def test_trump_suit_7_pair_drops_into_its_natural_place_667788():
    assert shape("♥6 ♥6 ♥7 ♥7 ♥8 ♥8") == ("tractor", TRUMP, 3)
    assert shape("♥6 ♥6 ♥7 ♥7") == ("tractor", TRUMP, 2)


def test_trump_suit_2_pair_drops_into_its_natural_place_2233():
    assert shape("♥2 ♥2 ♥3 ♥3") == ("tractor", TRUMP, 2)


def test_in_the_trump_suit_6688_stays_a_tractor():
    assert shape("♥6 ♥6 ♥8 ♥8") == ("tractor", TRUMP, 2)


def test_side_7_and_side_2_pairs_do_not_drop_into_the_trump_suit():
    assert combo("♥6 ♥6 ♠7 ♠7") is None
    assert combo("♠2 ♠2 ♥3 ♥3") is None


def test_small_and_big_joker_pairs_are_a_tractor():
    assert shape("SJ SJ BJ BJ") == ("tractor", TRUMP, 2)
    assert shape("SJ SJ BJ BJ", NO_TRUMP) == ("tractor", TRUMP, 2)


@pytest.mark.parametrize(
    "text", ["♥7 ♥7 SJ SJ", "♠7 ♠7 ♥7 ♥7", "♥2 ♥2 ♠7 ♠7", "♠2 ♠2 ♥2 ♥2", "♥A ♥A ♠2 ♠2", "♠7 ♠7 SJ SJ"]
)
def test_nothing_else_among_the_permanent_trumps_forms_a_tractor(text):
    assert combo(text) is None


@pytest.mark.parametrize(
    "text",
    ["SJ SJ BJ BJ", "♥7 ♥7 SJ SJ", "♠7 ♠7 ♥7 ♥7", "♥2 ♥2 ♣7 ♣7", "♦2 ♦2 ♥2 ♥2", "♥A ♥A ♠2 ♠2",
     "♥K ♥K ♥A ♥A ♣2 ♣2 ♥2 ♥2", "♠2 ♠2 ♥2 ♥2 ♦7 ♦7 ♥7 ♥7 SJ SJ BJ BJ"],
)
def test_option_trump_chain_links_bj_sj_trump7_side7_trump2_side2_trump_a(text):
    assert shape(text, options=CHAIN)[0] == "tractor"


def test_option_trump_chain_two_different_side_7_pairs_are_not_adjacent():
    assert combo("♠7 ♠7 ♣7 ♣7", options=CHAIN) is None
    assert combo("♠2 ♠2 ♣2 ♣2", options=CHAIN) is None


def test_option_trump_chain_a_drop_in_is_in_its_natural_place_or_in_the_chain_not_both():
    assert combo("♥8 ♥8 ♥7 ♥7 SJ SJ", options=CHAIN) is None
    assert shape("♥6 ♥6 ♥7 ♥7 ♥8 ♥8", options=CHAIN) == ("tractor", TRUMP, 3)


def test_option_trump_chain_without_trump_suit_links_bj_sj_7s_2s():
    assert shape("♠2 ♠2 ♥7 ♥7 SJ SJ BJ BJ", NO_TRUMP, CHAIN) == ("tractor", TRUMP, 4)
    assert combo("♠2 ♠2 ♥7 ♥7 SJ SJ BJ BJ", NO_TRUMP, DEFAULT) is None


def test_tractors_of_one_kind_compare_by_the_higher_pair():
    assert combo("♠9 ♠9 ♠10 ♠10").top > combo("♠6 ♠6 ♠8 ♠8").top
    assert combo("SJ SJ BJ BJ").top > combo("♥K ♥K ♥A ♥A").top


def test_a_dropped_in_7_pair_ranks_in_its_natural_place():
    assert combo("♥6 ♥6 ♥7 ♥7").top < combo("♥6 ♥6 ♥8 ♥8").top
    assert combo("♥7 ♥7 ♥8 ♥8").top == combo("♥6 ♥6 ♥8 ♥8").top
    assert combo("♥6 ♥6 ♥7 ♥7 ♥8 ♥8").top < combo("♥8 ♥8 ♥9 ♥9 ♥10 ♥10").top


def test_a_dropped_in_2233_is_the_lowest_trump_tractor():
    assert combo("♥2 ♥2 ♥3 ♥3").top < combo("♥3 ♥3 ♥4 ♥4").top


def test_pairs_compare_by_their_single_card_order():
    assert combo("♠7 ♠7").top > combo("♥2 ♥2").top > combo("♥A ♥A").top


def test_mixed_cards_are_no_combination():
    assert combo("♠A ♠A ♠K") is None
    assert combo("♠A ♠K") is None
    assert combo("") is None


def test_pairs_in_lists_each_doubled_kind_once():
    assert pairs_in(parse_cards("♠A ♠A ♠K SJ SJ ♥3")) == parse_cards("♠A SJ")


def test_tractors_in_finds_every_tractor_by_length():
    hand = parse_cards("♠6 ♠6 ♠8 ♠8 ♠9 ♠9 ♣3 ♣3 SJ SJ BJ BJ")
    assert tractors_in(hand, HEARTS_TRUMP, DEFAULT, pairs=3) == [parse_cards("♠6 ♠6 ♠8 ♠8 ♠9 ♠9")]
    assert sorted(tractors_in(hand, HEARTS_TRUMP, DEFAULT)) == sorted(
        parse_cards(t)
        for t in ["♠6 ♠6 ♠8 ♠8", "♠8 ♠8 ♠9 ♠9", "♠6 ♠6 ♠8 ♠8 ♠9 ♠9", "SJ SJ BJ BJ"]
    )


def test_longest_tractor_counts_the_longest_run_of_held_pairs():
    pairs = pairs_in(parse_cards("♥2 ♥2 ♥3 ♥3 ♥4 ♥4 ♥8 ♥8"))
    assert longest_tractor(pairs, TRUMP, HEARTS_TRUMP, DEFAULT) == 3
    assert longest_tractor([], TRUMP, HEARTS_TRUMP, DEFAULT) == 0
    assert longest_tractor(pairs_in(parse_cards("♠A ♠A")), SPADES, HEARTS_TRUMP, DEFAULT) == 1


SUITS = st.sampled_from([None, 0, 1, 2, 3])
OPTIONS = st.sampled_from([DEFAULT, CHAIN])


@given(st.lists(st.sampled_from(DECK), max_size=20), SUITS, OPTIONS)
def test_every_tractor_found_in_a_hand_classifies_as_a_tractor_of_its_length(hand, suit, options):
    trumps = Trumps(suit)
    for tractor in tractors_in(hand, trumps, options):
        found = classify(tractor, trumps, options)
        assert found is not None and found.kind == "tractor" and found.pairs == len(tractor) // 2


# Kinds near the drop-ins and the chain, so that pairs of them often form tractors.
NEAR_TRACTORS = parse_cards("♥2 ♥3 ♥6 ♥7 ♥8 ♥A ♠2 ♠6 ♠7 ♠8 ♠9 SJ BJ")


@given(st.lists(st.sampled_from(NEAR_TRACTORS), min_size=1, max_size=5, unique=True), SUITS, OPTIONS, st.randoms())
def test_classification_does_not_depend_on_card_order(kinds, suit, options, rng):
    cards = kinds * 2
    shuffled = cards[:]
    rng.shuffle(shuffled)
    assert classify(cards, Trumps(suit), options) == classify(shuffled, Trumps(suit), options)


def parts(text, trumps=HEARTS_TRUMP, options=DEFAULT):
    found = components(parse_cards(text), trumps, options)
    return None if found is None else [format_cards(cards) for _, cards in found]


def test_a_throw_splits_into_longest_tractors_then_pairs_then_singles():
    assert parts("♠A ♠A ♠K ♠K ♠Q ♠3 ♠3 ♠5") == ["♠K ♠K ♠A ♠A", "♠3 ♠3", "♠Q", "♠5"]
    assert parts("♥6 ♥6 ♥7 ♥7 ♥8 ♥8 SJ SJ BJ BJ ♥2") == ["♥6 ♥6 ♥7 ♥7 ♥8 ♥8", "SJ SJ BJ BJ", "♥2"]


def test_cards_of_two_suits_do_not_split_into_one_throw():
    assert parts("♠A ♣A") is None


def test_a_cover_takes_the_highest_combination_of_each_part_and_a_tractor_serves_as_pairs():
    shape = [c for c, _ in components(parse_cards("♠A ♠A ♠Q ♠Q"), HEARTS_TRUMP, DEFAULT)]
    top, taken = cover(shape, parse_cards("♥3 ♥3 ♥4 ♥4 ♥9"), HEARTS_TRUMP, DEFAULT)
    assert format_cards(taken) == "♥3 ♥3 ♥4 ♥4"
    assert top == HEARTS_TRUMP.strength(parse_cards("♥4")[0])
    assert cover(shape, parse_cards("♥3 ♥3 ♥4 ♥9"), HEARTS_TRUMP, DEFAULT) is None
