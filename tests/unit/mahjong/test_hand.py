import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.mahjong.hand import is_ready, is_win, seven_pairs, waits
from engine.mahjong.tiles import counts, parse_tiles

from .brute_force import brute_is_win, brute_waits, substituted_is_win
from .strategies import hands


def h(text: str) -> list[int]:
    return counts(parse_tiles(text))


def tiles(text: str) -> frozenset[int]:
    return frozenset(parse_tiles(text))


@pytest.mark.parametrize(
    "hand",
    ["123m 123p 123s 123m 11p", "123m 123p 123s 111m 11p", "123m 456p 111s 999m EE",
     "123m 111p 555s 999m 77s", "111m 555p 999s EEE CC"],
)
def test_the_five_winning_shapes_of_four_sets_and_a_pair(hand):
    assert is_win(h(hand))


def test_suits_may_be_mixed_freely():
    assert is_win(h("234m 678p 345s 789m 55p"))


def test_honors_make_pungs_but_honor_runs_are_not_sets():
    assert is_win(h("123m 456p 789s EEE CC"))
    assert not is_win(h("123m 456p 789s ESW CC"))
    assert not is_win(h("123m 456p 789s CFP EE"))


def test_runs_do_not_wrap_from_9_to_1():
    assert not is_win(h("891m 456p 789s EEE CC"))
    assert not is_win(h("912p 456m 789s EEE CC"))


def test_runs_stay_within_one_suit():
    assert not is_win(h("89m 1p 456p 789s EEE CC"))


def test_a_kong_counts_as_a_pung_so_the_concealed_part_needs_one_set_fewer():
    assert is_win(h("123m 456p 789s CC"), melds=1)
    assert is_win(h("CC"), melds=4)
    assert not is_win(h("123m 456p 789s CC"), melds=0)


def test_a_hand_with_the_wrong_number_of_tiles_never_wins():
    assert not is_win(h("123m 456p 789s EEE"))
    assert not is_win(h("123m 456p 789s EEE CC 1m"))


def test_a_wild_stands_for_any_tile():
    assert is_win(h("123m 456p 789s EEE C"), wilds=1)
    assert is_win(h("13m 456p 789s EEE CC"), wilds=1)
    assert is_win(h("123m 456p 789s EE C"), wilds=2)


def test_four_wilds_complete_a_set_and_fill_the_pair():
    assert is_win(h("123m 456p 789s C"), wilds=4)
    assert is_win(h("1m 456p 789s EEE"), wilds=4)
    assert not is_win(h("1m 5m 9m 1p 5p 9p 1s 5s 9s E"), wilds=4)


def test_wilds_may_play_a_fifth_copy_of_a_tile():
    assert is_win(h("1111m 456p 789s EEE"), wilds=1)


def test_the_seed_example_45p_waits_on_3p_and_6p():
    assert waits(h("45p 123m 456m 789s EE")) == tiles("3p 6p")


def test_the_nine_gates_wait_on_every_tile_of_their_suit():
    assert waits(h("1112345678999m")) == tiles("123456789m")


def test_a_pair_wait_and_a_single_wait():
    assert waits(h("123m 456m 789m EEE 1p")) == tiles("1p")
    assert waits(h("123m 456m 789m 11p 22s")) == tiles("1p 2s")


def test_a_hand_not_ready_has_no_waits():
    hand = h("159m 159p 159s ESWN")
    assert waits(hand) == frozenset()
    assert not is_ready(hand)


def test_a_ready_hand_is_ready():
    assert is_ready(h("45p 123m 456m 789s EE"))


def test_with_a_wild_in_hand_any_tile_that_completes_it_is_a_wait():
    assert waits(h("123m 456m 789m EEE"), wilds=1) == frozenset(range(34))


def test_seven_pairs():
    assert seven_pairs(h("11m 22m 33p 44p 55s EE CC"))
    assert not seven_pairs(h("11m 22m 33p 44p 55s EE C F"))


def test_four_of_a_kind_counts_as_two_of_the_seven_pairs():
    assert seven_pairs(h("1111m 33p 44p 55s EE CC"))


def test_a_wild_pairs_any_single_in_seven_pairs():
    assert seven_pairs(h("11m 22m 33p 44p 55s EE C"), wilds=1)
    assert seven_pairs(h("11m 22m 33p 44p 5s E C"), wilds=3)
    assert not seven_pairs(h("11m 22m 33p 4p 5s E C"), wilds=3)


@settings(deadline=None)  # the brute force is slow by design
@given(hands())
def test_is_win_agrees_with_the_brute_force_checker(hand):
    c, wilds, melds = hand
    assert is_win(c, wilds, melds) == brute_is_win(c, wilds, melds)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(hands(missing=1))
def test_waits_are_exactly_the_tiles_whose_addition_completes_the_hand(hand):
    c, wilds, melds = hand
    found = waits(c, wilds, melds)
    assert found == brute_waits(c, wilds, melds)
    assert is_ready(c, wilds, melds) == bool(found)


@settings(max_examples=40, deadline=None)
@given(hands(max_melds=3).filter(lambda hand: hand[1] <= 2))
def test_the_brute_force_checker_agrees_with_trying_every_tile_for_each_wild(hand):
    c, wilds, melds = hand
    assert brute_is_win(c, wilds, melds) == substituted_is_win(c, wilds, melds)


@given(st.lists(st.integers(0, 33), min_size=14, max_size=14), st.integers(0, 4))
def test_seven_pairs_means_every_kind_in_pairs_once_wilds_fill_the_odd_ones(tiles_, wilds):
    c = counts(tiles_[: 14 - wilds])
    odd = [t for t in range(34) if c[t] % 2]
    assert seven_pairs(c, wilds) == (len(odd) <= wilds)


def test_a_tile_held_four_times_is_not_a_wait_there_is_no_fifth():
    # 1m, 2m and 3m would each complete it as a fifth copy
    assert waits(h("1111m 2222m 3333m 4m")) == tiles("4m 5m")
