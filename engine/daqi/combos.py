"""Combinations (牌型): single, pair and tractor (拖拉机), and how tractors are found in a hand.

Tractors are runs of pairs along a *line* of levels; two pairs are adjacent when their levels are
next to each other on one line, and a tractor must be one contiguous run on one line:

- a side suit: `3 4 5 6 8 9 10 J Q K A` (its 7 and 2 are trumps, so 6 and 8 are adjacent);
- the trump suit twice: with the 主2 and 主7 pairs dropped into their natural places
  (`2 3 4 5 6 7 8 ... A`: `2233`, `667788`) and without them (`3 ... 6 8 ... A`: `6688`);
- the jokers: `SJ BJ`;
- option `trump_chain_tractors`: the chain `trump 3 ... A, 副2, 主2, 副7, 主7, SJ, BJ` (without a
  trump suit: `副2, 副7, SJ, BJ`). The three or four 副2 (副7) kinds share one level, so two
  different 副2 pairs are never adjacent. A 主7/主2 pair sits either in its natural place or in the
  chain, never both within one tractor.

A tractor ranks by its top pair's place on its line: a dropped-in 主7 counts as a 7 between 6 and
8 (so `667788` ranks like `6688`, by its 8s), a dropped-in 主2 as a 2 below the 3.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from engine.core.messages import value
from engine.daqi.cards import BIG_JOKER_ID, CARDS, KINDS, SMALL_JOKER_ID, SUITS, Card
from engine.daqi.options import Options
from engine.daqi.trumps import TRUMP, Trumps

_SIDE_RANKS = (3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14)


@value("daqi.Combo")
class Combo:
    """A single, a pair or a tractor of `pairs` pairs, in follow suit `suit` (TRUMP for trumps);
    `top` compares combos of the same suit and shape (higher wins). Kind "throw" describes a
    lead of several combinations at once (option `allow_throw`, see follow.lead_combo)."""

    kind: Literal["single", "pair", "tractor", "throw"]
    suit: int
    pairs: int
    top: int

    @property
    def size(self) -> int:
        """Cards in a single, pair or tractor."""
        return 1 if self.kind == "single" else 2 * self.pairs

    def same_shape(self, other: Combo) -> bool:
        return self.kind == other.kind and self.pairs == other.pairs


@dataclass(frozen=True, slots=True)
class _Line:
    levels: tuple[tuple[int, ...], ...]  # kinds at each level, low to high
    values: tuple[int, ...]  # the rank of a tractor topped at each level
    position: dict[int, int]  # kind -> level


def _line(levels: Sequence[Sequence[int]], values: Sequence[int]) -> _Line:
    position = {kind: i for i, kinds in enumerate(levels) for kind in kinds}
    return _Line(tuple(tuple(k) for k in levels), tuple(values), position)


def _kind(suit: int, rank: int) -> int:
    return suit * 13 + rank - 2


def _lines(trump_suit: int | None, chain: bool) -> dict[int, tuple[_Line, ...]]:
    strength = Trumps(trump_suit).strengths
    lines: dict[int, list[_Line]] = {suit: [] for suit in (*SUITS, TRUMP)}
    for suit in SUITS:
        run = [_kind(suit, r) for r in _SIDE_RANKS]
        target = TRUMP if suit == trump_suit else suit
        lines[target].append(_line([[k] for k in run], [strength[k] for k in run]))
    if trump_suit is not None:
        natural = [_kind(trump_suit, r) for r in range(2, 15)]
        # A dropped-in 主2 or 主7 ranks as a trump-suit card of its natural rank.
        lines[TRUMP].append(_line([[k] for k in natural], [20 + r for r in range(2, 15)]))
    jokers = [[SMALL_JOKER_ID], [BIG_JOKER_ID]]
    if chain:
        others = [s for s in SUITS if s != trump_suit]
        levels: list[list[int]] = []
        if trump_suit is not None:
            levels += [[_kind(trump_suit, r)] for r in _SIDE_RANKS]
        levels.append([_kind(s, 2) for s in others])
        if trump_suit is not None:
            levels.append([_kind(trump_suit, 2)])
        levels.append([_kind(s, 7) for s in others])
        if trump_suit is not None:
            levels.append([_kind(trump_suit, 7)])
        levels += jokers
        lines[TRUMP].append(_line(levels, [strength[kinds[0]] for kinds in levels]))
    else:
        lines[TRUMP].append(_line(jokers, [strength[SMALL_JOKER_ID], strength[BIG_JOKER_ID]]))
    return {suit: tuple(found) for suit, found in lines.items()}


_LINES = {(suit, chain): _lines(suit, chain) for suit in (*SUITS, None) for chain in (False, True)}


def _lines_of(trumps: Trumps, options: Options) -> dict[int, tuple[_Line, ...]]:
    return _LINES[(trumps.trump_suit, options.trump_chain_tractors)]


def tractor_top(pair_kinds: Sequence[int], suit: int, trumps: Trumps, options: Options) -> int | None:
    """The rank of the tractor made of one pair of each kind in `pair_kinds` (all of follow suit
    `suit`), or None when they are not one contiguous run on a line."""
    n = len(pair_kinds)
    if n < 2:
        return None
    best = None
    for line in _lines_of(trumps, options)[suit]:
        position = line.position
        levels = []
        for kind in pair_kinds:
            level = position.get(kind)
            if level is None:
                break
            levels.append(level)
        else:
            low, high = min(levels), max(levels)
            if high - low == n - 1 and len(set(levels)) == n:
                top = line.values[high]
                if best is None or top > best:
                    best = top
    return best


def classify(cards: Sequence[int], trumps: Trumps, options: Options) -> Combo | None:
    """The combination `cards` form, or None when they are not a single, a pair or a tractor."""
    n = len(cards)
    if n == 0:
        return None
    follow = trumps.follow_suits
    if n == 1:
        return Combo("single", follow[cards[0]], 0, trumps.strengths[cards[0]])
    if n % 2:
        return None
    suit = follow[cards[0]]
    counts: dict[int, int] = {}
    for c in cards:
        if follow[c] != suit:
            return None
        counts[c] = counts.get(c, 0) + 1
    if any(count != 2 for count in counts.values()):
        return None
    if n == 2:
        return Combo("pair", suit, 1, trumps.strengths[cards[0]])
    top = tractor_top(list(counts), suit, trumps, options)
    return None if top is None else Combo("tractor", suit, n // 2, top)


def pairs_in(cards: Iterable[int]) -> tuple[Card, ...]:
    """One card of each kind that `cards` hold twice, by card id."""
    counts = [0] * KINDS
    for c in cards:
        counts[c] += 1
    return tuple(CARDS[k] for k in range(KINDS) if counts[k] >= 2)


def _runs(
    pair_kinds: set[int], suit: int, trumps: Trumps, options: Options, length: int
) -> Iterator[tuple[int, ...]]:
    """Every run of `length` held pairs, as tuples of kinds (may repeat across lines)."""
    for line in _lines_of(trumps, options)[suit]:
        held = [[k for k in kinds if k in pair_kinds] for kinds in line.levels]
        for start in range(len(held) - length + 1):
            window = held[start : start + length]
            if all(window):
                yield from itertools.product(*window)


def tractors_in(
    cards: Iterable[int], trumps: Trumps, options: Options, pairs: int | None = None
) -> list[tuple[Card, ...]]:
    """Every distinct tractor `cards` contain (of exactly `pairs` pairs if given, else of any
    length), each as its cards sorted by id."""
    held: tuple[int, ...] = pairs_in(cards)
    follow = trumps.follow_suits
    found: set[tuple[int, ...]] = set()
    for suit in (*SUITS, TRUMP):
        kinds = {k for k in held if follow[k] == suit}
        if len(kinds) < 2:
            continue
        lengths = [pairs] if pairs is not None else range(2, len(kinds) + 1)
        for length in lengths:
            for run in _runs(kinds, suit, trumps, options, length):
                found.add(tuple(sorted(run)))
    return [tuple(CARDS[k] for k in run for _ in (0, 1)) for run in sorted(found)]


def longest_tractor(pair_kinds: Iterable[int], suit: int, trumps: Trumps, options: Options) -> int:
    """The most pairs in one tractor made of the held `pair_kinds` of follow suit `suit` (0 or 1
    when they form no tractor)."""
    held = set(pair_kinds)
    best = 1 if held else 0
    for line in _lines_of(trumps, options)[suit]:
        run = 0
        for kinds in line.levels:
            if any(k in held for k in kinds):
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
    return best


def components(cards: Sequence[int], trumps: Trumps, options: Options) -> tuple[tuple[Combo, tuple[Card, ...]], ...] | None:
    """How a play of one suit splits into combinations (for 甩牌, several led at once): the
    longest tractors first (the highest among equals), then pairs, then singles; each as
    `(combo, its cards)`, largest and highest first. None when the cards are not of one suit."""
    if not cards:
        return None
    follow = trumps.follow_suits
    suit = follow[cards[0]]
    if any(follow[c] != suit for c in cards):
        return None
    counts: dict[int, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    strength = trumps.strengths
    pairs = {k for k, n in counts.items() if n == 2}
    found: list[tuple[Combo, tuple[Card, ...]]] = []
    while len(pairs) >= 2:
        best: tuple[int, tuple[int, ...]] | None = None
        for length in range(len(pairs), 1, -1):
            for run in _runs(pairs, suit, trumps, options, length):
                top = tractor_top(run, suit, trumps, options)
                if top is not None and (best is None or top > best[0]):
                    best = (top, run)
            if best is not None:
                break
        if best is None:
            break
        top, run = best
        pairs.difference_update(run)
        found.append((Combo("tractor", suit, len(run), top), tuple(CARDS[k] for k in sorted(run) for _ in (0, 1))))
    for k in pairs:
        found.append((Combo("pair", suit, 1, strength[k]), (CARDS[k], CARDS[k])))
    for k, n in counts.items():
        if n == 1:
            found.append((Combo("single", suit, 0, strength[k]), (CARDS[k],)))
    found.sort(key=lambda part: (-part[0].size, -part[0].top, part[1]))
    return tuple(found)


def cover(
    shape: Sequence[Combo], cards: Sequence[int], trumps: Trumps, options: Options
) -> tuple[int, tuple[Card, ...]] | None:
    """Take from `cards` one combination for each part of a throw's `shape` (largest first),
    each the highest of its shape still free: `(top of the first one, the cards taken)`, or None
    when the cards cannot supply every part. A tractor supplies pairs, a pair singles."""
    follow = trumps.follow_suits
    strength = trumps.strengths
    left: dict[int, int] = {}
    for c in cards:
        left[c] = left.get(c, 0) + 1
    taken: list[int] = []
    first: int | None = None
    run: tuple[int, ...]
    for part in shape:
        if part.kind == "single":
            held = [k for k, n in left.items() if n]
            pick = max(held, key=lambda k: (strength[k], k), default=None)
            top, run = (strength[pick], (pick,)) if pick is not None else (0, ())
        elif part.kind == "pair":
            held = [k for k, n in left.items() if n == 2]
            pick = max(held, key=lambda k: (strength[k], k), default=None)
            top, run = (strength[pick], (pick, pick)) if pick is not None else (0, ())
        else:
            top, run = 0, ()
            pairs = {k for k, n in left.items() if n == 2}
            for suit in {follow[k] for k in pairs}:
                for found in _runs(pairs, suit, trumps, options, part.pairs):
                    found_top = tractor_top(found, suit, trumps, options)
                    if found_top is not None and (found_top, found) > (top, run[::2]):
                        top, run = found_top, tuple(k for k in found for _ in (0, 1))
        if not run:
            return None
        for k in run:
            left[k] -= 1
        taken.extend(run)
        if first is None:
            first = top
    assert first is not None
    return first, tuple(CARDS[k] for k in sorted(taken))
