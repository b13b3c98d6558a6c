"""Shanten (向听): how many tiles a hand is from ready; -1 complete, 0 ready, 1 one tile short of ready.

A hand is `m` tiles from complete when, of its 4 - melds set slots and one pair slot, the best
arrangement holds all but `m` tiles (slots may hold partial sets, a wild or a future draw fills the
rest); shanten is `m - 1`. Each suit's best arrangement for every number of set slots (0..4) with
and without the pair is cached per suit count vector, so a call is four cached lookups plus a small
max-plus combination (also cached), not a search. Like the wilds, shanten does not know there
are only four of each tile: a hand whose one wait is a fifth copy counts as ready (0) although
`hand.waits` is empty for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from engine.mahjong.suit_table import MAX_WILDS

_SLOTS = 5  # 0..4 set slots
Best = tuple[int, ...]  # Best[k * 2 + p]: most natural tiles placed in k set slots and p (0/1) pair slots
_EMPTY: Best = (0,) * (_SLOTS * 2)


def _best(v: bytes, runs: bool, memo: dict[bytes, Best]) -> Best:
    hit = memo.get(v)
    if hit is not None:
        return hit
    i = next((j for j, n in enumerate(v) if n), -1)
    if i < 0:
        return _EMPTY
    c = bytearray(v)
    c[i] -= 1
    result = list(_best(bytes(c), runs, memo))  # the lowest tile left out altogether
    c[i] += 1

    def place(positions: tuple[int, ...], pair: bool) -> None:
        for p in positions:
            c[p] -= 1
        sub = _best(bytes(c), runs, memo)
        for p in positions:
            c[p] += 1
        used = len(positions)
        if pair:
            for k in range(_SLOTS):
                result[k * 2 + 1] = max(result[k * 2 + 1], sub[k * 2] + used)
        else:
            for k in range(_SLOTS - 1):
                for p in (0, 1):
                    slot = (k + 1) * 2 + p
                    result[slot] = max(result[slot], sub[k * 2 + p] + used)

    for n in (1, 2, 3):
        if v[i] >= n:
            place((i,) * n, pair=False)
            if n < 3:
                place((i,) * n, pair=True)
    if runs:
        for shape in ((i, i + 1, i + 2), (i, i + 1), (i, i + 2)):
            if shape[-1] < len(v) and all(v[p] for p in shape[1:]):
                place(shape, pair=False)
    # An empty slot is always allowed, so more slots never place fewer tiles.
    for k in range(_SLOTS):
        if k:
            result[k * 2] = max(result[k * 2], result[k * 2 - 2])
            result[k * 2 + 1] = max(result[k * 2 + 1], result[k * 2 - 1])
        result[k * 2 + 1] = max(result[k * 2 + 1], result[k * 2])
    best = tuple(result)
    memo[v] = best
    return best


_NUMBER_MEMO: dict[bytes, Best] = {}
_HONOR_MEMO: dict[bytes, Best] = {}
# The memos only hold suit vectors seen so far; bound them so a long-running service cannot grow
# them without limit (a refill costs microseconds per vector).
_MEMO_LIMIT = 500_000


def _suit(v: bytes, runs: bool) -> Best:
    memo = _NUMBER_MEMO if runs else _HONOR_MEMO
    if len(memo) > _MEMO_LIMIT:
        memo.clear()
    return _best(v, runs, memo)


@lru_cache(maxsize=65536)
def _combine(a: Best, b: Best) -> Best:
    out = [0] * (_SLOTS * 2)
    for ka in range(_SLOTS):
        for kb in range(_SLOTS - ka):
            k = ka + kb
            no_pair = a[ka * 2] + b[kb * 2]
            pair = max(a[ka * 2 + 1] + b[kb * 2], a[ka * 2] + b[kb * 2 + 1])
            if no_pair > out[k * 2]:
                out[k * 2] = no_pair
            if pair > out[k * 2 + 1]:
                out[k * 2 + 1] = pair
    return tuple(out)


def placed(counts34: Sequence[int], sets: int, pair: bool) -> int:
    """The most natural tiles `sets` set slots (and a pair slot, with `pair`) can hold."""
    best = _combine(
        _combine(_suit(bytes(counts34[0:9]), True), _suit(bytes(counts34[9:18]), True)),
        _combine(_suit(bytes(counts34[18:27]), True), _suit(bytes(sorted(counts34[27:34])), False)),
    )
    return best[sets * 2 + pair]


def shanten(counts34: Sequence[int], wilds: int = 0, melds: int = 0) -> int:
    """Tiles short of ready for a 13- or 14-tile hand (after `melds`): -1 complete, 0 ready."""
    if not 0 <= wilds <= MAX_WILDS:
        raise ValueError(f"wilds must be 0..{MAX_WILDS}, got {wilds}")
    return 14 - 3 * melds - placed(counts34, 4 - melds, True) - wilds - 1
