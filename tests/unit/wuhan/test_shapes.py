"""Winning shapes (rules/wuhan.md, "Winning" and "Hand types"): the hard and soft readings."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.mahjong.melds import CHOW, KONG_CONCEALED, PONG, Meld
from engine.mahjong.tiles import counts, parse_tile, parse_tiles
from engine.wuhan.shapes import Exposed, Shape, readings

from .brute_force import NAMES, every_substitution, natural_shapes


def read(hand: str, laizi: str = "N", melds: tuple[Meld, ...] = ()) -> tuple[Shape, ...]:
    return readings(counts(parse_tiles(hand)), parse_tile(laizi), Exposed.of(melds))


def pong(t: str) -> Meld:
    return Meld(PONG, parse_tile(t), 1)


def chow(low: str) -> Meld:
    return Meld(CHOW, parse_tile(low), 3)


def test_the_pair_must_be_2_5_or_8_for_a_small_win():
    (hard,) = read("123m 456p 789s 234s 55m")
    assert hard == Shape(hard=True, small=True)
    assert read("123m 456p 789s 234s 33m") == ()


def test_an_incomplete_hand_has_no_reading():
    assert read("123m 456p 789s 234s 5m 9p") == ()


def test_a_laizi_may_stand_for_any_tile_soft_win():
    assert read("123m 456p 789s 234s 5m N") == (Shape(hard=False, small=True),)


def test_a_laizi_standing_for_itself_is_a_hard_win():
    shapes = read("123m 456p 789s 55m NNN")
    assert shapes[0] == Shape(hard=True, small=True)
    assert shapes[1].hard is False and shapes[1].small


def test_all_pungs_needs_no_258_pair_but_no_chow_among_the_melds():
    (hard,) = read("111m 444p 777s 99s", melds=(pong("E"),))
    assert hard.pungs and not hard.small
    assert read("111m 444p 777s 99s", melds=(chow("1p"),)) == ()


def test_one_suit_needs_no_258_pair_and_counts_the_melds():
    (hard,) = read("123456789m 111m 99m")
    assert hard.one_suit and not hard.small
    assert read("123456m 111m 99m", melds=(pong("9p"),)) == ()  # 99 is no 2/5/8 pair


def test_all_258_needs_no_structure():
    (hard,) = read("2m 5m 8m 2p 5p 8p 2s 5s 8s 2m 5m 8m 2p 5p")
    assert hard == Shape(hard=True, all_258=True)


def test_all_honors_needs_no_structure():
    (hard,) = read("ESWNCFP ESWCFP S", laizi="2m")
    assert hard == Shape(hard=True, all_honors=True)


def test_in_all_honors_a_laizi_that_is_an_honor_counts_as_itself_hard():
    shapes = read("ESWNCFP ESWCFP S", laizi="S")
    assert shapes[0] == Shape(hard=True, all_honors=True)


def test_in_all_258_a_laizi_that_is_258_counts_as_itself_hard():
    shapes = read("2m 5m 8m 2p 5p 8p 2s 5s 8s 2m 5m 8m 2p 5p", laizi="5m")
    assert shapes[0].hard and shapes[0].all_258


def test_a_laizi_that_is_not_258_makes_all_258_soft():
    (soft,) = read("2m 5m 8m 2p 5p 8p 2s 5s 8s 2m 5m 8m 2p E", laizi="E")
    assert soft == Shape(hard=False, all_258=True)


def test_melds_count_as_sets():
    (hard,) = read("123m 55p", melds=(pong("E"), pong("S"), Meld(KONG_CONCEALED, parse_tile("W"))))
    assert hard.small


# --- the reading against a brute force over 赖子 substitutions --------------------------------

SETS = [(t, t, t) for t in range(34)] + [(t, t + 1, t + 2) for t in range(27) if t % 9 <= 6]
COLOURS = [list(range(0, 9)), [1, 4, 7, 10, 13, 16, 19, 22, 25], list(range(27, 34)), list(range(34))]


@st.composite
def wuhan_hands(draw, laizi_held: st.SearchStrategy[int]):
    """A hand with 0-3 melds and 0-4 赖子: half built as wins in one colour (a suit, 2/5/8,
    honors, anything), then maybe spoiled, half random, so that every shape is met."""
    kinds = draw(st.sampled_from(COLOURS))
    sets = [s for s in SETS if all(t in kinds for t in s)] or [(t, t, t) for t in kinds]
    melds = draw(st.lists(st.sampled_from(sets), min_size=0, max_size=3))
    size = 14 - 3 * len(melds)
    if draw(st.booleans()):
        groups = draw(st.lists(st.sampled_from(sets), min_size=4 - len(melds), max_size=4 - len(melds)))
        pair = draw(st.sampled_from(kinds))
        tiles = [t for g in groups for t in g] + [pair, pair]
        if draw(st.booleans()):
            tiles[draw(st.integers(0, size - 1))] = draw(st.sampled_from(kinds))
    else:
        tiles = draw(st.lists(st.sampled_from(kinds), min_size=size, max_size=size))
    laizi = draw(st.integers(0, 33))
    wilds = draw(laizi_held)
    positions = draw(st.permutations(range(size)))[:wilds]
    for i in positions:
        tiles[i] = laizi
    c = counts(tiles)
    meld_tiles = [t for m in melds for t in m]
    kinds_mask = 0
    for t in meld_tiles:
        kinds_mask |= 1 << t
    chows = any(m[0] != m[1] for m in melds)
    held = list(c)
    for t in meld_tiles:
        held[t] += 1
    assume(max(held) <= 4)  # there are four of each tile
    return c, laizi, Exposed(len(melds), chows, kinds_mask), meld_tiles


def big(shape: Shape) -> frozenset[str]:
    return frozenset(n for n in NAMES if getattr(shape, n))


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(wuhan_hands(st.integers(0, 2)))
def test_the_reading_agrees_with_trying_every_tile_for_up_to_two_laizi(case):
    agrees_with_brute_force(*case)


# Each hand with four 赖子 tries 66,045 substitutions: a few examples cover it.
@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(wuhan_hands(st.integers(3, 4)))
def test_the_reading_agrees_with_trying_every_tile_for_three_or_four_laizi(case):
    agrees_with_brute_force(*case)


def agrees_with_brute_force(c: list[int], laizi: int, exposed: Exposed, meld_tiles: list[int]) -> None:
    shapes = readings(c, laizi, exposed)
    hard = next((s for s in shapes if s.hard), None)
    soft = next((s for s in shapes if not s.hard), None)

    small, shapes_hard = natural_shapes(c, meld_tiles, exposed.count, exposed.chows)
    if small or shapes_hard:
        assert hard is not None and hard.small == small and big(hard) == shapes_hard
    else:
        assert hard is None

    if not c[laizi]:
        assert soft is None
        return
    tried = list(every_substitution(c, laizi, meld_tiles, exposed.count, exposed.chows))
    if not any(s or b for s, b in tried):
        assert soft is None
        return
    assert soft is not None
    assert soft.small == any(s for s, _ in tried)
    # The shapes the reading claims hold together under one substitution, and no substitution
    # makes more of them.
    assert any(big(soft) <= b for _, b in tried)
    assert len(big(soft)) == max(len(b) for _, b in tried)
    for name in NAMES:
        assert getattr(soft, name) <= any(name in b for _, b in tried)
