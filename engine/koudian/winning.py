"""Which hands win and what a ready hand waits on, under a table's options (seven pairs or not)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.mahjong import hand
from engine.mahjong.tiles import Tile, tile


def completes(counts: Sequence[int], melds: int, seven_pairs: bool) -> bool:
    """Whether 14 tiles (melds counted as sets) make a winning hand."""
    if hand.is_win(counts, 0, melds):
        return True
    return seven_pairs and melds == 0 and hand.seven_pairs(counts)


def waiting_on(counts: Sequence[int], melds: int, seven_pairs: bool, held: Sequence[int] = ()) -> tuple[Tile, ...]:
    """The tiles that complete this 13-tile hand, in tile order, leaving out any tile of which
    the seat already holds all four (`held`: counts of the seat's own tiles, melds included)."""
    found = set(hand.waits(counts, 0, melds))
    if seven_pairs and melds == 0:
        c = list(counts)
        for t in range(34):
            if c[t] % 2 == 1:  # only a single can be paired up
                c[t] += 1
                if hand.seven_pairs(c):
                    found.add(t)
                c[t] -= 1
    held = held or counts
    return tuple(tile(t) for t in sorted(found) if held[t] < 4)


def is_ready(counts: Sequence[int], melds: int, seven_pairs: bool, held: Sequence[int] = ()) -> bool:
    """Whether one tile would complete this 13-tile hand."""
    return bool(waiting_on(counts, melds, seven_pairs, held))
