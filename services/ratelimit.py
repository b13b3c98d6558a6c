"""Per-player rate limits, kept in each node's memory.

A token bucket per player: cheap enough to sit in front of every call (no round trip to Redis on
the hot path). With several nodes a player's budget is per node, which still bounds what one
player can cost each node.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class RateLimiter:
    """`rate` calls per second per key, with bursts up to `burst`."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic,
                 max_keys: int = 100_000) -> None:
        self.rate, self.burst, self.clock, self.max_keys = rate, burst, clock, max_keys
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, key: str) -> bool:
        """Take one token from `key`'s bucket; False when it is empty."""
        now = self.clock()
        tokens, last = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return False
        if len(self._buckets) >= self.max_keys and key not in self._buckets:
            self._buckets.clear()  # forgetting idle players only ever errs on the generous side
        self._buckets[key] = (tokens - 1, now)
        return True
