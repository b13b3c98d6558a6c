"""Per-suit completion table: for every way one suit can appear in a hand, how many wilds it needs.

A suit's tiles (9 counts for a number suit, 7 for the honors) complete into sets only, or into sets
plus the hand's pair, using some number of wilds. Adding three wilds as a pung always works, so what
matters is the fewest wilds each takes: `sets` and `pair`, capped at `UNREACHABLE` (more than four
wilds, which no hand has). A hand is then complete when the sets-costs of three suits plus the
pair-cost of the fourth fit into its wilds (the tile count makes the remainder a multiple of three).

The table is built once at import by adding up set "units" (a set with 0, 1 or 2 of its tiles left
to wilds) rather than by searching each hand, and is keyed by `bytes(counts_of_the_suit)` so a
lookup costs one C-level conversion and one dict probe. A cost pair is packed into one small int
`sets * 6 + pair` ("code") so combining suits is a table lookup too.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

MAX_WILDS = 4
UNREACHABLE = MAX_WILDS + 1
_SIDE = UNREACHABLE + 1
CODES = _SIDE * _SIDE
DEAD = CODES - 1  # neither shape reachable with at most four wilds

# Counts are built as base-256 integers so `value.to_bytes(n, "little")` is exactly `bytes(counts)`.
_BASE = 256


def pack(sets: int, pair: int) -> int:
    return min(sets, UNREACHABLE) * _SIDE + min(pair, UNREACHABLE)


def unpack(code: int) -> tuple[int, int]:
    """`(wilds to make sets only, wilds to make sets + pair)`; `UNREACHABLE` means more than four."""
    return divmod(code, _SIDE)


def _units(
    kinds: int, runs: bool, pair_at: Sequence[int] | None = None
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(set units, pair units) as (counts as an int, wilds they need). `pair_at` limits which
    kinds a pair of natural tiles may be (None: any); a pair of two wilds is always allowed."""

    def at(*offsets: int) -> int:
        return sum(_BASE**i for i in offsets)

    sets: list[tuple[int, int]] = []
    pairs: list[tuple[int, int]] = [(0, 2)]
    for i in range(kinds):
        sets += [(3 * at(i), 0), (2 * at(i), 1), (at(i), 2)]
        if pair_at is None or i in pair_at:
            pairs += [(2 * at(i), 0), (at(i), 1)]
        if runs and i + 1 < kinds:
            sets.append((at(i, i + 1), 1))
        if runs and i + 2 < kinds:
            sets += [(at(i, i + 1, i + 2), 0), (at(i, i + 2), 1)]
    return sets, pairs


def _extend(frontier: dict[int, int], units: list[tuple[int, int]], kinds: int) -> dict[int, int]:
    """Cheapest cost of every count vector made by adding one unit to a vector of `frontier`."""
    # A digit over 4 (five of a tile) shows up as bit 3 once 3 is added to every digit (digits stay <= 7).
    over = sum(3 * _BASE**i for i in range(kinds))
    mask = sum(8 * _BASE**i for i in range(kinds))
    reached: dict[int, int] = {}
    for v, cost in frontier.items():
        for u, extra in units:
            c = cost + extra
            if c > MAX_WILDS:
                continue
            w = v + u
            if (w + over) & mask:
                continue
            old = reached.get(w)
            if old is None or c < old:
                reached[w] = c
    return reached


def _merge_min(into: dict[int, int], more: dict[int, int]) -> None:
    for v, c in more.items():
        old = into.get(v)
        if old is None or c < old:
            into[v] = c


@cache
def sets_costs(kinds: int, runs: bool) -> dict[int, int]:
    """Fewest wilds that complete each count vector (as a base-256 int) into sets only; cached,
    since every variant of a suit's table starts from it (`sets_costs.cache_clear()` to rebuild)."""
    set_units, _ = _units(kinds, runs)
    sets_only = {0: 0}
    frontier = sets_only
    for _ in range(4):  # no hand holds more than four sets
        frontier = _extend(frontier, set_units, kinds)
        _merge_min(sets_only, frontier)
    return sets_only


def build(kinds: int, runs: bool, pair_at: Sequence[int] | None = None) -> dict[bytes, int]:
    """`bytes(counts)` -> code for every count vector of one suit that four wilds can complete.

    `pair_at` restricts the pair to those kinds of the suit (wuhan's 二五八将: positions 1, 4, 7);
    the sets-only part is shared between the variants of one suit, so a variant costs little."""
    _, pair_units = _units(kinds, runs, pair_at)
    sets_only = sets_costs(kinds, runs)
    with_pair = _extend(sets_only, pair_units, kinds)
    return {
        v.to_bytes(kinds, "little"): pack(sets_only.get(v, UNREACHABLE), with_pair.get(v, UNREACHABLE))
        for v in sets_only.keys() | with_pair.keys()
    }


NUMBER_SUIT: dict[bytes, int] = build(9, runs=True)
HONORS: dict[bytes, int] = build(7, runs=False)


def _combine(a: int, b: int) -> int:
    sa, pa = unpack(a)
    sb, pb = unpack(b)
    return pack(sa + sb, min(sa + pb, pa + sb))


# COMBINE[a][b]: the code of two suits taken together.
COMBINE: tuple[tuple[int, ...], ...] = tuple(tuple(_combine(a, b) for b in range(CODES)) for a in range(CODES))
