"""混 (the wild): which kind it is, and which natural hands a hand with 混 can stand for.

A hand's fans are the best over every assignment of tiles to its 混 that wins. Rather than try all
34^k assignments, `completions` lists only the natural hands some winning shape reaches: the
standard shape through the mahjong core's wild-aware decompositions (a 混 takes a tile only where
it completes a set or the pair), and the special shapes (seven pairs, thirteen orphans, the
knitted hands) by filling their few missing tiles. The answer depends only on the hand's shape, so
it is cached per shape. A 混 never stands for a fifth copy of a tile (see engine.jj.mcr).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations, combinations_with_replacement, permutations

from engine.mahjong.decompose import decompositions
from engine.mahjong.hand import is_win, seven_pairs
from engine.mahjong.shanten import shanten
from engine.mahjong.tiles import Tile, tile

_HONOR_CYCLE = (27, 28, 29, 30, 31, 32, 33, 27)  # 东 南 西 北 中 發 白, then 东 again


def wild_after(indicator: int) -> Tile:
    """The 混 kind an indicator turns up: the next kind, numbers wrapping in their suit (9m → 1m),
    honors in the cycle 东 南 西 北 中 發 白 (白 → 东)."""
    if indicator < 27:
        return tile(indicator - indicator % 9 + (indicator % 9 + 1) % 9)
    return tile(_HONOR_CYCLE[_HONOR_CYCLE.index(indicator) + 1])


ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
_NOT_ORPHANS = tuple(t for t in range(34) if t not in ORPHANS)
HONORS = tuple(range(27, 34))
KNITTED = tuple(
    tuple(sorted(9 * suit + start + 3 * k for suit, start in zip(suits, range(3), strict=True) for k in range(3)))
    for suits in permutations(range(3))
)
"""The six knitted straights (组合龙): 147 258 369 spread over the three suits in some order."""
_KNITTED_MASKS = tuple(sum(1 << t for t in knit) for knit in KNITTED)
_SUIT_MASKS: dict[bytes, int] = {}


def _number_mask(naturals: Sequence[int]) -> int:
    """Bit t set when number tile t is held (per suit, memoised: a few hundred suit patterns)."""
    b = bytes(naturals[:27])
    held = 0
    for suit in range(3):
        part = b[9 * suit : 9 * suit + 9]
        mask = _SUIT_MASKS.get(part)
        if mask is None:
            mask = _SUIT_MASKS[part] = sum(1 << i for i, n in enumerate(part) if n)
        held |= mask << (9 * suit)
    return held


Counts = tuple[int, ...]


def split(concealed: Sequence[int], wild: int | None) -> tuple[Counts, int]:
    """Concealed counts as the natural tiles and how many 混 (a 混 counted as its own kind)."""
    naturals = list(concealed)
    if wild is None:
        return tuple(naturals), 0
    wilds, naturals[wild] = naturals[wild], 0
    return tuple(naturals), wilds


@lru_cache(maxsize=16384)
def completions(naturals: Counts, wilds: int, melds: int, in_melds: Counts) -> tuple[Counts, ...]:
    """Every distinct natural hand (34 counts, concealed tiles only) that `naturals` plus `wilds`
    混 complete into a winning shape, with no tile beyond four copies counting `in_melds`."""
    if wilds == 0:
        return (naturals,) if shape_wins(naturals, 0, melds) else ()
    found: set[Counts] = set()
    for full in _candidates(naturals, wilds, melds):
        if all(n + m <= 4 for n, m in zip(full, in_melds, strict=True)):
            found.add(full)
    return tuple(sorted(found))


def _add(naturals: Sequence[int], extra: Sequence[int]) -> Counts:
    c = list(naturals)
    for t in extra:
        c[t] += 1
    return tuple(c)


def _candidates(naturals: Counts, wilds: int, melds: int) -> Iterator[Counts]:
    for d in decompositions(naturals, wilds, melds):
        yield _add(naturals, d.wild_for)
    if melds <= 1:
        yield from _special(naturals, wilds, melds)


def _seven_pairs(naturals: Counts, wilds: int) -> Iterator[Counts]:
    singles = [t for t, n in enumerate(naturals) if n % 2]
    spare = wilds - len(singles)
    if sum(naturals) + wilds != 14 or spare < 0:
        return
    matched = _add(naturals, singles)
    for kinds in combinations_with_replacement(range(34), spare // 2):
        yield _add(matched, [t for t in kinds for _ in range(2)])


def _thirteen_orphans(naturals: Counts, wilds: int) -> Iterator[Counts]:
    if sum(naturals) + wilds != 14 or any(naturals[t] for t in range(34) if t not in ORPHANS):
        return
    if any(naturals[t] > 2 for t in ORPHANS) or sum(naturals[t] == 2 for t in ORPHANS) > 1:
        return
    filled = _add(naturals, [t for t in ORPHANS if not naturals[t]])
    if sum(filled) == 14:
        yield filled
    elif sum(filled) == 13:
        for t in ORPHANS:
            yield _add(filled, [t])


def _honors_and_knitted(naturals: Counts, wilds: int) -> Iterator[Counts]:
    """全不靠 / 七星不靠: fourteen different tiles among one knitted straight's nine and the honors."""
    if sum(naturals) + wilds != 14 or any(n > 1 for n in naturals):
        return
    for knit in KNITTED:
        allowed = knit + HONORS
        if any(naturals[t] for t in range(34) if t not in allowed):
            continue
        for extra in combinations([t for t in allowed if not naturals[t]], wilds):
            yield _add(naturals, extra)


def _knitted_straight(naturals: Counts, wilds: int, melds: int) -> Iterator[Counts]:
    """组合龙 with a set and the pair: the straight's tiles natural where held (a 混 in its place
    could only stand for the same tile elsewhere), the rest through the standard shape."""
    held = _number_mask(naturals)
    for knit, mask in zip(KNITTED, _KNITTED_MASKS, strict=True):
        if (mask & ~held).bit_count() > wilds:
            continue
        missing = [t for t in knit if not naturals[t]]
        left = wilds - len(missing)
        rest = list(naturals)
        for t in knit:
            if rest[t]:
                rest[t] -= 1
        if not is_win(rest, left, melds + 3):
            continue
        base = _add(naturals, missing)
        for d in decompositions(tuple(rest), left, melds + 3):
            yield _add(base, d.wild_for)


def brute_force(naturals: Counts, wilds: int, in_melds: Counts) -> Iterator[Counts]:
    """Every substitution of the 混, unpruned (the reference the search is tested against)."""
    for kinds in combinations_with_replacement(range(34), wilds):
        full = _add(naturals, kinds)
        if all(n + m <= 4 for n, m in zip(full, in_melds, strict=True)):
            yield full


@lru_cache(maxsize=65536)
def shape_wins(naturals: Counts, wilds: int, melds: int) -> bool:
    """Whether some winning shape exists at all (the fast test before any fan is counted)."""
    if is_win(naturals, wilds, melds):
        return True
    if melds > 1 or sum(naturals) + wilds != 14 - 3 * melds:
        return False
    if melds == 0:
        if seven_pairs(naturals, wilds):
            return True
        if all(naturals[t] == 0 for t in _NOT_ORPHANS) and any(True for _ in _thirteen_orphans(naturals, wilds)):
            return True
        if max(naturals) <= 1 and any(True for _ in _honors_and_knitted(naturals, wilds)):
            return True
    return any(True for _ in _knitted_straight(naturals, wilds, melds))


def _special(naturals: Counts, wilds: int, melds: int) -> Iterator[Counts]:
    if melds == 0:
        yield from _seven_pairs(naturals, wilds)
        yield from _thirteen_orphans(naturals, wilds)
        yield from _honors_and_knitted(naturals, wilds)
    yield from _knitted_straight(naturals, wilds, melds)


def could_be_ready(naturals: Counts, wilds: int, melds: int) -> bool:
    """Whether some discard might leave this 14-tile hand ready: a necessary condition per shape,
    cheap enough to rule out most hands before each discard is tried."""
    if shanten(naturals, wilds, melds) <= 0:
        return True
    if melds > 1:
        return False
    if melds == 0 and (
        sum(n // 2 for n in naturals) + wilds >= 6
        or sum(1 for t in ORPHANS if naturals[t]) + wilds >= 12
        or sum(1 for n in naturals if n) + wilds >= 13
    ):
        return True
    held = _number_mask(naturals)
    return max((mask & held).bit_count() for mask in _KNITTED_MASKS) + wilds >= 8


def first_completions(naturals: Counts, wilds: int, melds: int, in_melds: Counts) -> Iterator[Counts]:
    """The natural hands of `completions`, lazily and possibly repeated: a depth-first choice of
    each 混's tile, abandoned as soon as the rest cannot complete, then the special shapes. The
    first answer comes after a few table lookups; the win check stops at the first that scores
    enough, where scoring a win takes the best of all."""
    if wilds == 0:
        if shape_wins(naturals, 0, melds):
            yield naturals
        return
    c = list(naturals)

    def assign(w: int, start: int) -> Iterator[Counts]:
        if w == 0:
            yield tuple(c)
            return
        for t in range(start, 34):
            if c[t] + in_melds[t] >= 4:
                continue
            c[t] += 1
            if is_win(c, w - 1, melds):
                yield from assign(w - 1, t)
            c[t] -= 1

    if is_win(naturals, wilds, melds):
        yield from assign(wilds, 0)
    if melds <= 1:
        for full in _special(naturals, wilds, melds):
            if all(n + m <= 4 for n, m in zip(full, in_melds, strict=True)):
                yield full
