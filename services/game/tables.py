"""The table application service: load, decide, append, publish, and the clock that drives timeouts.

Every change to a table goes through `execute`: load the table (cache, else snapshot + tail),
decide, append at the expected version (retrying a conflict against a fresh load), then publish
the new events for watchers, refresh the cached public view and re-arm the table's deadline.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import hashlib
import json
import pickle
import secrets
import uuid
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.core.messages import decode, message_to_json
from services.eventstore import Fenced, NewEvent, WrongExpectedVersion
from services.game import table as tables
from services.game.leases import Leases, NotHolder
from services.game.table import Table, Timeout
from services.live.base import (
    Lease,
    LiveState,
    LiveStateUnavailable,
    Published,
    Turn,
    wall_clock_ms,
)
from services.live.base import View as LiveView
from services.observability import APPENDS, COMMAND_LATENCY, COMMANDS, LIVE_TABLES, log

STREAM_PREFIX = "table-"
BETWEEN_HANDS_MS = 10_000  # after a hand ends, the next starts this late unless all are ready sooner
AUTO_PLAY_DELAY_MS = 300  # how soon the server acts for a seat on auto-play (a human-like pace)
CACHE_SIZE = 20_000
CONFLICT_RETRIES = 5
MAX_CLOCK_STEPS = 500  # clock steps chained into one command (a whole deal, with room to spare)
REDELIVER_AFTER_MS = 5_000
ORPHAN_SWEEP_S = 2.0  # how often a node looks for tables whose node died


def _fingerprint() -> str:
    """Changes whenever the engine or the table aggregate changes: older snapshots are ignored."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parents[2]
    for path in sorted([*root.joinpath("engine").rglob("*.py"), Path(tables.__file__)]):
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


SNAPSHOT_FINGERPRINT = _fingerprint()


class TableNotFound(LookupError):
    """No table with that id."""


class VersionConflict(Exception):
    """The action was decided on an older table version than the current one."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"the table is at version {actual}, not {expected}: refresh and retry")
        self.expected, self.actual = expected, actual


@dataclass
class Outcome:
    """What a command did: the table's version after it, and the events it added (none when
    it was a retry of an action already applied, or changed nothing)."""

    table: Table
    version: int
    events: list[Any] = field(default_factory=list)
    duplicate: bool = False


def new_table_id() -> str:
    return STREAM_PREFIX + uuid.uuid4().hex[:16]


def encode_payload(version: int, ev: NewEvent) -> bytes:
    """An event as fanned out to every node (unredacted: each watcher redacts for its seat),
    from its encoding for the store."""
    return json.dumps({"version": version, "type": ev.type, "schema": ev.schema_version, "data": ev.data},
                      separators=(",", ":"), ensure_ascii=False).encode()


def decode_payload(payload: bytes) -> tuple[int, Any]:
    msg = json.loads(payload)
    return msg["version"], decode(msg["type"], msg["schema"], msg["data"])


@dataclass(frozen=True, slots=True)
class Batch:
    """What one command (or a stretch of history) added to a table, as a watcher receives it:
    the table's version after it, the events (version, event), the whole table after them, and
    who sent the command ("" when unknown: history, or another node's command)."""

    version: int
    events: list[tuple[int, Any]]
    table: Table
    actor: str = ""
    # Shared by every watcher of one command on this node: an event all of them may see whole
    # is put into words once (keyed by id, holding the event so that the id stays its own).
    encoded: dict[int, tuple[Any, Any]] = field(default_factory=dict, compare=False)


_MOVED = None  # told to local watchers when this node stops serving their table


class TableService:
    """Tables on one node. Commands for one table run one at a time (an asyncio lock per table)."""

    def __init__(self, store: Any, live: LiveState, *, node_id: str = "", address: str = "",
                 clock_ms: Callable[[], int] = wall_clock_ms) -> None:
        self.store, self.live = store, live
        self.node_id = node_id or uuid.uuid4().hex[:8]
        self.clock_ms = clock_ms
        self.leases = Leases(live, self.node_id, address, fence=store.fence, on_lost=self._lease_lost)
        self._cache: OrderedDict[str, Table] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self._last_event_ms: dict[str, int] = {}
        # Watchers of tables this node writes get each command's batch in-process (no Redis
        # round trip, no decoding, and the table state to compute their seat's view from).
        self._local: dict[str, set[asyncio.Queue[Batch | None]]] = {}

    # -- commands ----------------------------------------------------------------------------

    async def create(self, ruleset: str, options: dict[str, Any], created_by: str, *,
                     private: bool = True, fixed_deal: str = "", command_id: str | None = None,
                     table_id: str | None = None) -> Outcome:
        """A new table; `fixed_deal` (scenario deal JSON) makes its first hand that deal."""
        table_id = table_id or new_table_id()
        cmd = tables.CreateTable(table_id, ruleset, dict(options), created_by, private, fixed_deal)
        return await self.execute(table_id, cmd, command_id=command_id, actor=created_by)

    async def ready(self, table_id: str, player_id: str, command_id: str | None = None) -> Outcome:
        cmd = tables.Ready(player_id, secrets.token_bytes(16), secrets.token_bytes(16))
        return await self.execute(table_id, cmd, command_id=command_id, actor=player_id)

    async def execute(self, table_id: str, cmd: Any, *, command_id: str | None, actor: str,
                      expected_version: int | None = None) -> Outcome:
        """Decide `cmd` on the table and store its events; see the module docstring."""
        started = self.clock_ms()
        async with self._lock(table_id):
            lease = await self._hold(table_id)
            for _ in range(CONFLICT_RETRIES):
                table = await self._load(table_id, must_exist=not isinstance(cmd, tables.CreateTable))
                if expected_version is not None and expected_version != table.version:
                    if command_id and await self._already_applied(table_id, command_id):
                        return Outcome(table, table.version, duplicate=True)
                    raise VersionConflict(expected_version, table.version)
                try:
                    steps, after = self._decide(table, cmd)
                except RuleViolation:
                    if command_id and await self._already_applied(table_id, command_id):
                        return Outcome(table, table.version, duplicate=True)
                    COMMANDS.labels(table.ruleset or "none", "rejected").inc()
                    raise
                events = [ev for _, evs in steps for ev in evs]
                if not events:
                    return Outcome(table, table.version)
                new = self._records(steps, table.version, command_id, actor)
                try:
                    version = await self.store.append(table_id, table.version, new,
                                                      command_id=command_id, fence=lease.token)
                except WrongExpectedVersion:
                    self._forget(table_id)
                    continue
                except Fenced:
                    # Another node took the table over while this one was not looking.
                    log.warning("fenced_out", table_id=table_id, node=self.node_id, token=lease.token)
                    self.leases.drop(table_id)
                    self._forget(table_id)
                    self._tell_local(table_id, _MOVED)
                    holder = await self.live.lease_holder(table_id)
                    raise NotHolder(table_id, holder and holder.node_id,
                                    holder and await self.live.node_address(holder.node_id)) from None
                if version != table.version + len(events):
                    # The same command id was stored before: that earlier result stands.
                    self._forget(table_id)
                    table = await self._load(table_id, must_exist=True)
                    return Outcome(table, version, duplicate=True)
                APPENDS.inc()
                COMMANDS.labels(table.ruleset or type(cmd).__name__, "applied").inc()
                before = table.status if table.exists else None
                table = after
                self._remember(table)
                self._last_event_ms[table_id] = self.clock_ms()
                base = table.version - len(events)
                self._tell_local(table_id, Batch(table.version, [(base + n, ev) for n, ev in enumerate(events, 1)],
                                                 table, actor))
                await self._after_commit(table, new, table.version - len(events), before)
                COMMAND_LATENCY.observe((self.clock_ms() - started) / 1000)
                return Outcome(table, table.version, events)
            raise VersionConflict(-1, (await self._load(table_id, must_exist=True)).version)

    def _decide(self, table: Table, cmd: Any) -> tuple[list[tuple[Any, list[Any]]], Table]:
        """The command's events and, chained behind them, every clock step due at once (a
        deal at 0 ms per card): one append instead of a hundred. Each step stays a command of
        its own in the log, so verification re-decides it like any other."""
        events = tables.decide(table, cmd)
        steps = [(cmd, events)]
        after = functools.reduce(tables.evolve, events, table)
        while events and len(steps) <= MAX_CLOCK_STEPS and self._clock_due_now(after):
            tick = Timeout(after.version, secrets.token_bytes(16), secrets.token_bytes(16))
            events = tables.decide(after, tick)
            if events:
                steps.append((tick, events))
                after = functools.reduce(tables.evolve, events, after)
        return steps, after

    @staticmethod
    def _clock_due_now(table: Table) -> bool:
        if table.status is not Status.IN_HAND:
            return False
        deadline = table.rules.deadline(table.game)
        return deadline is not None and deadline.timeout_ms == 0 and list(deadline.defaults) == [None]

    def _records(self, steps: list[tuple[Any, list[Any]]], version: int, command_id: str | None,
                 actor: str) -> list[NewEvent]:
        now = datetime.now(UTC).isoformat()
        new = []
        for n, (cmd, events) in enumerate(steps):
            meta = ({"command_id": command_id, "actor": actor} if n == 0 else
                    {"command_id": f"timeout:{version}", "actor": "server"})
            rest = {**meta, "time": now}
            first = {**rest, "node": self.node_id, "command": message_to_json(cmd)}
            new += [NewEvent.of(ev, first if i == 0 else rest) for i, ev in enumerate(events)]
            version += len(events)
        return new

    async def _hold(self, table_id: str) -> Lease:
        if table_id in self.leases.held:
            return self.leases.held[table_id]
        self._forget(table_id)  # another node may have written since this one last served it
        lease = await self.leases.hold(table_id)
        # Taking a table over (its node died, or the live state was lost): whatever the live
        # state knew of it may be gone, so restore it from the log before serving.
        table = await self._load(table_id, must_exist=False)
        if table.exists and table.status is not Status.MATCH_OVER:
            await self.live.mark_live(table_id)
            await self.live.set_view(table_id, table.version, public_view(table))
            await self._arm_deadline(table, self._last_event_ms.get(table_id, self.clock_ms()))
        return lease

    async def _lease_lost(self, table_id: str) -> None:
        """A lease renewal failed: forget the table, and take it back if nobody else has it
        (the live state was flushed or restarted rather than the table taken over)."""
        self._forget(table_id)
        self._tell_local(table_id, _MOVED)
        await self.adopt(table_id)

    async def adopt(self, table_id: str) -> bool:
        """Serve `table_id` from now on if no node does: take its lease, rebuild it from the log,
        re-arm its deadline. False when another node serves it or it has finished."""
        async with self._lock(table_id):
            try:
                await self._hold(table_id)  # re-arms the table's deadline when newly taken
            except NotHolder:
                return False
            table = await self._load(table_id, must_exist=True)
            if table.status is Status.MATCH_OVER:
                await self.leases.release(table_id)
                return False
            return True

    async def adopt_orphans(self) -> int:
        """Take over every live table that no node holds (its node died); returns how many."""
        adopted = 0
        # The live index, and the tables this node has served (the index may have been lost).
        for table_id in {*await self.live.live_tables(), *self._cache}:
            if table_id in self.leases.held or await self.live.lease_holder(table_id) is not None:
                continue
            adopted += await self.adopt(table_id)
        return adopted

    async def _already_applied(self, table_id: str, command_id: str) -> bool:
        return await self.store.command_version(table_id, command_id) is not None

    async def _after_commit(self, table: Table, new: list[NewEvent], first_version: int,
                            status_before: Status | None) -> None:
        published = [Published(first_version + n, encode_payload(first_version + n, ev))
                     for n, ev in enumerate(new, start=1)]
        await self.live.update_table(table.table_id, published,
                                     LiveView(table.version, public_view(table)),
                                     self._turn(table, self.clock_ms()))
        status = table.status
        if first_version == 0:  # the command created the table
            await self.live.mark_live(table.table_id)
        if status is Status.MATCH_OVER:
            await self.live.unmark_live(table.table_id)
        if status_before is not None and status_before != status:
            await self._snapshot(table)  # hand boundaries: rehydration = snapshot + one hand

    async def _snapshot(self, table: Table) -> None:
        blob = base64.b64encode(pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)).decode()
        await self.store.save_snapshot(table.table_id, table.version, "table.Snapshot", 1,
                                       {"fingerprint": SNAPSHOT_FINGERPRINT, "pickle": blob})

    # -- deadlines ---------------------------------------------------------------------------

    def delay_ms(self, table: Table) -> int | None:
        """How long after its last event the table's pending decision times out (None: none)."""
        status = table.status
        if status is Status.WAITING_FOR_HAND:
            if table.hands_started == 0 or any(p is None for p in table.seats):
                return None
            everyone_auto = all(table.is_auto(s) for s in range(len(table.seats)))
            return AUTO_PLAY_DELAY_MS if everyone_auto else BETWEEN_HANDS_MS
        if status is not Status.IN_HAND:
            return None
        deadline = table.rules.deadline(table.game)
        if deadline is None:
            return None
        owing = [s for s in deadline.defaults if s is not None]
        if owing and all(table.is_auto(s) for s in owing):
            return min(AUTO_PLAY_DELAY_MS, deadline.timeout_ms)
        return deadline.timeout_ms

    def _turn(self, table: Table, since_ms: int) -> Turn:
        """The table's deadline: due `delay_ms` after `since_ms`, or none."""
        delay = self.delay_ms(table)
        if delay is None:
            return Turn("turn", None)
        return Turn("turn", since_ms + delay, str(table.version).encode())

    async def _arm_deadline(self, table: Table, since_ms: int) -> None:
        turn = self._turn(table, since_ms)
        if turn.due_ms is None:
            await self.live.cancel(table.table_id, turn.key)
        else:
            await self.live.schedule(table.table_id, turn.key, turn.due_ms, turn.payload)

    async def fire_due(self, limit: int = 50) -> int:
        """Fire up to `limit` deadlines due now (one clock tick); returns how many fired. A
        burst of timeouts (many tables abandoned at once) is spread over ticks rather than
        stalling every other table's commands."""
        # Claimed deadlines are postponed, not removed, until firing re-arms or cancels them: a
        # node that dies between claiming and firing leaves them to the table's next writer.
        due = await self.live.claim_due(self.clock_ms(), limit, node_id=self.node_id,
                                        redeliver_after_ms=REDELIVER_AFTER_MS)
        if due:
            await asyncio.gather(*(self._fire(d.table_id, int(d.payload)) for d in due))
        return len(due)

    async def _fire(self, table_id: str, version: int) -> None:
        cmd = Timeout(version, secrets.token_bytes(16), secrets.token_bytes(16))
        try:
            outcome = await self.execute(table_id, cmd, command_id=f"timeout:{version}", actor="server")
            if not outcome.events:  # stale or already fired: set the deadline the table has now
                await self._arm_deadline(outcome.table, self._last_event_ms.get(table_id, self.clock_ms()))
        except NotHolder:
            pass  # another node took the table over; its clock fires this deadline
        except Exception:  # a timer must never kill the clock; the table stays as it was
            log.exception("timeout_failed", table_id=table_id, version=version)

    async def run(self, stop: asyncio.Event, tick_s: float = 0.05) -> None:
        """Until `stop`: fire due deadlines, keep leases alive, adopt orphaned tables."""
        leases = asyncio.create_task(self.leases.run(stop))
        last_sweep = 0.0
        loop = asyncio.get_running_loop()
        try:
            while not stop.is_set():
                try:
                    await self.fire_due()
                    if loop.time() - last_sweep > ORPHAN_SWEEP_S:
                        last_sweep = loop.time()
                        await self.adopt_orphans()
                except LiveStateUnavailable as exc:
                    log.warning("live_state_unavailable", error=str(exc))
                except Exception:
                    log.exception("clock_tick_failed")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), tick_s)
        finally:
            await leases

    async def drain(self) -> None:
        """Stop serving: hand every table's lease over so other nodes continue them at once."""
        await self.leases.release_all()
        self._cache.clear()
        for table_id in list(self._local):
            self._tell_local(table_id, _MOVED)

    async def rebuild_deadlines(self) -> int:
        """Adopt every unfinished table no node serves, from the log (at start-up, or after the
        live state was lost); a deadline that passed while nobody served it fires at once."""
        count = 0
        for table_id in await self.store.list_streams(STREAM_PREFIX):
            if await self.live.lease_holder(table_id) is None:
                count += await self.adopt(table_id)
        return count

    # -- reads -------------------------------------------------------------------------------

    async def serve(self, table_id: str) -> Table:
        """The table as its writer sees it: this node takes it over if no node serves it, and
        raises NotHolder if another one does."""
        cached = self._cache.get(table_id)
        if cached is not None and table_id in self.leases.held:
            return cached  # every write goes through this node: its copy is the latest
        async with self._lock(table_id):
            await self._hold(table_id)
            try:
                return await self._load(table_id, must_exist=True)
            except TableNotFound:
                await self.leases.release(table_id)
                raise

    async def get(self, table_id: str) -> Table:
        """The table as of its latest event; TableNotFound if there is none."""
        return await self._load(table_id, must_exist=True)

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
                    self._unsubscribe(table_id, queue)
            async with contextlib.aclosing(self._watch_remote(table_id, seat, last, poll_s)) as remote:
                async for batch in remote:
                    last = batch.version
                    yield batch
                    if table_id in self.leases.held:
                        break  # this node took the table over: watch it in-process again

    async def _subscribe(self, table_id: str) -> tuple[asyncio.Queue[Batch | None], Table] | None:
        """A local feed of `table_id` and the table as of now, if this node serves it."""
        async with self._lock(table_id):
            try:
                await self._hold(table_id)
            except (NotHolder, LiveStateUnavailable):
                return None
            try:
                table = await self._load(table_id, must_exist=True)
            except TableNotFound:
                await self.leases.release(table_id)
                raise
            queue: asyncio.Queue[Batch | None] = asyncio.Queue()
            self._local.setdefault(table_id, set()).add(queue)
            return queue, table

    def _unsubscribe(self, table_id: str, queue: asyncio.Queue[Batch | None]) -> None:
        queues = self._local.get(table_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._local[table_id]

    def _tell_local(self, table_id: str, batch: Batch | None) -> None:
        for queue in self._local.get(table_id, ()):
            queue.put_nowait(batch)

    async def _watch_local(self, table_id: str, seat: int | None, last: int,
                           queue: asyncio.Queue[Batch | None], table: Table,
                           poll_s: float) -> AsyncIterator[Batch]:
        shown = _shown(table, seat)
        if table.version > last:
            records = await self.store.read_stream(table_id, last + 1, table.version)
            yield Batch(table.version, shown([(r.version, r.decode()) for r in records]), table)
            last = table.version
        while True:
            try:
                batch = queue.get_nowait() if not queue.empty() else await _get(queue, poll_s)
            except TimeoutError:
                if table_id in self.leases.held:
                    continue
                return
            if batch is _MOVED:
                return
            if batch.version <= last:
                continue
            # Batches arrive in commit order, each right after the one before.
            yield Batch(batch.version, shown(batch.events), batch.table, batch.actor, batch.encoded)
            last = batch.version

    async def _watch_remote(self, table_id: str, seat: int | None, last: int,
                            poll_s: float) -> AsyncGenerator[Batch, None]:
        table = await self._read(table_id)
        if not table.exists:
            raise TableNotFound(f"no table {table_id!r}")
        shown = _shown(table, seat)
        if table.version > last:
            records = await self.store.read_stream(table_id, last + 1, table.version)
            yield Batch(table.version, shown([(r.version, r.decode()) for r in records]), table)
        queue: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()

        async def pump() -> None:
            # A lost fan-out (Redis restarted or flushed) costs latency until the pump
            # resubscribes, never events: the store fills whatever it missed.
            while True:
                try:
                    async for published in self.live.listen(table_id, table.version):
                        queue.put_nowait(published)
                except LiveStateUnavailable:
                    await asyncio.sleep(0.5)

        pumping = asyncio.create_task(pump())
        try:
            while True:
                try:
                    items = [await _get(queue, poll_s)]
                except TimeoutError:
                    items = []
                while not queue.empty():
                    items.append(queue.get_nowait())
                events: list[tuple[int, Any]] = []
                for version, payload in items:
                    if version == table.version + 1:
                        events.append((version, decode_payload(payload)[1]))
                        table = tables.evolve(table, events[-1][1])
                if not items or items[-1][0] > table.version:
                    # Nothing for a while, or a gap: the store has everything.
                    for rec in await self.store.read_stream(table_id, table.version + 1):
                        events.append((rec.version, rec.decode()))
                        table = tables.evolve(table, events[-1][1])
                if events:
                    yield Batch(table.version, shown(events), table)
        finally:
            pumping.cancel()

    async def history(self, table_id: str, first: int = 1, last: int | None = None) -> list[Any]:
        await self._load(table_id, must_exist=True)
        return await self.store.read_stream(table_id, first, last)

    # -- loading -----------------------------------------------------------------------------

    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    def _remember(self, table: Table) -> None:
        self._cache[table.table_id] = table
        self._cache.move_to_end(table.table_id)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        LIVE_TABLES.set(len(self._cache))

    def _forget(self, table_id: str) -> None:
        self._cache.pop(table_id, None)

    async def _load(self, table_id: str, *, must_exist: bool) -> Table:
        table = self._cache.get(table_id)
        if table is not None:
            return table
        table = await self._read(table_id)
        if not table.exists:
            if must_exist:
                raise TableNotFound(f"no table {table_id!r}")
            return table
        self._remember(table)
        return table

    async def _read(self, table_id: str) -> Table:
        """The table as the store has it (snapshot + tail), bypassing the cache."""
        table = Table()
        snap = await self.store.load_snapshot(table_id)
        if snap is not None and snap.data.get("fingerprint") == SNAPSHOT_FINGERPRINT:
            table = pickle.loads(base64.b64decode(snap.data["pickle"]))
        records = await self.store.read_stream(table_id, table.version + 1)
        for rec in records:
            table = tables.evolve(table, rec.decode())
        if records:
            self._last_event_ms[table_id] = int(records[-1].recorded_at.timestamp() * 1000)
        return table


async def _get(queue: asyncio.Queue[Any], timeout_s: float) -> Any:
    """The queue's next item, or TimeoutError (asyncio.wait_for would start a task per item)."""
    async with asyncio.timeout(timeout_s):
        return await queue.get()


def _shown(table: Table, seat: int | None) -> Callable[[list[tuple[int, Any]]], list[tuple[int, Any]]]:
    """Redaction of a batch's events for `seat` (table events are public)."""
    rs = table.rules

    def shown(events: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
        out = []
        for version, ev in events:
            seen = ev if tables.is_table_event(ev) else rs.redact(ev, seat)
            if seen is not None:
                out.append((version, seen))
        return out

    return shown


def public_view(table: Table) -> bytes:
    """What a lobby shows of a table: seats, readiness, auto-play, status, version (cached in
    live state with every command). The game itself is not in it: a seat's view comes with its
    Watch stream, and rendering the whole public game on every move was a sizeable share of
    each command's cost for a cache nobody read."""
    return json.dumps({
        "table_id": table.table_id,
        "ruleset": table.ruleset,
        "version": table.version,
        "seats": list(table.seats),
        "ready": sorted(table.ready),
        "auto": sorted(table.auto),
        "status": table.status.value,
        "hands_started": table.hands_started,
    }, ensure_ascii=False, separators=(",", ":")).encode()
