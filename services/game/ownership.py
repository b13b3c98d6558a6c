"""Which tables this node serves: one writer per table (leases), taking over the tables of
nodes that died (adoption), handing tables over on shutdown (drain), and the per-table lock
under which every command, take-over and subscription runs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from engine.core.contract import Status
from engine.table import Table
from services.game.clock import Deadlines
from services.game.feed import LocalFeed, Queue
from services.game.leases import Leases, NotHolder
from services.game.lobby import public_view
from services.game.repository import TableNotFound, TableRepository
from services.live.base import Lease, LiveState, LiveStateUnavailable
from services.observability import log


class TableLocks:
    """One asyncio lock per table: commands for one table run one at a time."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}

    def __call__(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = self._locks[table_id] = asyncio.Lock()
        return lock


class Ownership:
    """This node's tables. `hold` and everything else that may take a table over runs under
    the table's lock (callers of `hold` take it themselves)."""

    def __init__(self, repository: TableRepository, live: LiveState, deadlines: Deadlines,
                 local: LocalFeed, locks: TableLocks, node_id: str, address: str,
                 clock_ms: Callable[[], int]) -> None:
        self.repository, self.live, self.deadlines = repository, live, deadlines
        self.local, self.lock, self.node_id, self.clock_ms = local, locks, node_id, clock_ms
        self.leases = Leases(live, node_id, address, fence=repository.store.fence,
                             on_lost=self.lease_lost)
        self._rearmed: dict[str, int] = {}  # table -> the version whose deadline was re-armed

    def serving(self, table_id: str) -> bool:
        return table_id in self.leases.held

    async def hold(self, table_id: str, *, must_exist: bool = True) -> Lease:
        """This node's lease on the table, taking the table over if no node serves it;
        NotHolder if another does, TableNotFound (with nothing written: no lease, no fence)
        if `must_exist` and the table has no events. Call with the table's lock held."""
        if table_id in self.leases.held:
            return self.leases.held[table_id]
        self.repository.forget(table_id)  # another node may have written since this one last served it
        if must_exist and await self.repository.store.stream_version(table_id) == 0:
            raise TableNotFound(f"no table {table_id!r}")
        lease = await self.leases.hold(table_id)
        # Taking a table over (its node died, or the live state was lost): whatever the live
        # state knew of it may be gone, so restore it from the log before serving.
        table = await self.repository.load(table_id, must_exist=False)
        if table.exists and table.status is not Status.MATCH_OVER:
            log.warning("table_taken_over", table_id=table_id, node=self.node_id, token=lease.token,
                     version=table.version)
            await self.live.mark_live(table_id)
            await self.live.set_view(table_id, table.version, public_view(table))
            await self.deadlines.arm(table, self.repository.last_event_ms.get(table_id, self.clock_ms()))
        return lease

    def fenced_out(self, table_id: str) -> None:
        """Another node took the table over while this one was not looking."""
        self.leases.drop(table_id)
        self.repository.forget(table_id)
        self.local.moved(table_id)

    async def lease_lost(self, table_id: str) -> None:
        """A lease renewal failed: forget the table, and take it back if nobody else has it
        (the live state was flushed or restarted rather than the table taken over)."""
        self.repository.forget(table_id)
        self.local.moved(table_id)
        await self.adopt(table_id)

    async def adopt(self, table_id: str) -> bool:
        """Serve `table_id` from now on if no node does: take its lease, rebuild it from the log,
        re-arm its deadline. False when another node serves it or it has finished."""
        async with self.lock(table_id):
            try:
                await self.hold(table_id)  # re-arms the table's deadline when newly taken
            except NotHolder:
                return False
            table = await self.repository.load(table_id, must_exist=True)
            if table.status is Status.MATCH_OVER:
                await self.leases.release(table_id)
                return False
            return True

    async def rearm_overdue(self, grace_ms: int) -> int:
        """Arm again, once per table version, the deadline of each table this node serves that
        is more than `grace_ms` overdue; returns how many. The live state may have lost it: a
        Redis master killed before its replica had the write, after which the replica serves
        without it. Nothing else would ever move such a table on (a deal waiting for reveals,
        seats waiting for the next hand). Re-arming one that merely runs late is harmless:
        firing is idempotent by table version."""
        now, rearmed = self.clock_ms(), 0
        for table_id in list(self.leases.held):
            table = self.repository.cached(table_id)
            since = self.repository.last_event_ms.get(table_id)
            if table is None or since is None or self._rearmed.get(table_id) == table.version:
                continue
            due = self.deadlines.turn(table, since).due_ms
            if due is not None and now - due > grace_ms:
                log.warning("deadline_rearmed", table_id=table_id, version=table.version,
                            overdue_ms=now - due)
                self._rearmed[table_id] = table.version
                await self.deadlines.arm(table, since)
                rearmed += 1
        for table_id in [t for t in self._rearmed if t not in self.leases.held]:
            del self._rearmed[table_id]
        return rearmed

    async def adopt_orphans(self) -> int:
        """Take over every live table that no node holds (its node died); returns how many."""
        adopted = 0
        # The live index, and the tables this node has served (the index may have been lost).
        for table_id in {*await self.live.live_tables(), *self.repository.cached_ids()}:
            if table_id in self.leases.held or await self.live.lease_holder(table_id) is not None:
                continue
            adopted += await self.adopt(table_id)
        return adopted

    async def rebuild_deadlines(self) -> int:
        """Adopt every unfinished table no node serves, from the log (at start-up, or after the
        live state was lost); a deadline that passed while nobody served it fires at once."""
        count = 0
        for table_id in await self.repository.table_ids():
            if await self.live.lease_holder(table_id) is None:
                count += await self.adopt(table_id)
        return count

    async def drain(self) -> None:
        """Stop serving: hand every table's lease over so other nodes continue them at once."""
        log.info("node_draining", node=self.node_id, tables=len(self.leases.held))
        await self.leases.release_all()
        self.repository.forget_all()
        self.local.moved_all()

    async def serve(self, table_id: str) -> Table:
        """The table as its writer sees it: this node takes it over if no node serves it, and
        raises NotHolder if another one does."""
        cached = self.repository.cached(table_id)
        if cached is not None and table_id in self.leases.held:
            return cached  # every write goes through this node: its copy is the latest
        async with self.lock(table_id):
            await self.hold(table_id)
            try:
                return await self.repository.load(table_id, must_exist=True)
            except TableNotFound:
                await self.leases.release(table_id)
                raise

    async def subscribe(self, table_id: str) -> tuple[Queue, Table] | None:
        """A local feed of `table_id` and the table as of now, if this node serves it."""
        async with self.lock(table_id):
            try:
                await self.hold(table_id)
            except (NotHolder, LiveStateUnavailable):
                return None
            try:
                table = await self.repository.load(table_id, must_exist=True)
            except TableNotFound:
                await self.leases.release(table_id)
                raise
            return self.local.subscribe(table_id), table
