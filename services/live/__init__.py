"""Live state: the fast, shared, disposable side of the game service (Redis, or memory embedded)."""

from __future__ import annotations

from typing import Any

from services.live.base import (
    Clock,
    Deadline,
    Holder,
    Lease,
    LiveState,
    LiveStateUnavailable,
    Published,
    Turn,
    View,
    wall_clock_ms,
)

__all__ = [
    "Clock",
    "Deadline",
    "Holder",
    "Lease",
    "LiveState",
    "LiveStateUnavailable",
    "Published",
    "Turn",
    "View",
    "open_live_state",
    "wall_clock_ms",
]


def open_live_state(url: str, *, namespace: str = "qipai", **options: Any) -> LiveState:
    """Live state for `memory://`, `redis://` / `rediss://` / `unix://` (one Redis server) or
    `redis+cluster://host:port,…` / `rediss+cluster://…` (a Redis Cluster) URLs.

    Options go to the backend (`clock`, `stream_maxlen`; Redis also `idle_ttl_ms`,
    `listen_block_ms`, `connect_timeout_s`). Nothing connects until the first call.
    """
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme == "memory":
        from services.live.memory import MemoryLiveState

        return MemoryLiveState(namespace, **options)
    if scheme in ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster"):
        from services.live.redis import RedisLiveState

        return RedisLiveState(url, namespace, **options)
    raise ValueError(
        f"unknown live state URL scheme {scheme or url!r}: use memory://, redis:// or redis+cluster://"
    )
