"""Every way a complete hand splits into sets and a pair, and which tiles its wilds stand for.

Scoring needs the shapes (pungs or runs, which pair, what a wild became), so this enumerates them
all; it is slower than `hand.is_win` and only runs on hands that `is_win` already accepts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from itertools import combinations_with_replacement
from typing import Literal

from engine.core.messages import value
from engine.mahjong.hand import is_win
from engine.mahjong.suit_table import MAX_WILDS
from engine.mahjong.tiles import Tile, tile

GroupKind = Literal["pair", "pung", "run"]


@value("mahjong.Group")
@dataclasses.dataclass(frozen=True, slots=True, order=True)
class Group:
    """A pair, pung or run (`tile` is a run's lowest tile); `wild_for` lists the tiles wilds play in it."""

    kind: GroupKind
    tile: Tile
    wild_for: tuple[Tile, ...] = ()

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The tiles the group reads as, wilds shown as what they stand for."""
        if self.kind == "run":
            return (self.tile, tile(self.tile + 1), tile(self.tile + 2))
        return (self.tile,) * (2 if self.kind == "pair" else 3)


@value("mahjong.Decomposition")
@dataclasses.dataclass(frozen=True, slots=True, order=True)
class Decomposition:
    """A complete concealed hand as its pair and sets (sorted), exposed melds not included."""

    pair: Group
    sets: tuple[Group, ...]

    @property
    def wild_for(self) -> tuple[Tile, ...]:
        """Every tile a wild stands for, sorted."""
        return tuple(sorted(t for g in (self.pair, *self.sets) for t in g.wild_for))


def _all_wild_sets() -> tuple[Group, ...]:
    pungs = [Group("pung", tile(t), (tile(t),) * 3) for t in range(34)]
    runs = [
        Group("run", tile(t), (tile(t), tile(t + 1), tile(t + 2)))
        for t in range(27)
        if t % 9 <= 6
    ]
    return tuple(pungs + runs)


_WILD_SETS = _all_wild_sets()
_WILD_PAIRS = tuple(Group("pair", tile(t), (tile(t),) * 2) for t in range(34))


def decompositions(counts34: Sequence[int], wilds: int = 0, melds: int = 0) -> tuple[Decomposition, ...]:
    """Every distinct decomposition of a complete hand (empty if it is not complete), sorted.

    Wilds left over once every natural tile is placed form whole sets or the pair of any tile, so
    each of those choices is a decomposition of its own (scoring takes the best)."""
    if not 0 <= wilds <= MAX_WILDS:
        raise ValueError(f"wilds must be 0..{MAX_WILDS}, got {wilds}")
    if not is_win(counts34, wilds, melds):
        return ()
    c = list(counts34)
    sets_needed = 4 - melds
    found: set[Decomposition] = set()

    def finish(w: int, sets: list[Group], pair: Group | None) -> None:
        free_sets = sets_needed - len(sets)
        if w != 3 * free_sets + (2 if pair is None else 0):
            return
        pairs = _WILD_PAIRS if pair is None else (pair,)
        for p in pairs:
            for extra in combinations_with_replacement(_WILD_SETS, free_sets):
                found.add(Decomposition(p, tuple(sorted((*sets, *extra)))))

    def place(i: int, w: int, sets: list[Group], pair: Group | None) -> None:
        while i < 34 and c[i] == 0:
            i += 1
        if i == 34:
            finish(w, sets, pair)
            return
        t = tile(i)
        if pair is None:
            for naturals in (2, 1):
                used = 2 - naturals
                if c[i] >= naturals and w >= used:
                    c[i] -= naturals
                    place(i, w - used, sets, Group("pair", t, (t,) * used))
                    c[i] += naturals
        if len(sets) == sets_needed:
            return
        for naturals in (3, 2, 1):
            used = 3 - naturals
            if c[i] >= naturals and w >= used:
                c[i] -= naturals
                place(i, w - used, [*sets, Group("pung", t, (t,) * used)], pair)
                c[i] += naturals
        if i < 27:
            for low in (i - 2, i - 1, i):
                if low // 9 == i // 9 and 0 <= low and low % 9 <= 6:
                    _runs_from(low, i, w, sets, pair)

    def _runs_from(low: int, i: int, w: int, sets: list[Group], pair: Group | None) -> None:
        # Tiles of the run below i must be wilds (no natural tile lies below i); i itself is natural;
        # a tile above i may be natural or a wild, and both are distinct decompositions.
        def fill(pos: int, w: int, wild_for: tuple[Tile, ...]) -> None:
            if pos == low + 3:
                place(i, w, [*sets, Group("run", tile(low), wild_for)], pair)
                return
            if pos == i:
                c[i] -= 1
                fill(pos + 1, w, wild_for)
                c[i] += 1
                return
            if pos > i and c[pos] > 0:
                c[pos] -= 1
                fill(pos + 1, w, wild_for)
                c[pos] += 1
            if w > 0:
                fill(pos + 1, w - 1, (*wild_for, tile(pos)))

        fill(low, w, ())

    place(0, wilds, [], None)
    return tuple(sorted(found))
