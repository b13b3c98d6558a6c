"""Hypothesis strategies for mahjong hands: half built as wins (then maybe spoiled), half random."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from engine.mahjong.tiles import FULL_SET, counts

SETS = [(t, t, t) for t in range(34)] + [(t, t + 1, t + 2) for t in range(27) if t % 9 <= 6]


@st.composite
def hands(draw, missing: int = 0, max_melds: int = 2):
    """`(counts34, wilds, melds)` of a hand with 14 - 3 * melds - missing tiles, wilds included."""
    melds = draw(st.integers(0, max_melds))
    wilds = draw(st.integers(0, 4))
    size = 14 - 3 * melds
    if draw(st.booleans()):
        groups = draw(st.lists(st.sampled_from(SETS), min_size=4 - melds, max_size=4 - melds))
        pair = draw(st.integers(0, 33))
        tiles = [t for g in groups for t in g] + [pair, pair]
        if draw(st.booleans()):  # spoil one tile: near-wins are where mistakes hide
            tiles[draw(st.integers(0, size - 1))] = draw(st.integers(0, 33))
        order = draw(st.permutations(range(size)))
        tiles = [tiles[i] for i in order]
    else:
        tiles = list(draw(st.permutations(FULL_SET))[:size])
    naturals = tiles[: size - wilds - missing]
    c = counts(naturals)
    assume(max(c) <= 4)
    return c, wilds, melds
