"""A win's fans: the best, over every assignment of the 混 that wins, of the MCR fans plus the JJ
additions after jj's exclusions (jj.md: "the maximum over every assignment").

For each natural hand `engine.jj.hun.completions` lists, PyMahjongGB reads the MCR fans (it takes
the best reading of that natural hand itself); the additions that look at the pair or the chows
take the best reading of their own. A winning tile that is itself a 混 (a self-drawn 混) may be
any of the tiles the 混 stand for, so each is tried.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from engine.core.messages import value
from engine.jj import hun, mcr
from engine.jj.fans import ADDITIONS, EXCLUDES, READS_SETS, Fan, Situation, Win, value_of
from engine.mahjong.decompose import Decomposition
from engine.mahjong.melds import Meld
from engine.mahjong.tiles import Tile, tile

NOT_COUNTED = ("报听", "无混")
"""Fans that do not count toward the minimum (jj.md)."""


@value("jj.Scored")
class Scored:
    """A win's fans with their values, the fans jj's exclusions removed, the total, the part of it
    that counts toward the minimum, and what each 混 stood for (`win_as`: what the winning tile
    counted as)."""

    fans: tuple[Fan, ...]
    excluded: tuple[str, ...]
    total: int
    counted: int
    wild_for: tuple[Tile, ...]
    win_as: Tile


def best_win(
    concealed: Sequence[int],
    wild: int | None,
    melds: tuple[Meld, ...],
    seat: int,
    win_tile: int | None,
    situation: Situation,
    visible: Sequence[int] = (0,) * 34,
) -> Scored | None:
    """The best scoring of a winning hand, or None when no assignment of its 混 wins.

    `concealed` is the 34 counts of the concealed tiles, the winning tile included (a 混 counted as
    its own kind, `wild`; None at a table without 混); `win_tile` None on 天胡 (no tile came
    last: the best of the hand's tiles is taken); `visible` counts the tiles seen outside this
    hand (rivers and every meld), for 和绝张."""
    return _search(tuple(concealed), wild, melds, seat, win_tile, situation, tuple(visible), None)


# How the natural hands to score are listed: all of them (the best scoring), lazily (the win check,
# which stops at the first good enough), or every substitution (the reference for tests).
_ALL, _LAZY, _BRUTE = "all", "lazy", "brute"


@lru_cache(maxsize=16384)
def _search(
    concealed: tuple[int, ...],
    wild: int | None,
    melds: tuple[Meld, ...],
    seat: int,
    win_tile: int | None,
    situation: Situation,
    visible: tuple[int, ...],
    enough: int | None,
    listing: str = _ALL,
) -> Scored | None:
    """The best scoring, or with `enough` the first whose counted fans reach it. Cached: the same
    hand is asked about several times (legal actions, the deadline, the move itself)."""
    naturals, wilds = hun.split(concealed, wild)
    in_melds, packs = _meld_info(melds, seat)
    if listing == _BRUTE:
        fulls: Iterable[tuple[int, ...]] = hun.brute_force(naturals, wilds, in_melds)
    elif enough is not None:
        fulls = hun.first_completions(naturals, wilds, len(melds), in_melds)
    else:
        fulls = hun.completions(naturals, wilds, len(melds), in_melds)
    best: Scored | None = None
    for full in fulls:
        stood_for = tuple(t for t in range(34) for _ in range(full[t] - naturals[t]))
        for win_as in _win_choices(full, stood_for, win_tile, wild):
            floor = -1 if best is None or enough is not None else best.total
            scored = _score_natural(full, wilds, melds, packs, stood_for, win_as, situation, visible, floor)
            if scored is None:
                continue
            if enough is not None and scored.counted >= enough:
                return scored
            if enough is None and (best is None or scored.total > best.total):
                best = scored
    return best


def _win_choices(full: tuple[int, ...], stood_for: Sequence[int], win_tile: int | None, wild: int | None) -> list[int]:
    """What the winning tile may count as: itself; any tile a 混 stands for when it is a 混; any
    tile of the hand on 天胡, where no tile came last."""
    if win_tile is None:
        return [t for t in range(34) if full[t]]
    if win_tile == wild:
        return sorted(set(stood_for))
    return [win_tile]


def _meld_info(melds: tuple[Meld, ...], seat: int) -> tuple[tuple[int, ...], tuple[mcr.Pack, ...]]:
    """The tiles in the melds (no 混 may make a fifth copy) and the melds as PyMahjongGB packs."""
    in_melds = [0] * 34
    for m in melds:
        for t in m.tiles:
            in_melds[t] += 1
    return tuple(in_melds), tuple(mcr.pack_of(m, seat) for m in melds)


def reaches(
    concealed: Sequence[int],
    wild: int | None,
    melds: tuple[Meld, ...],
    seat: int,
    win_tile: int | None,
    situation: Situation,
    min_fan: int,
    visible: Sequence[int] = (0,) * 34,
) -> bool:
    """Whether the hand wins with `min_fan` or more counted fans: the win check, which stops at
    the first assignment of the 混 that scores enough (best_win looks at them all)."""
    return _search(tuple(concealed), wild, melds, seat, win_tile, situation, tuple(visible), min_fan) is not None


def best_by_brute_force(
    concealed: Sequence[int],
    wild: int,
    melds: tuple[Meld, ...],
    seat: int,
    win_tile: int,
    situation: Situation,
    visible: Sequence[int] = (0,) * 34,
) -> Scored | None:
    """`best_win` by trying every substitution of the 混 (the reference the search is held to)."""
    return _search(tuple(concealed), wild, melds, seat, win_tile, situation, tuple(visible), None, _BRUTE)


def _score_natural(
    full: tuple[int, ...],
    wilds: int,
    melds: tuple[Meld, ...],
    packs: tuple[mcr.Pack, ...],
    stood_for: tuple[int, ...],
    win_as: int,
    situation: Situation,
    visible: tuple[int, ...],
    floor: int = -1,
) -> Scored | None:
    """The scoring of one natural hand, or None when it does not win or cannot beat `floor`."""
    found = mcr.mcr_fans(
        packs,
        full,
        win_as,
        situation.self_drawn,
        visible[win_as] == 3,
        situation.about_kong,
        situation.wall_last,
        situation.seat_wind,
        situation.round_wind,
    )
    if found is None:
        return None
    w = Win(full, wilds, melds, situation)
    base = [Fan(name, v, n) for name, v, n in found]
    # Exclusions only take fans away, so every fan before them bounds the total: when even that
    # cannot beat the best so far, the readings (the costly part) are not worth looking at.
    if floor >= 0 and sum(f.total for f in base + _additions(w, None)) + _READING_BOUND <= floor:
        return None
    return _combine(base, w, tuple(tile(t) for t in stood_for), tile(win_as))


_READING_BOUND = sum(ADDITIONS[name][0] for name in READS_SETS)


def _combine(base: list[Fan], w: Win, wild_for: tuple[Tile, ...], win_as: Tile) -> Scored:
    best: Scored | None = None
    for d in w.readings:
        scored = _apply_exclusions(base + _additions(w, d), wild_for, win_as)
        if best is None or scored.total > best.total:
            best = scored
    assert best is not None
    return best


def _additions(w: Win, d: Decomposition | None) -> list[Fan]:
    found = []
    for name, (_, definition) in ADDITIONS.items():
        times = definition(w, d)
        if times:
            found.append(Fan(name, value_of(name, w.situation), times))
    return found


def _apply_exclusions(fans: list[Fan], wild_for: tuple[Tile, ...], win_as: Tile) -> Scored:
    present = {f.name for f in fans}
    removed = {gone for name in present for gone in EXCLUDES.get(name, ()) if gone in present}
    kept = tuple(f for f in fans if f.name not in removed)
    total = sum(f.total for f in kept)
    counted = total - sum(f.total for f in kept if f.name in NOT_COUNTED)
    return Scored(kept, tuple(sorted(removed)), total, counted, wild_for, win_as)
