import pytest
from hypothesis import given, settings

from engine.mahjong.hand import is_ready, is_win
from engine.mahjong.shanten import shanten
from engine.mahjong.tiles import counts, parse_tiles

from .brute_force import brute_is_win, brute_shanten
from .strategies import hands


def h(text: str) -> list[int]:
    return counts(parse_tiles(text))


def test_a_complete_hand_is_minus_one():
    assert shanten(h("123m 456p 789s EEE CC")) == -1


def test_a_ready_hand_is_zero():
    assert shanten(h("45p 123m 456m 789s EE")) == 0


def test_one_tile_short_of_ready_is_one():
    assert shanten(h("48p 123m 456m 789s EE")) == 1


def test_a_hand_of_isolated_tiles_is_eight_away():
    assert shanten(h("19m 19p 19s ESWNCFP")) == 8


def test_a_wild_counts_as_the_tile_that_is_missing():
    assert shanten(h("4p 123m 456m 789s EE"), wilds=1) == 0
    assert shanten(h("123m 456m 789s EE"), wilds=3) == -1


def test_melds_already_made_shorten_the_hand():
    assert shanten(h("45p EE"), melds=3) == 0
    assert shanten(h("45p EEE"), melds=3) == 0


def test_a_wait_only_on_a_fifth_copy_still_counts_as_ready():
    assert shanten(h("1111m 444555666m")) == 0


def test_more_than_four_wilds_is_refused():
    with pytest.raises(ValueError, match="wilds"):
        shanten(h("123m"), wilds=5)


@settings(max_examples=60, deadline=None)
@given(hands())
def test_shanten_of_14_tiles_matches_brute_force(hand):
    c, wilds, melds = hand
    expected = brute_shanten(c, wilds, melds)
    found = shanten(c, wilds, melds)
    assert found == expected if expected is not None else found > 2


@settings(max_examples=60, deadline=None)
@given(hands(missing=1))
def test_shanten_of_13_tiles_matches_brute_force(hand):
    c, wilds, melds = hand
    expected = brute_shanten(c, wilds, melds)
    found = shanten(c, wilds, melds)
    assert found == expected if expected is not None else found > 2


@given(hands())
def test_shanten_is_minus_one_exactly_when_the_hand_wins(hand):
    c, wilds, melds = hand
    assert (shanten(c, wilds, melds) == -1) == is_win(c, wilds, melds)


@settings(max_examples=150, deadline=None)
@given(hands(missing=1))
def test_shanten_is_zero_exactly_when_some_tile_completes_the_hand(hand):
    c, wilds, melds = hand
    # Shanten does not know there are only four of a tile; the fast checks do not take five.
    fifth_copy_wins = any(
        brute_is_win([n + (t == k) for k, n in enumerate(c)], wilds, melds) for t in range(34) if c[t] == 4
    )
    assert (shanten(c, wilds, melds) == 0) == (is_ready(c, wilds, melds) or fifth_copy_wins)


@settings(max_examples=100)
@given(hands())
def test_a_14_tile_hand_is_as_far_as_its_best_discard_leaves_it(hand):
    c, wilds, melds = hand
    if is_win(c, wilds, melds):
        return
    after_discards = []
    for t in range(34):
        if c[t]:
            c[t] -= 1
            after_discards.append(shanten(c, wilds, melds))
            c[t] += 1
    if after_discards:
        assert shanten(c, wilds, melds) == min(after_discards)
