"""Counters (分牌): every 5 is worth 5 points, every 10 and K 10; 200 points in the two decks."""

from __future__ import annotations

from collections.abc import Iterable

from engine.daqi.cards import KINDS, rank_of

_VALUE = {5: 5, 10: 10, 13: 10}
POINTS: tuple[int, ...] = tuple(_VALUE.get(rank_of(k) or 0, 0) for k in range(KINDS))
"""The points of each card, indexed by card id."""


def points(cards: Iterable[int]) -> int:
    """The points the cards are worth."""
    return sum(POINTS[c] for c in cards)
