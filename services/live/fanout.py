"""Per-node fan-out of Redis table streams to local listeners, over a few blocking connections.

One blocking XREAD per listener would hold one Redis connection per watching client (thousands
per node, against Redis's default limit of 10,000 clients). Instead a few reader tasks each
XREAD up to `group_size` table streams at once and copy every message to the bounded queue of
each local listener of that table. A listener first catches up with XRANGE (it joins the reader
before that read, so nothing falls between the two), and one that falls more than a queue behind
catches up the same way instead of growing memory. A table new to a reader joins its next
XREAD, so its first live message may wait up to one block (`block_ms`, 100 ms by default).

A multi-key XREAD may only name keys of one hash slot on Redis Cluster, so each reader holds
the streams of one slot (`slot(key)`; constant on a single server, where any streams share a
reader). The live state puts the streams in a few shared slots to keep the readers few.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from services.live.base import LiveStateUnavailable, Published, wall_clock_ms
from services.live.connection import Connection
from services.observability import FANOUT_LAG

_BATCH = 100


@dataclass(eq=False)
class _Listener:
    queue: asyncio.Queue[Published | None]
    behind: bool = False
    error: BaseException | None = None

    def offer(self, message: Published) -> None:
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.behind = True

    def fail(self, error: BaseException) -> None:
        self.error = error
        # A full queue means the listener is not waiting: it sees the error before its next get.
        if not self.queue.full():
            self.queue.put_nowait(None)


@dataclass(eq=False)
class _Reader:
    """One blocking connection's worth of table streams: key -> last version read."""

    slot: int
    cursors: dict[str, int] = field(default_factory=dict)
    listeners: dict[str, set[_Listener]] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None


class StreamFanOut:
    """Shares a few blocking stream reads between every listener of this process."""

    def __init__(
        self,
        connection: Connection,
        guard: Callable[[], AbstractContextManager[None]],
        *,
        block_ms: int,
        group_size: int = 256,
        queue_size: int = 1024,
    ) -> None:
        self._connection = connection
        self._guard = guard
        self._block_ms = block_ms
        self._group_size = group_size
        self._queue_size = queue_size
        self._readers: list[_Reader] = []

    async def listen(self, key: str, after_version: int) -> AsyncIterator[Published]:
        """Every message of stream `key` above `after_version`, in order, live."""
        listener = _Listener(asyncio.Queue(self._queue_size))
        reader = self._join(key, listener, after_version)
        last = after_version
        caught_up = False
        try:
            while True:
                if listener.error is not None:
                    raise listener.error
                if not caught_up or listener.behind:
                    # Read what the stream already holds: at the start, and after an overflow.
                    listener.behind = False
                    while not listener.queue.empty():
                        listener.queue.get_nowait()
                    for message in await self._range(key, last):
                        last = message.version
                        yield message
                    caught_up = True
                    continue
                item = await listener.queue.get()
                if item is not None and item.version > last:
                    last = item.version
                    yield item
        finally:
            self._leave(reader, key, listener)

    async def close(self) -> None:
        """Stop every reader; their listeners raise LiveStateUnavailable."""
        readers, self._readers = self._readers, []
        for reader in readers:
            self._fail(reader, LiveStateUnavailable("live state closed"))
            if reader.task is not None:
                reader.task.cancel()
        await asyncio.gather(*(r.task for r in readers if r.task), return_exceptions=True)

    async def _range(self, key: str, after: int) -> list[Published]:
        out: list[Published] = []
        while True:
            with self._guard():
                entries = await self._connection.client.xrange(key, min=f"({after}-0", count=1000)
            out.extend(_published(entries))
            if len(entries) < 1000:
                return out
            after = out[-1].version

    def _join(self, key: str, listener: _Listener, after_version: int) -> _Reader:
        reader = next((r for r in self._readers if key in r.cursors), None)
        if reader is None:
            slot = self._connection.slot(key)
            reader = next((r for r in self._readers
                           if r.slot == slot and len(r.cursors) < self._group_size), None)
            if reader is None:
                reader = _Reader(slot)
                self._readers.append(reader)
            reader.cursors[key] = after_version
        reader.listeners.setdefault(key, set()).add(listener)
        if reader.task is None or reader.task.done():
            reader.task = asyncio.create_task(self._read(reader), name=f"fan-out {key}")
        return reader

    def _leave(self, reader: _Reader, key: str, listener: _Listener) -> None:
        listeners = reader.listeners.get(key)
        if listeners is None:
            return
        listeners.discard(listener)
        if not listeners:
            del reader.listeners[key]
            reader.cursors.pop(key, None)

    async def _read(self, reader: _Reader) -> None:
        try:
            while reader.cursors:
                streams = {key: f"{cursor}-0" for key, cursor in reader.cursors.items()}
                with self._guard():
                    answer = await self._connection.xread(streams, _BATCH, self._block_ms)
                for raw_key, entries in answer or ():
                    key = raw_key.decode()
                    if key not in reader.cursors:
                        continue
                    _observe_lag(entries)
                    messages = _published(entries)
                    reader.cursors[key] = max(reader.cursors[key], messages[-1].version)
                    for listener in reader.listeners.get(key, ()):
                        for message in messages:
                            listener.offer(message)
        except Exception as error:
            self._fail(reader, error)
        finally:
            if reader in self._readers and not reader.cursors:
                self._readers.remove(reader)

    @staticmethod
    def _fail(reader: _Reader, error: BaseException) -> None:
        for listeners in reader.listeners.values():
            for listener in listeners:
                listener.fail(error)
        reader.cursors.clear()
        reader.listeners.clear()


def _observe_lag(entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
    """Record how long each message took from its publisher to this node (live reads only: a
    catch-up read of older messages would count their age, not the fan-out's delay)."""
    now_ms = wall_clock_ms()
    for _, fields in entries:
        published_ms = fields.get(b"t")
        if published_ms is not None:
            FANOUT_LAG.observe(max(0, now_ms - int(published_ms)) / 1000)


def _published(entries: list[tuple[bytes, dict[bytes, bytes]]]) -> list[Published]:
    return [
        Published(int(entry_id.split(b"-", 1)[0]), bytes(fields[b"d"]))
        for entry_id, fields in entries
    ]
