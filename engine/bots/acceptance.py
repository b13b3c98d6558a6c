"""受入 (effective tiles): how many live tiles would bring a hand one step closer to ready.

Only a tile that can share a set with a held tile (the same kind, or within two in its suit) can
lower the shanten of a hand that still has tiles in every slot, so only those are tried."""

from __future__ import annotations

from collections.abc import Callable, Sequence

Shanten = Callable[[Sequence[int], int, int], int]


def _near(t: int) -> range | tuple[int, ...]:
    if t >= 27:
        return (t,)
    low = t - t % 9
    return range(max(low, t - 2), min(low + 8, t + 2) + 1)


def candidates(c: Sequence[int]) -> list[int]:
    """The kinds a draw may usefully be: neighbours of held tiles (every kind for a hand of a few
    tiles, whose empty slots any tile fills)."""
    if sum(c) <= 4:
        return list(range(34))
    seen: set[int] = set()
    for t, n in enumerate(c):
        if n:
            seen.update(_near(t))
    return sorted(seen)


def acceptance(c: list[int], wilds: int, melds: int, left: Sequence[int], now: int,
               shanten: Shanten) -> int:
    """Live copies (per `left`) of the kinds whose draw takes the 13-tile hand `c` below `now`."""
    total = 0
    for u in candidates(c):
        if not left[u] or c[u] >= 4:
            continue
        c[u] += 1
        if shanten(c, wilds, melds) < now:
            total += left[u]
        c[u] -= 1
    return total
