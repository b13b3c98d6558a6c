"""The obviously-correct (and slow) reading of a wuhan hand: try every tile for every 赖子.

A natural hand (no wilds) is split every possible way into a pair and sets; each split says which
pair it uses and whether its sets are all pungs. The soft reading tries every assignment of kinds
to the 赖子 and keeps what each assignment makes on its own, so shapes are only ever combined
when one assignment makes them all.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement

NAMES = ("pungs", "one_suit", "all_258", "all_honors")
_258 = {s * 9 + n for s in range(3) for n in (1, 4, 7)}


@cache
def splits(key: tuple[int, ...], sets: int) -> frozenset[tuple[int, bool]]:
    """Every (pair kind, all sets are pungs) of the ways `key` splits into a pair and `sets` sets."""
    found: set[tuple[int, bool]] = set()
    for p in range(34):
        if key[p] >= 2:
            c = list(key)
            c[p] -= 2
            for pungs in _set_splits(tuple(c), sets):
                found.add((p, pungs))
    return frozenset(found)


@cache
def _set_splits(key: tuple[int, ...], sets: int) -> frozenset[bool]:
    """For each way `key` splits into `sets` sets: whether all of them are pungs."""
    if sets == 0:
        return frozenset({True}) if not any(key) else frozenset()
    i = next((j for j, n in enumerate(key) if n), None)
    if i is None:
        return frozenset()
    found: set[bool] = set()
    c = list(key)
    if c[i] >= 3:
        c[i] -= 3
        found |= _set_splits(tuple(c), sets - 1)
        c[i] += 3
    if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        found |= {False for _ in _set_splits(tuple(c), sets - 1)}
    return frozenset(found)


def natural_shapes(c: list[int], meld_tiles: list[int], melds: int, chows: bool) -> tuple[bool, frozenset[str]]:
    """(a 2/5/8-pair standard hand, the big shapes) of a hand with no wilds."""
    ways = splits(tuple(c), 4 - melds) if sum(c) == 14 - 3 * melds else frozenset()
    kinds = {t for t in range(34) if c[t]} | set(meld_tiles)
    big = set()
    if ways and not chows and any(pungs for _, pungs in ways):
        big.add("pungs")
    if ways and any(all(k // 9 == s for k in kinds) for s in range(3)):
        big.add("one_suit")
    if kinds <= _258:
        big.add("all_258")
    if all(k >= 27 for k in kinds):
        big.add("all_honors")
    return any(p in _258 for p, _ in ways), frozenset(big)


def every_substitution(c: list[int], laizi: int, meld_tiles: list[int], melds: int, chows: bool):
    """(small, big shapes) for every assignment of kinds to the hand's 赖子."""
    wilds = c[laizi]
    base = list(c)
    base[laizi] = 0
    for stand_ins in combinations_with_replacement(range(34), wilds):
        filled = list(base)
        for t in stand_ins:
            filled[t] += 1
        yield natural_shapes(filled, meld_tiles, melds, chows)
