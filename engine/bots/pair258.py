"""Shanten when the pair must be a 2, 5 or 8 (二五八将, wuhan's 小胡): the plain shanten's slots,
with the pair slot held only by a 2, 5 or 8 of a suit (or left for a wild or a draw)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.mahjong.shanten import placed

KINDS_258 = tuple(s * 9 + n for s in range(3) for n in (1, 4, 7))


def shanten_258(counts34: Sequence[int], wilds: int = 0, melds: int = 0) -> int:
    """Tiles short of ready for a hand whose pair must be 2, 5 or 8: -1 complete, 0 ready."""
    sets = 4 - melds
    c = list(counts34)
    most = placed(c, sets, False)  # the pair left to a wild or to draws
    for p in KINDS_258:
        n = c[p]
        if not n:
            continue
        take = min(n, 2)
        c[p] -= take
        most = max(most, placed(c, sets, False) + take)
        c[p] += take
    return 14 - 3 * melds - most - wilds - 1
