"""Where rooms live: one interface, kept in memory (the embedded default) or in Redis.

A store knows nothing of the rules (services/matchmaking/room.py); it swaps one version of a
room for the next atomically (compare-and-set on the version), so two joins racing for the
last seat never both get it: one swap wins, the other re-reads and tries again. It keeps each
room's recent versions so a watcher sees every change, in order.
"""

from __future__ import annotations

import asyncio
import collections
from abc import ABC, abstractmethod
from typing import Any

from services.matchmaking.room import Room, RoomState

HISTORY = 200
"""Versions kept per room for watchers; one that falls further behind re-reads the room."""

LINGER_MS = 10 * 60 * 1000
"""How long a closed or expired room stays readable (a watcher sees how it ended) before a
store may forget it."""


MAX_REQUESTS = 100_000
"""CreateRoom request ids a memory store remembers."""


def holds_code(room: Room, now_ms: int) -> bool:
    """Whether `room` still keeps its code from a new room."""
    return room.state is not RoomState.CLOSED and now_ms < room.expires_at_ms


class RoomStore(ABC):
    """The rooms of one deployment."""

    @abstractmethod
    async def get(self, code: str) -> Room | None:
        """The room under `code` (live, or closed and not yet forgotten), or None."""

    @abstractmethod
    async def create(self, room: Room, now_ms: int) -> bool:
        """Store a new room under its code unless a live room holds that code; True if stored."""

    @abstractmethod
    async def swap(self, before: Room, after: Room) -> bool:
        """Replace `before` by `after` if the stored room is still `before` (same incarnation,
        same version); False when someone changed it first (re-read and retry)."""

    @abstractmethod
    async def history(self, code: str, room_id: str, after_version: int) -> list[Room] | None:
        """The versions of room `room_id` after `after_version`, in order; None when some of
        them are no longer kept (or the code holds another room now): re-read the room."""

    @abstractmethod
    async def wait(self, code: str, after_version: int, timeout_s: float) -> None:
        """Return when the room may have changed past `after_version`, or after `timeout_s`."""

    @abstractmethod
    async def claim_request(self, key: str, code: str, ttl_ms: int) -> str:
        """Remember that request `key` made room `code`, unless it is remembered already; the
        code remembered (so a retried CreateRoom finds the room it made)."""

    @abstractmethod
    async def request(self, key: str) -> str | None:
        """The code of the room request `key` made, if it made one."""

    @abstractmethod
    async def track_start(self, code: str, until_ms: int) -> None:
        """Note that room `code` is (about to be) starting under a lease until `until_ms`, so
        every process can find the starts whose process died (written before the room)."""

    @abstractmethod
    async def untrack_start(self, code: str) -> None:
        """Room `code` is no longer starting (started, or its start failed)."""

    @abstractmethod
    async def stale_starts(self, now_ms: int, limit: int) -> list[str]:
        """Codes noted as starting whose lease ran out by `now_ms` (check the room itself)."""

    @abstractmethod
    async def seat_players(self, table_id: str, players: list[str], ttl_ms: int) -> None:
        """Remember that `players` sit at `table_id` (a started room's table), for `ttl_ms`."""

    @abstractmethod
    async def table_of(self, player_id: str) -> str | None:
        """The table of the last room the player started in, if remembered."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections."""


class MemoryRoomStore(RoomStore):
    """Rooms in this process (one node: `make run`)."""

    def __init__(self) -> None:
        self._rooms: dict[str, Room] = {}
        self._logs: dict[str, collections.deque[Room]] = {}
        self._requests: dict[str, str] = {}
        self._starts: dict[str, int] = {}
        self._seats: dict[str, str] = {}
        self._changed = asyncio.Condition()

    async def get(self, code: str) -> Room | None:
        return self._rooms.get(code)

    async def create(self, room: Room, now_ms: int) -> bool:
        held = self._rooms.get(room.code)
        if held is not None and holds_code(held, now_ms):
            return False
        self._forget_old(now_ms)
        self._rooms[room.code] = room
        self._logs[room.code] = collections.deque([room], maxlen=HISTORY)
        await self._notify()
        return True

    async def swap(self, before: Room, after: Room) -> bool:
        held = self._rooms.get(before.code)
        if held is None or held.room_id != before.room_id or held.version != before.version:
            return False
        if after == before:
            return True
        self._rooms[after.code] = after
        self._logs[after.code].append(after)
        await self._notify()
        return True

    async def history(self, code: str, room_id: str, after_version: int) -> list[Room] | None:
        log = self._logs.get(code)
        if not log or log[0].room_id != room_id:
            return None
        if log[0].version > after_version + 1:
            return None
        return [r for r in log if r.version > after_version]

    async def wait(self, code: str, after_version: int, timeout_s: float) -> None:
        def moved() -> bool:
            room = self._rooms.get(code)
            return room is None or room.version > after_version

        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(moved), timeout_s)
            except TimeoutError:
                pass

    async def claim_request(self, key: str, code: str, ttl_ms: int) -> str:
        if len(self._requests) >= MAX_REQUESTS and key not in self._requests:
            # Forget the oldest half: a request retried after that long makes a second room,
            # which is all forgetting costs.
            for old in list(self._requests)[: MAX_REQUESTS // 2]:
                del self._requests[old]
        return self._requests.setdefault(key, code)

    async def request(self, key: str) -> str | None:
        return self._requests.get(key)

    async def track_start(self, code: str, until_ms: int) -> None:
        self._starts[code] = until_ms

    async def untrack_start(self, code: str) -> None:
        self._starts.pop(code, None)

    async def stale_starts(self, now_ms: int, limit: int) -> list[str]:
        return [c for c, until in self._starts.items() if until <= now_ms][:limit]

    async def seat_players(self, table_id: str, players: list[str], ttl_ms: int) -> None:
        if len(self._seats) >= MAX_REQUESTS:
            self._seats.clear()  # forgetting costs a player queueing while still seated
        self._seats.update(dict.fromkeys(players, table_id))

    async def table_of(self, player_id: str) -> str | None:
        return self._seats.get(player_id)

    async def close(self) -> None:
        self._rooms.clear()

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def _forget_old(self, now_ms: int) -> None:
        """Drop rooms closed (or expired) more than LINGER_MS ago: memory stays bounded by the
        rooms in use."""
        old = [c for c, r in self._rooms.items() if now_ms > r.expires_at_ms + LINGER_MS]
        for code in old:
            del self._rooms[code]
            self._logs.pop(code, None)


def open_room_store(url: str, namespace: str = "qipai", **options: Any) -> RoomStore:
    """A room store for the live-state URL (`memory://`, `redis://…`, `redis+cluster://…`)."""
    if url.split("://", 1)[0].lower() == "memory":
        return MemoryRoomStore()
    from services.matchmaking.room_store_redis import RedisRoomStore

    return RedisRoomStore(url, namespace, **options)
