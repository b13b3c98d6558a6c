"""The settlement consumer: an exactly-once event-store subscription from the tables' chip
events (`table_events`) to ledger transfers.

Each batch of events and the transfers they cause commit in one transaction with the
subscription's checkpoint, so a consumer killed at any point resumes where the committed
checkpoint is and posts every payment exactly once (the transfer ids, derived from the events,
are a second line of defence). Several ledger processes may run one; a Postgres advisory lock
lets only one of them consume at a time, and the others take over when its session ends.

A table's `table.Closed` (recorded after the cash-outs of every way a table ends, rules revision
3) records the table as closed in the same transaction: the audit then requires each of its
seat accounts to be 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from prometheus_client import Counter, Histogram

from services.eventstore import CheckpointMoved, EventStore, RecordedEvent, StoreUnavailable
from services.observability import log

from . import accounts
from .errors import LedgerUnavailable
from .service import LedgerService
from .transfers import Posted, Transfer

SUBSCRIPTION = "ledger-settlement"
TABLE_STREAM = "table-"
BOUGHT_IN, SETTLED, CASHED_OUT = "table.StackBoughtIn", "table.HandSettled", "table.StackCashedOut"
CLOSED = "table.Closed"

REBUILD_BACKOFF_S = 10.0  # a leaderboard store that failed is rebuilt at most this often

SETTLEMENT_LAG = Histogram(
    "qipai_ledger_settlement_lag_seconds", "From a hand's result in the log to its transfers committed",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
SETTLED_TRANSFERS = Counter("qipai_ledger_settled_transfers_total", "Transfers posted by settlement", ["kind"])


def table_key(stream_id: str) -> str:
    """The table's part of its accounts' names: `table-3f2a` keeps `table/3f2a/seat/<n>`."""
    return stream_id.removeprefix(TABLE_STREAM)


def buy_in_transfer(stream_id: str, seat: int, player_id: str, chips: int, n: int) -> Transfer:
    """A seat's buy-in: the table posts it when the player sits; settlement finds it posted."""
    table = table_key(stream_id)
    return Transfer(f"buyin/{table}/{seat}/{player_id}/{n}", accounts.player(player_id),
                    accounts.seat(table, seat), chips, "buyin")


def transfers_of(event: RecordedEvent) -> list[tuple[Transfer, bool]]:
    """The transfers one recorded event causes, each with whether it opens its credit account."""
    if not event.stream_id.startswith(TABLE_STREAM) or event.type not in (BOUGHT_IN, SETTLED, CASHED_OUT):
        return []
    table = table_key(event.stream_id)
    data = event.data
    if event.type == BOUGHT_IN:
        return [(buy_in_transfer(event.stream_id, data["seat"], data["player_id"], data["chips"], data["n"]),
                 True)] if data["chips"] > 0 else []
    if event.type == CASHED_OUT:
        # A kept seat's winnings go back after the cash-out of the same buy-in: a transfer of its own.
        kept = "/kept" if data.get("kept") else ""
        return [(Transfer(f"cashout/{table}/{data['seat']}/{data['player_id']}/{data['n']}{kept}",
                          accounts.seat(table, data["seat"]), accounts.player(data["player_id"]),
                          data["chips"], "cashout"), False)] if data["chips"] > 0 else []
    # Two payments between the same seats for the same reason are one cause: one transfer.
    merged: dict[tuple[int, int, str], dict[str, Any]] = {}
    for p in data["payments"]:
        key = (p["payer"], p["payee"], p["reason"])
        if key in merged:
            merged[key] = {**merged[key], "chips": merged[key]["chips"] + p["chips"]}
        else:
            merged[key] = p
    return [(Transfer(
        f"settle/{table}/{data['hand']}/{payer}/{payee}/{reason}", accounts.seat(table, payer),
        accounts.seat(table, payee), p["chips"], "settle", reason=reason,
        details={"ruleset": data["ruleset"], "payer_player": p["payer_player"],
                 "payee_player": p["payee_player"], "hand": str(data["hand"])}), False)
        for (payer, payee, reason), p in merged.items() if p["chips"] > 0]


def closed_tables(events: list[RecordedEvent]) -> list[tuple[str, str]]:
    """The tables (`table_key`, reason) whose end `events` record."""
    return [(table_key(e.stream_id), str(e.data.get("reason", ""))) for e in events
            if e.type == CLOSED and e.stream_id.startswith(TABLE_STREAM)]


class SettlementConsumer:
    """Runs the subscription while this process holds the consumer lock."""

    def __init__(self, events: EventStore, service: LedgerService, *, batch_size: int = 256,
                 poll_interval: float = 0.25) -> None:
        self.events = events
        self.service = service
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.lag_ms: list[float] = []  # commit time minus the event's recorded time (metrics, bench)
        self._pending: list[Posted] = []
        self._pending_times: list[float] = []
        self._boards_stale = False
        self._rebuild_after = 0.0

    async def run(self, stop: asyncio.Event) -> None:
        """Consume until `stop` is set; waits while another process holds the lock."""
        while not stop.is_set():
            try:
                async with self._leadership(stop) as leading:
                    if leading:
                        await self._consume(stop)
            except (StoreUnavailable, LedgerUnavailable, OSError) as exc:
                log.warning("settlement_paused", error=str(exc))
                await _sleep_unless(stop, 1.0)
            except Exception as exc:
                # An event the ledger refuses (an overdraft, an account never opened) stops
                # settlement at that event, loudly, rather than skip it: retried until fixed.
                log.error("settlement_failed", error=repr(exc))
                await _sleep_unless(stop, 5.0)

    async def catch_up(self) -> int:
        """Post everything in the log now (tests, the CLI); returns how many events were read."""
        sub = self.events.subscribe(SUBSCRIPTION, self._handle, batch_size=self.batch_size)
        try:
            handled = await sub.catch_up()
        except BaseException:
            # The failed batch may or may not have committed: recount the boards from the ledger.
            self._pending, self._pending_times = [], []
            self._boards_stale = True
            raise
        await self._project()
        return handled

    async def _consume(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            seen = self.events.wakeup.generation
            try:
                await self.catch_up()
            except CheckpointMoved:
                continue  # another consumer committed first; carry on from its checkpoint
            waiter = asyncio.ensure_future(self.events._wait_for_appends(seen, self.poll_interval))
            stopper = asyncio.ensure_future(stop.wait())
            await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            for task in (waiter, stopper):
                task.cancel()
            await asyncio.gather(waiter, stopper, return_exceptions=True)

    async def _handle(self, tx: Any, events: list[RecordedEvent]) -> None:
        # A new batch means the previous one committed: its leaderboard scores can go out.
        await self._project()
        caused = [pair for event in events for pair in transfers_of(event)]
        # One call for the batch: its accounts are locked in one order (no deadlock with a
        # consumer racing on the same events), and a buy-in opens its seat's account.
        self._pending = await self.service.store.post_in(
            tx, [t for t, _ in caused], open_credit=[opens for _, opens in caused]) if caused else []
        closed = closed_tables(events)
        if closed:
            await self.service.store.close_tables_in(tx, closed)
        self._pending_times = [e.recorded_at.timestamp() for e in events if e.type == SETTLED]

    async def _project(self) -> None:
        """Called once the pending batch has committed: lag figures and leaderboard scores."""
        now = time.time()
        for t in self._pending_times:
            self.lag_ms.append((now - t) * 1000)
            SETTLEMENT_LAG.observe(now - t)
        del self.lag_ms[:-100_000]
        pending, self._pending, self._pending_times = self._pending, [], []
        for posted in pending:
            if posted.created:
                SETTLED_TRANSFERS.labels(posted.transfer.kind).inc()
        if self._boards_stale and time.monotonic() < self._rebuild_after:
            return
        if not pending and not self._boards_stale:
            return
        try:
            # The boards are a projection: Redis being away must not hold settlement up.
            if self._boards_stale:
                await self.service.rebuild_leaderboards()
                self._boards_stale = False
            else:
                await self.service.project(pending)
        except Exception as exc:
            log.warning("leaderboards_behind", error=repr(exc))
            self._boards_stale = True
            self._rebuild_after = time.monotonic() + REBUILD_BACKOFF_S

    @contextlib.asynccontextmanager
    async def _leadership(self, stop: asyncio.Event) -> AsyncIterator[bool]:
        """Yields True while this process is the one consumer (Postgres: an advisory lock held by
        a session of its own; it is released when that session ends, even by kill -9)."""
        if self.events.backend != "postgres":
            yield True  # SQLite: one process; the checkpoint's compare-and-set guards the rest
            return
        import psycopg

        conninfo = self.events._conninfo  # type: ignore[attr-defined]
        conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
        try:
            key = f"qipai.ledger.settlement.{self.events.schema}"  # type: ignore[attr-defined]
            while not stop.is_set():
                cur = await conn.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (key,))
                if (await cur.fetchone())[0]:  # type: ignore[index]
                    break
                await _sleep_unless(stop, 1.0)
            else:
                yield False
                return
            log.info("settlement_consumer_leading")
            yield True
        finally:
            with contextlib.suppress(Exception):
                await conn.close()


async def _sleep_unless(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await stop.wait()

