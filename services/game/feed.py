"""The feed: every event of a table a seat may see, redacted, in batches — in-process from the
commands this node runs, else from the live state's fan-out, with the store filling any gap."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine import table as tables
from engine.core.messages import decode
from engine.table import Table
from services import json_text
from services.errors import Unavailable
from services.eventstore import NewEvent
from services.game.repository import TableNotFound, TableRepository
from services.live.base import LiveState, LiveStateUnavailable
from services.observability import log
from services.status import CUT_OFF

_compact = json_text.encoder(compact=True, allow_nan=True)


def encode_payload(version: int, ev: NewEvent, apart: bool = False, due_ms: int | None = None) -> bytes:
    """An event as fanned out to every node (unredacted: each watcher redacts for its seat),
    from its encoding for the store. `apart`: the first event of a batch that goes apart
    (Batch.apart), so that watchers on other nodes split there too. `due_ms`: on the last event
    of an update (Batch.due_ms), when the table's pending decision times out as views show it."""
    msg: dict[str, Any] = {"version": version, "type": ev.type, "schema": ev.schema_version, "data": ev.data}
    if apart:
        msg["apart"] = 1
    if due_ms is not None:
        msg["due"] = due_ms
    return _compact(msg).encode()


def decode_payload(payload: bytes) -> tuple[int, Any]:
    version, ev, _, _ = _decoded(payload)
    return version, ev


def _decoded(payload: bytes) -> tuple[int, Any, bool, int | None]:
    msg = json.loads(payload)
    return (msg["version"], decode(msg["type"], msg["schema"], msg["data"]), bool(msg.get("apart")),
            msg.get("due"))


@dataclass(frozen=True, slots=True)
class Batch:
    """What one command (or a stretch of history) added to a table, as a watcher receives it:
    the table's version after it, the events (version, event), the whole table after them, and
    who sent the command ("" when unknown: history, or another node's command)."""

    version: int
    events: list[tuple[int, Any]]
    table: Table
    actor: str = ""
    # Shared by every watcher of one command on this node: an event is put into words once for
    # all who see it alike (keyed by id, holding the event so that the id stays its own, and by
    # the event itself for equal redactions).
    encoded: dict[Any, tuple[Any, Any]] = field(default_factory=dict, compare=False)
    # Never told in one update with the batch before it, even when both queued up for a busy
    # stream: a claim window's close (docs/hidden-information.md: the others see the discard
    # and the window, then what follows, whether or not somebody could claim).
    apart: bool = False
    # When the pending decision of `table` times out, as views show it (None: ask this node's
    # clock, which armed the table's latest version). Set where the batch's table is not the
    # latest: a command followed in the same append by the table's own step.
    due_ms: int | None = None


HISTORY_REUSE_S = 5.0  # how long a stretch of history read for one watcher serves others
MOVED = None  # told to local watchers when this node stops serving their table

# A watcher whose client does not read (its stream's flow-control window is full, so its writes
# wait) stops taking from its queue while the table goes on. So a queue holds at most this many
# batches (each holds a whole table) or fan-out messages: past it the queue is emptied at once,
# its memory returned, and the stream ends with FellBehind (UNAVAILABLE: the client watches
# again from the last version it got, as after any cut stream). A client that does not even
# take that status within CUT_OFF_S is cut off (its call cancelled). docs/operations.md.
WATCH_QUEUE_LIMIT = 1_000
CUT_OFF_S = 10.0


class FellBehind(Unavailable):
    """The watcher fell WATCH_QUEUE_LIMIT updates behind its table: watch again from the last
    version received."""


class _Tick:
    """A local watcher's own reminder, after `poll_s`, to check that this node still serves
    its table: one timer per quiet spell, not one per batch awaited."""


class _Overrun:
    """Put in a watcher's queue, alone, in place of all it held when it overflowed."""


TICK = _Tick()
OVERRUN = _Overrun()
T = TypeVar("T")


class WatchQueue(asyncio.Queue[T | _Overrun]):
    """One watcher's queue, bounded (WATCH_QUEUE_LIMIT): `offer` never blocks the table's
    writer, and on overflow gives the watcher OVERRUN alone (FellBehind)."""

    def __init__(self) -> None:
        super().__init__(WATCH_QUEUE_LIMIT + 1)  # + 1: room for OVERRUN, however full
        self.reader: asyncio.Task[Any] | None = None  # the watcher's stream, cut off if it never reads
        with contextlib.suppress(RuntimeError):  # made outside a loop: nothing to cut off
            self.reader = asyncio.current_task()
        self.overran = False

    def offer(self, item: T) -> None:
        """Queue `item`, unless this queue overflowed (then it is dropped: the watcher goes)."""
        if self.overran:
            return
        if self.qsize() < WATCH_QUEUE_LIMIT:
            self.put_nowait(item)
            return
        self.overran = True
        while not self.empty():
            self.get_nowait()  # the batches go now, not when the stream ends
        self.put_nowait(OVERRUN)
        log.info("watch_fell_behind", queued=WATCH_QUEUE_LIMIT)
        asyncio.get_running_loop().call_later(CUT_OFF_S, self._cut_off)

    def _cut_off(self) -> None:
        if not self.empty() and self.reader is not None:  # OVERRUN never taken: not reading
            self.reader.cancel(CUT_OFF)


Queue = WatchQueue[Batch | _Tick | None]


class LocalFeed:
    """In-process queues of the watchers of tables this node writes: each command's batch
    with no Redis round trip, no decoding, and the table state to compute a seat's view from."""

    def __init__(self) -> None:
        self._queues: dict[str, set[Queue]] = {}

    def subscribe(self, table_id: str) -> Queue:
        queue: Queue = WatchQueue()
        self._queues.setdefault(table_id, set()).add(queue)
        return queue

    def unsubscribe(self, table_id: str, queue: Queue) -> None:
        queues = self._queues.get(table_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._queues[table_id]

    def publish(self, table_id: str, batch: Batch | None) -> None:
        for queue in self._queues.get(table_id, ()):
            queue.offer(batch)

    def moved(self, table_id: str) -> None:
        """This node stopped serving `table_id`: its local watchers go to the fan-out."""
        self.publish(table_id, MOVED)

    def moved_all(self) -> None:
        for table_id in list(self._queues):
            self.moved(table_id)


# The table as of now and this node's queue for it, or None when another node serves it.
Subscribe = Callable[[str], Awaitable[tuple[Queue, Table] | None]]


class Watcher:
    """Watch streams: local while this node serves the table, remote otherwise."""

    def __init__(self, repository: TableRepository, live: LiveState, local: LocalFeed,
                 subscribe: Subscribe, serving: Callable[[str], bool],
                 learn_due: Callable[[Table, int], None] = lambda table, due_ms: None) -> None:
        self.repository, self.live, self.local = repository, live, local
        self._subscribe, self._serving, self._learn_due = subscribe, serving, learn_due
        self._reads: dict[tuple[str, int, int], asyncio.Future[list[tuple[int, Any]]]] = {}

    async def watch(self, table_id: str, seat: int | None, after_version: int,
                    poll_s: float = 5.0) -> AsyncIterator[Batch]:
        """Every event after `after_version` that `seat` may see, redacted, in batches (one per
        command, with the table after it; a batch may show this seat no event), first the
        history, then live.

        On the node that writes the table, batches come in-process; elsewhere (or once this node
        stops serving the table) from the Redis fan-out, with the table state folded here. A
        gap in the fan-out (trimmed, or live state lost) is filled from the store, and the store
        is asked anyway after `poll_s` without news, so nothing is missed or repeated.
        """
        last = after_version
        while True:
            local = await self._subscribe(table_id)
            if local is not None:
                queue, table = local
                try:
                    async for batch in self._watch_local(table_id, seat, last, queue, table, poll_s):
                        last = batch.version
                        yield batch
                finally:
                    self.local.unsubscribe(table_id, queue)
            async with contextlib.aclosing(self._watch_remote(table_id, seat, last, poll_s)) as remote:
                async for batch in remote:
                    last = batch.version
                    yield batch
                    if self._serving(table_id):
                        break  # this node took the table over: watch it in-process again

    async def _backfill(self, table: Table, seat: int | None, last: int) -> Batch:
        return Batch(table.version, shown(table, seat, await self._history(table.table_id, last + 1,
                                                                           table.version)), table)

    async def _history(self, table_id: str, first: int, last: int) -> list[tuple[int, Any]]:
        """Events `first`..`last` of a table, decoded. The seats of a table (re)connect
        together, at start or after their node changed, and ask for the same stretch: it is
        read and decoded once for all who ask within HISTORY_REUSE_S (events are immutable)."""
        key = (table_id, first, last)
        read = self._reads.get(key)
        if read is None:
            read = self._reads[key] = asyncio.ensure_future(self._read(table_id, first, last))

            def done(read: asyncio.Future[list[tuple[int, Any]]]) -> None:
                if read.cancelled() or read.exception() is not None:
                    self._reads.pop(key, None)
                else:
                    asyncio.get_running_loop().call_later(HISTORY_REUSE_S, self._reads.pop, key, None)

            read.add_done_callback(done)
        return await asyncio.shield(read)

    async def _read(self, table_id: str, first: int, last: int) -> list[tuple[int, Any]]:
        return [(r.version, r.decode()) for r in await self.repository.events(table_id, first, last)]

    async def _watch_local(self, table_id: str, seat: int | None, last: int, queue: Queue,
                           table: Table, poll_s: float) -> AsyncIterator[Batch]:
        if table.version > last:
            yield await self._backfill(table, seat, last)
            last = table.version
        loop = asyncio.get_running_loop()
        heard = loop.time()
        timer = loop.call_later(poll_s, queue.offer, TICK)
        stash: list[Batch | _Overrun | None] = []  # taken from the queue, told on its own next
        try:
            while True:
                batch = stash.pop() if stash else await queue.get()
                if isinstance(batch, _Overrun):
                    raise FellBehind(f"this stream fell {WATCH_QUEUE_LIMIT} updates behind")
                if isinstance(batch, _Tick):
                    quiet = loop.time() - heard
                    if quiet >= poll_s:
                        if not self._serving(table_id):
                            return
                        heard, quiet = loop.time(), 0.0
                    timer = loop.call_later(poll_s - quiet, queue.offer, TICK)
                    continue
                heard = loop.time()
                if batch is MOVED:
                    return
                if batch.version <= last:
                    continue
                # Batches arrive in commit order, each right after the one before. Those that
                # queued up while the stream was busy go out as one (a message per batch would
                # cost the most CPU exactly when the node has the least), up to a change of the
                # table's status (a seat is shown its view at each: a hand ended, one began),
                # and never into a batch that must go apart.
                events, actor = list(batch.events), batch.actor
                while not queue.empty():
                    more = queue.get_nowait()
                    if isinstance(more, _Tick):
                        timer = loop.call_later(poll_s, queue.offer, TICK)
                        continue
                    if (more is MOVED or isinstance(more, _Overrun) or more.apart
                            or more.table.status is not batch.table.status):
                        stash.append(more)
                        break
                    events += more.events
                    actor = actor if more.actor == actor else ""  # several senders: unknown
                    batch = more
                yield Batch(batch.version, shown(table, seat, events), batch.table, actor,
                            encoded=batch.encoded, due_ms=batch.due_ms)
                last = batch.version
        finally:
            timer.cancel()

    async def _watch_remote(self, table_id: str, seat: int | None, last: int,
                            poll_s: float) -> AsyncGenerator[Batch, None]:
        table = await self.repository.read(table_id)
        if not table.exists:
            raise TableNotFound(f"no table {table_id!r}")
        if table.version > last:
            yield await self._backfill(table, seat, last)
        queue: WatchQueue[tuple[int, bytes]] = WatchQueue()

        def folded() -> int:
            return table.version

        pumping = asyncio.create_task(self._pump(table_id, folded, queue))
        try:
            while True:
                try:
                    items = [await _get(queue, poll_s)]
                except TimeoutError:
                    items = []
                while not queue.empty():
                    items.append(queue.get_nowait())
                if any(isinstance(item, _Overrun) for item in items):
                    raise FellBehind(f"this stream fell {WATCH_QUEUE_LIMIT} updates behind")
                events: list[tuple[int, Any]] = []
                due: int | None = None  # the writer's deadline for the table folded so far
                for version, payload in items:
                    if version == table.version + 1:
                        _, ev, apart, ev_due = _decoded(payload)
                        if apart and events:  # told on its own, as the local feed does
                            yield Batch(table.version, shown(table, seat, events), table, due_ms=due)
                            events = []
                        events.append((version, ev))
                        table, due = tables.evolve(table, ev), ev_due
                        if due is not None:  # also kept for a take-over mid claim window
                            self._learn_due(table, due)
                if not items or items[-1][0] > table.version:
                    # Nothing for a while, or a gap: the store has everything.
                    for rec in await self.repository.events(table_id, table.version + 1):
                        events.append((rec.version, rec.decode()))
                        table = tables.evolve(table, events[-1][1])
                        due = None
                if events:
                    yield Batch(table.version, shown(table, seat, events), table, due_ms=due)
        finally:
            pumping.cancel()

    async def _pump(self, table_id: str, folded: Callable[[], int],
                    queue: WatchQueue[tuple[int, bytes]]) -> None:
        # A lost fan-out (Redis restarted or flushed) costs latency until the pump
        # resubscribes (after the version folded so far), never events: the store fills
        # whatever it missed.
        lost = False
        while True:
            try:
                async for published in self.live.listen(table_id, folded()):
                    lost = False
                    queue.offer(published)
                    if queue.overran:
                        return
            except LiveStateUnavailable as exc:
                if not lost:  # once per outage, not per retry
                    log.warning("fanout_lost", table_id=table_id, error=str(exc))
                    lost = True
                await asyncio.sleep(0.5)


async def _get(queue: asyncio.Queue[Any], timeout_s: float) -> Any:
    """The queue's next item, or TimeoutError (asyncio.wait_for would start a task per item)."""
    async with asyncio.timeout(timeout_s):
        return await queue.get()


def shown(table: Table, seat: int | None, events: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """A batch's events as `seat` may see them (table events are public)."""
    rs = table.rules
    out = []
    for version, ev in events:
        kind = type(ev)
        own = _TABLE_EVENTS.get(kind)
        if own is None:
            own = _TABLE_EVENTS[kind] = tables.is_table_event(ev)
        seen = tables.redact(ev, seat) if own else rs.redact(ev, seat)
        if seen is not None:
            out.append((version, seen))
    return out


# Whether a class of event is the table's own, asked once per class rather than per event and
# seat (its registered name says so, and it never changes).
_TABLE_EVENTS: dict[type, bool] = {}
