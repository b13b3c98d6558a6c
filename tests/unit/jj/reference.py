"""An independent count of a jj win, for the cross-checks: PyMahjongGB called directly for the 81
MCR fans, and the JJ additions (jj.md, "Fans") written again from the rules, reading the hand by
brute force (every split into sets and a pair, and the pair and set beside a 组合龙). It shares no
code with engine/jj but the tile numbering (0-8 万, 9-17 饼, 18-26 条, 27-30 东南西北, 31-33 中發白).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement, permutations

from MahjongGB import MahjongFanCalculator

NAMES = [f"W{n}" for n in range(1, 10)] + [f"B{n}" for n in range(1, 10)] + [f"T{n}" for n in range(1, 10)] + [
    "F1", "F2", "F3", "F4", "J1", "J2", "J3"]
KNITS = [tuple(sorted(9 * suit + start + 3 * k for suit, start in zip(order, (0, 1, 2), strict=True) for k in range(3)))
         for order in permutations(range(3))]

Set = tuple[str, int]  # ("run", lowest tile) or ("pung", tile)


@dataclass(frozen=True)
class Reading:
    pair: int
    sets: tuple[Set, ...]  # the concealed sets (a 组合龙's nine tiles are none)


@dataclass(frozen=True)
class Meld:
    kind: str  # "chow" (by its lowest tile) or "pong"
    tile: int


def readings(full: Sequence[int], melds: int) -> list[Reading]:
    """Every reading of the concealed tiles: 4 - melds sets and a pair, or a 组合龙 with 1 - melds
    sets and a pair."""
    found = [Reading(p, s) for p, s in _split(list(full), 4 - melds)]
    for knit in KNITS:
        if melds <= 1 and all(full[t] for t in knit):
            rest = list(full)
            for t in knit:
                rest[t] -= 1
            found += [Reading(p, s) for p, s in _split(rest, 1 - melds)]
    return found


def _split(c: list[int], sets: int) -> Iterator[tuple[int, tuple[Set, ...]]]:
    if sum(c) != 3 * sets + 2:
        return
    for pair in range(34):
        if c[pair] >= 2:
            c[pair] -= 2
            for groups in _sets(c, 0):
                yield pair, groups
            c[pair] += 2


def _sets(c: list[int], i: int) -> Iterator[tuple[Set, ...]]:
    while i < 34 and not c[i]:
        i += 1
    if i == 34:
        yield ()
        return
    if c[i] >= 3:
        c[i] -= 3
        for rest in _sets(c, i):
            yield (("pung", i), *rest)
        c[i] += 3
    if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        for t in (i, i + 1, i + 2):
            c[t] -= 1
        for rest in _sets(c, i):
            yield (("run", i), *rest)
        for t in (i, i + 1, i + 2):
            c[t] += 1


def two_five_eight(r: Reading, melds: Sequence[Meld]) -> int:
    return 2 if r.pair < 27 and r.pair % 9 + 1 in (2, 5, 8) else 0


def one_or_nine(r: Reading, melds: Sequence[Meld]) -> int:
    return 1 if r.pair < 27 and r.pair % 9 + 1 in (1, 9) else 0


def mixed_dragon(r: Reading, melds: Sequence[Meld]) -> int:
    chows = [t for kind, t in r.sets if kind == "run"] + [m.tile for m in melds if m.kind == "chow"]
    for a in chows:
        for b in chows:
            for c in chows:
                if (a % 9, b % 9, c % 9) == (0, 3, 6) and len({a // 9, b // 9, c // 9}) == 2:
                    return 2
    return 0


READING_ADDITIONS = {"二五八将": two_five_eight, "幺九头": one_or_nine, "混龙": mixed_dragon}
EXCLUDED_BY = {"二五八将": (), "幺九头": ("清幺九",), "混龙": ("清龙", "花龙")}


def best_reading_additions(full: Sequence[int], melds: Sequence[Meld], mcr: dict[str, int]) -> int:
    """The pair and set additions of the best reading, after the MCR fans that exclude them."""
    best = 0
    for r in readings(full, len(melds)):
        best = max(best, sum(fn(r, melds) for name, fn in READING_ADDITIONS.items()
                             if not any(gone in mcr for gone in EXCLUDED_BY[name])))
    return best


@dataclass(frozen=True)
class Case:
    """A winning hand and its situation: `full` the concealed tiles' counts, the winning tile
    included (with `wilds` of them 混 already given the tiles they stand for)."""

    full: tuple[int, ...]
    melds: tuple[Meld, ...]
    win: int
    self_drawn: bool = False
    seat_wind: int = 0
    round_wind: int = 0
    flowers: int = 0
    xuezhan: bool = False
    declared_ready: bool = False
    wild_in_play: bool = True
    wilds: int = 0


def mcr_fans(case: Case) -> dict[str, int] | None:
    """PyMahjongGB's fans (name -> fan points, after MCR's exclusions), None when it finds no win."""
    standing = [NAMES[t] for t in range(34) for _ in range(case.full[t])]
    standing.remove(NAMES[case.win])
    packs = tuple(("CHI", NAMES[m.tile + 1], 1) if m.kind == "chow" else ("PENG", NAMES[m.tile], 1) for m in case.melds)
    try:
        found = MahjongFanCalculator(packs, tuple(standing), NAMES[case.win], 0, case.self_drawn, False, False, False,
                                     case.seat_wind, case.round_wind)
    except TypeError:
        return None
    return {name: points for points, name in found}


def total(case: Case) -> int | None:
    """The jj total of a natural hand: PyMahjongGB's fans plus the JJ additions, after jj's
    exclusions; None when it does not win."""
    mcr = mcr_fans(case)
    if mcr is None:
        return None
    fans = sum(mcr.values()) + best_reading_additions(case.full, case.melds, mcr)
    fans += 32 if case.wilds == 4 else 2 if case.wilds == 0 and case.wild_in_play else 0  # 四混 / 无混
    fans += 24 if case.flowers == 4 else 2 * case.flowers  # 四君子 drops 花牌
    fans += (2 if case.xuezhan else 3) if case.declared_ready else 0  # 报听
    fans += 0 if case.xuezhan else 2  # 胡
    return fans


def best_over_substitutions(naturals: Sequence[int], wilds: int, case: Case, win_is_wild: bool) -> int | None:
    """The best total over every substitution of `wilds` 混 (no tile beyond four copies, melds
    counted): jj.md's "maximum over every assignment". A self-drawn 混 may count as any tile it
    stands for."""
    in_melds = [0] * 34
    for m in case.melds:
        for t in ((m.tile, m.tile + 1, m.tile + 2) if m.kind == "chow" else (m.tile,) * 3):
            in_melds[t] += 1
    best = None
    for kinds in combinations_with_replacement(range(34), wilds):
        full = list(naturals)
        for t in kinds:
            full[t] += 1
        if any(full[t] + in_melds[t] > 4 for t in set(kinds)):
            continue
        for win in sorted(set(kinds)) if win_is_wild else [case.win]:
            got = total(Case(tuple(full), case.melds, win, case.self_drawn, case.seat_wind, case.round_wind,
                             case.flowers, case.xuezhan, case.declared_ready, case.wild_in_play, wilds))
            if got is not None and (best is None or got > best):
                best = got
    return best
