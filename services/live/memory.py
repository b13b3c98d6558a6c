"""The in-memory twin of the Redis live state: one process, same contract (embedded default)."""

from __future__ import annotations

import asyncio
import heapq
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from services.live.base import (
    Claim,
    Clock,
    Deadline,
    DueWatch,
    Holder,
    Lease,
    LiveState,
    LiveStateUnavailable,
    Published,
    Turn,
    View,
    check_min_token,
    check_ttl,
    check_version,
    next_token,
    wall_clock_ms,
)


@dataclass
class _Stream:
    """A table's fan-out: the newest messages plus the highest version ever appended."""

    entries: deque[Published]
    top: int = 0
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)


class MemoryLiveState(LiveState):
    """Live state held in this process; time-based expiry follows the injected clock."""

    def __init__(
        self, namespace: str = "qipai", *, clock: Clock = wall_clock_ms, stream_maxlen: int = 1000
    ) -> None:
        self.namespace = namespace
        self._clock = clock
        self._maxlen = stream_maxlen
        self._closed = False
        # Fencing counters survive flush_namespace: in one process they are lost only with the
        # process itself, and then no lease holder is left to fence.
        self._fences: dict[str, int] = {}
        self._reset()

    def _reset(self) -> None:
        self._views: dict[str, View] = {}
        self._streams: dict[str, _Stream] = {}
        self._leases: dict[str, tuple[Holder, int]] = {}
        self._nodes: dict[str, tuple[str, int]] = {}
        self._deadlines: dict[tuple[str, str], tuple[int, int, bytes]] = {}
        self._due_heap: list[tuple[int, int, str, str]] = []
        self._seq = 0
        self._live: set[str] = set()
        self._open: dict[str, set[str]] = {}
        self._calls: dict[str, deque[int]] = {}
        self._presence: dict[str, int] = {}

    # -- table view cache -------------------------------------------------------------------
    async def set_view(self, table_id: str, version: int, data: bytes) -> bool:
        current = self._views.get(table_id)
        if current is not None and current.version >= version:
            return False
        self._views[table_id] = View(version, bytes(data))
        return True

    async def get_view(self, table_id: str) -> View | None:
        return self._views.get(table_id)

    # -- fan-out ----------------------------------------------------------------------------
    def _stream(self, table_id: str) -> _Stream:
        stream = self._streams.get(table_id)
        if stream is None:
            stream = self._streams[table_id] = _Stream(deque(maxlen=self._maxlen))
        return stream

    async def publish(self, table_id: str, version: int, payload: bytes) -> bool:
        check_version(version)
        stream = self._stream(table_id)
        if version <= stream.top:
            return False
        stream.entries.append(Published(version, bytes(payload)))
        stream.top = version
        async with stream.changed:
            stream.changed.notify_all()
        return True

    async def update_table(
        self, table_id: str, events: Sequence[Published], view: View | None = None,
        turn: Turn | None = None, *, then: Sequence[Published] = (),
    ) -> int:
        for event in (*events, *then):
            check_version(event.version)
        appended = [await self.publish(table_id, e.version, e.payload) for e in (*events, *then)]
        if view is not None:
            await self.set_view(table_id, view.version, view.data)
        if turn is not None and turn.due_ms is None:
            await self.cancel(table_id, turn.key)
        elif turn is not None and turn.due_ms is not None:
            await self.schedule(table_id, turn.key, turn.due_ms, turn.payload)
        return sum(appended)

    async def listen(self, table_id: str, after_version: int) -> AsyncIterator[Published]:
        last = after_version
        while True:
            if self._closed:
                raise LiveStateUnavailable("live state closed")
            stream = self._stream(table_id)
            fresh = [entry for entry in stream.entries if entry.version > last]
            if not fresh:

                def moved(s: _Stream = stream, seen: int = last) -> bool:
                    # flush_namespace replaces the stream: wait on the new one from then on.
                    replaced = self._streams.get(table_id) is not s
                    return s.top > seen or replaced or self._closed

                async with stream.changed:
                    await stream.changed.wait_for(moved)
                continue
            for entry in fresh:
                yield entry
                last = entry.version

    # -- single-writer lease ----------------------------------------------------------------
    def _holder(self, table_id: str) -> Holder | None:
        held = self._leases.get(table_id)
        if held is None:
            return None
        holder, expires = held
        if expires <= self._clock():
            del self._leases[table_id]
            return None
        return holder

    async def acquire_lease(
        self, table_id: str, node_id: str, ttl_ms: int, min_token: int = 0
    ) -> Lease | None:
        check_ttl(ttl_ms)
        check_min_token(min_token)
        if self._holder(table_id) is not None:
            return None
        now = self._clock()
        token = next_token(self._fences.get(table_id, 0), min_token, now * 1000)
        self._fences[table_id] = token
        self._leases[table_id] = (Holder(node_id, token), now + ttl_ms)
        return Lease(table_id, node_id, token)

    async def renew(self, lease: Lease, ttl_ms: int) -> bool:
        check_ttl(ttl_ms)
        if self._holder(lease.table_id) != (lease.node_id, lease.token):
            return False
        self._leases[lease.table_id] = (Holder(lease.node_id, lease.token), self._clock() + ttl_ms)
        return True

    async def release(self, lease: Lease) -> bool:
        if self._holder(lease.table_id) != (lease.node_id, lease.token):
            return False
        del self._leases[lease.table_id]
        return True

    async def lease_holder(self, table_id: str) -> Holder | None:
        return self._holder(table_id)

    # -- node registry ----------------------------------------------------------------------
    async def register_node(self, node_id: str, address: str, ttl_ms: int) -> None:
        check_ttl(ttl_ms)
        self._nodes[node_id] = (address, self._clock() + ttl_ms)

    async def deregister_node(self, node_id: str) -> None:
        self._nodes.pop(node_id, None)

    async def node_address(self, node_id: str) -> str | None:
        entry = self._nodes.get(node_id)
        if entry is None or entry[1] <= self._clock():
            return None
        return entry[0]

    async def live_nodes(self) -> list[str]:
        now = self._clock()
        return sorted(node for node, (_, expires) in self._nodes.items() if expires > now)

    # -- deadlines --------------------------------------------------------------------------
    async def schedule(self, table_id: str, key: str, due_ms: int, payload: bytes) -> None:
        self._scheduling(due_ms)
        heapq.heappush(self._due_heap, self._put_deadline(table_id, key, due_ms, payload))

    def _put_deadline(
        self, table_id: str, key: str, due_ms: int, payload: bytes
    ) -> tuple[int, int, str, str]:
        """Record the deadline; returns its heap entry (replaced or cancelled entries stay in
        the heap and are skipped by their stale seq)."""
        self._seq += 1
        self._deadlines[(table_id, key)] = (due_ms, self._seq, bytes(payload))
        return (due_ms, self._seq, table_id, key)

    async def cancel(self, table_id: str, key: str | None = None) -> int:
        if key is not None:
            return 1 if self._deadlines.pop((table_id, key), None) is not None else 0
        mine = [k for k in self._deadlines if k[0] == table_id]
        for k in mine:
            del self._deadlines[k]
        return len(mine)

    async def claim_due(
        self,
        now_ms: int,
        limit: int,
        node_id: str | None = None,
        redeliver_after_ms: int | None = None,
        watch: DueWatch | None = None,
    ) -> list[Deadline]:
        claimed: list[Deadline] = []
        back_in_heap: list[tuple[int, int, str, str]] = []
        while self._due_heap and len(claimed) < limit and self._due_heap[0][0] <= now_ms:
            item = heapq.heappop(self._due_heap)
            due, seq, table_id, key = item
            entry = self._deadlines.get((table_id, key))
            if entry is None or entry[1] != seq:
                continue
            if node_id is not None:
                holder = self._holder(table_id)
                if holder is None or holder.node_id != node_id:
                    back_in_heap.append(item)
                    continue
            claimed.append(Deadline(table_id, key, entry[2]))
            if redeliver_after_ms is None:
                del self._deadlines[(table_id, key)]
            else:
                back_in_heap.append(
                    self._put_deadline(table_id, key, now_ms + max(1, redeliver_after_ms), entry[2])
                )
        for item in back_in_heap:
            heapq.heappush(self._due_heap, item)
        if watch is not None:
            # The heap's head may be a replaced or cancelled entry: a look too early is harmless.
            watch.next_ms = None
            if self._due_heap:
                watch.lower(self._due_heap[0][0])
        return claimed

    # -- live tables index ------------------------------------------------------------------
    async def mark_live(self, table_id: str) -> None:
        self._live.add(table_id)

    async def unmark_live(self, table_id: str) -> None:
        self._live.discard(table_id)

    async def live_tables(self) -> list[str]:
        return sorted(self._live)

    async def claim_open_table(self, player_id: str, table_id: str, limit: int) -> Claim:
        tables = self._open.setdefault(player_id, set())
        if table_id in tables:
            return Claim.HELD
        if len(tables) >= limit:
            return Claim.REFUSED
        tables.add(table_id)
        return Claim.ADDED

    async def remove_open_table(self, player_id: str, table_id: str) -> None:
        tables = self._open.get(player_id)
        if tables is not None:
            tables.discard(table_id)
            if not tables:
                del self._open[player_id]

    async def open_tables(self, player_id: str) -> list[str]:
        return sorted(self._open.get(player_id, ()))

    async def drop_table(self, table_id: str) -> None:
        self._views.pop(table_id, None)
        stream = self._streams.pop(table_id, None)
        if stream is not None:
            async with stream.changed:
                stream.changed.notify_all()
        await self.cancel(table_id)
        self._live.discard(table_id)

    # -- rate limits and presence -----------------------------------------------------------
    async def allow(self, key: str, limit: int, window_ms: int) -> bool:
        now = self._clock()
        calls = self._calls.setdefault(key, deque())
        while calls and calls[0] <= now - window_ms:
            calls.popleft()
        if len(calls) >= limit:
            return False
        calls.append(now)
        return True

    async def touch_presence(self, player_id: str, ttl_ms: int) -> None:
        check_ttl(ttl_ms)
        self._presence[player_id] = self._clock() + ttl_ms

    async def is_present(self, player_id: str) -> bool:
        return self._presence.get(player_id, 0) > self._clock()

    # -- housekeeping -----------------------------------------------------------------------
    async def ping(self) -> None:
        return None

    async def flush_namespace(self) -> None:
        streams = list(self._streams.values())
        self._reset()
        for stream in streams:
            async with stream.changed:
                stream.changed.notify_all()

    async def close(self) -> None:
        self._closed = True
        await self.flush_namespace()
