"""Rooms in Redis (one server or a Redis Cluster), shared by every matchmaking node.

Keys (`ns` is the live-state namespace): `ns:room:{code}` — a hash holding the room (`d`, its
JSON), its incarnation (`id`), version (`v`), until when it holds its code (`x`) and whether
it closed (`c`), in the service's clock; `ns:room:{code}:log` — a stream of its versions for watchers (entry id
`<version>-0`); `ns:roomreq:{key}` — the room a CreateRoom request id made; `ns:roomstarts` — a sorted set of
the codes being started, by the end of their lease (one key: single-key commands only);
`ns:roomseat:{player}` — the table of the last room the player started in. A room's two keys
share the `{code}` hash tag, so each script below touches one slot (Redis Cluster). Both expire
a while after the room stops holding its code, so an abandoned room costs nothing for long.
"""

from __future__ import annotations

import asyncio
from typing import Any

from services.live.base import Clock, LiveStateUnavailable, wall_clock_ms
from services.live.connection import connect, redis_address, unreachable
from services.matchmaking.room import Room, RoomState, dumps, loads
from services.matchmaking.room_store import HISTORY, LINGER_MS, RoomStore

# A code is free when no room holds it, or the one there closed, or its expiry passed.
CREATE = """
local held = redis.call('HMGET', KEYS[1], 'x', 'c')
if held[1] and held[2] == '0' and tonumber(held[1]) > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'id', ARGV[2], 'v', ARGV[3], 'd', ARGV[4], 'x', ARGV[5], 'c', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[8], ARGV[3] .. '-0', 'd', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return 1
"""

# Compare-and-set: the stored room must still be the incarnation and version the caller read.
SWAP = """
local held = redis.call('HMGET', KEYS[1], 'id', 'v')
if held[1] ~= ARGV[1] or held[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[3], 'd', ARGV[4], 'x', ARGV[5], 'c', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[8], ARGV[3] .. '-0', 'd', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return 1
"""


class _Guard:
    """Turns connection failures into LiveStateUnavailable (UNAVAILABLE) naming the address."""

    def __init__(self, address: str) -> None:
        self.address = address

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: BaseException | None, tb: Any) -> None:
        if error is not None and unreachable(error):
            raise LiveStateUnavailable(
                f"rooms (Redis at {self.address}) are unreachable: {error}") from error


class RedisRoomStore(RoomStore):
    """Rooms in Redis; `poll_s` is how often a watcher looks for changes."""

    def __init__(self, url: str, namespace: str = "qipai", *, clock: Clock = wall_clock_ms,
                 poll_s: float = 0.1,
                 connect_timeout_s: float = 2.0, max_connections: int = 100) -> None:
        if any(c in namespace for c in "{}*?[]"):
            raise ValueError(f"namespace {namespace!r} may not contain braces or glob characters")
        self.namespace = namespace
        self.poll_s = poll_s
        self._clock = clock
        self._guard = _Guard(redis_address(url))
        self._connection = connect(url, connect_timeout_s=connect_timeout_s, socket_timeout_s=5.0,
                                   max_connections=max_connections)
        self._client: Any = self._connection.client
        self._create = self._client.register_script(CREATE)
        self._swap = self._client.register_script(SWAP)
        self._starts = f"{namespace}:roomstarts"

    def _keys(self, code: str) -> list[str]:
        room = f"{self.namespace}:room:{{{code}}}"
        return [room, room + ":log"]

    def _fields(self, room: Room) -> list[Any]:
        closed = room.state is RoomState.CLOSED
        ttl_ms = max(1, room.expires_at_ms + LINGER_MS - self._clock())
        return [room.version, dumps(room), room.expires_at_ms, int(closed), ttl_ms, HISTORY]

    async def get(self, code: str) -> Room | None:
        with self._guard:
            data = await self._client.hget(self._keys(code)[0], "d")
        return None if data is None else loads(data)

    async def create(self, room: Room, now_ms: int) -> bool:
        with self._guard:
            stored = await self._create(keys=self._keys(room.code),
                                        args=[now_ms, room.room_id, *self._fields(room)])
        return bool(stored)

    async def swap(self, before: Room, after: Room) -> bool:
        if after == before:
            current = await self.get(before.code)
            return current is not None and (current.room_id, current.version) == (
                before.room_id, before.version)
        with self._guard:
            stored = await self._swap(keys=self._keys(before.code),
                                      args=[before.room_id, before.version, *self._fields(after)])
        return bool(stored)

    async def history(self, code: str, room_id: str, after_version: int) -> list[Room] | None:
        with self._guard:
            entries = await self._client.xrange(self._keys(code)[1], min=f"{after_version + 1}-0")
        rooms = [loads(fields[b"d"]) for _, fields in entries]
        if not rooms:
            current = await self.get(code)
            if current is None or current.room_id != room_id or current.version > after_version:
                return None
            return []
        if rooms[0].version > after_version + 1 or any(r.room_id != room_id for r in rooms):
            return None
        return rooms

    async def wait(self, code: str, after_version: int, timeout_s: float) -> None:
        # A short poll, not a blocking read: a lobby holds no connection while it waits.
        await asyncio.sleep(min(timeout_s, self.poll_s))

    async def claim_request(self, key: str, code: str, ttl_ms: int) -> str:
        name = f"{self.namespace}:roomreq:{{{key}}}"
        with self._guard:
            if await self._client.set(name, code, nx=True, px=ttl_ms):
                return code
            held = await self._client.get(name)
        return code if held is None else bytes(held).decode()

    async def request(self, key: str) -> str | None:
        with self._guard:
            held = await self._client.get(f"{self.namespace}:roomreq:{{{key}}}")
        return None if held is None else bytes(held).decode()

    async def track_start(self, code: str, until_ms: int) -> None:
        with self._guard:
            await self._client.zadd(self._starts, {code: until_ms})

    async def untrack_start(self, code: str) -> None:
        with self._guard:
            await self._client.zrem(self._starts, code)

    async def stale_starts(self, now_ms: int, limit: int) -> list[str]:
        with self._guard:
            codes = await self._client.zrangebyscore(self._starts, "-inf", now_ms, start=0, num=limit)
        return [c.decode() if isinstance(c, bytes) else str(c) for c in codes]

    async def seat_players(self, table_id: str, players: list[str], ttl_ms: int) -> None:
        with self._guard:
            for player in players:  # one key per player: each in its own slot
                await self._client.set(f"{self.namespace}:roomseat:{{{player}}}", table_id, px=ttl_ms)

    async def table_of(self, player_id: str) -> str | None:
        with self._guard:
            held = await self._client.get(f"{self.namespace}:roomseat:{{{player_id}}}")
        return None if held is None else bytes(held).decode()

    async def close(self) -> None:
        await self._connection.close()
