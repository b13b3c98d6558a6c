"""The composition root: builds the backends from settings and wires the servicers to them."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from engine.table import Close, Timeout
from services.client_address import ClientAddress
from services.config import Settings
from services.eventstore import EventStore
from services.game.clock import Clock, Deadlines
from services.game.feed import LocalFeed, Watcher
from services.game.ownership import Ownership, TableLocks
from services.game.pipeline import CommandPipeline, Outcome
from services.game.repository import TableRepository
from services.game.reservations import SeatReservations
from services.game.tables import TableService
from services.ledger.buyin import BuyIns
from services.ledger.config import ledger_settings
from services.ledger.leaderboard import MemoryLeaderboards
from services.ledger.service import LedgerService
from services.ledger.servicer import register_status_details
from services.ledger.store import LedgerStore, open_ledger
from services.live.base import LiveState, wall_clock_ms


def table_service(store: EventStore, live: LiveState, *, node_id: str = "", address: str = "",
                  clock_ms: Callable[[], int] = wall_clock_ms, buy_ins: BuyIns | None = None,
                  abandon_after_ms: int = 0, id_key: str = "") -> TableService:
    """The table service of one node, its units wired together (see services/game/tables.py);
    `abandon_after_ms` closes tables nobody acted at for that long (0: never); `id_key` (the
    token key) keys the ids of tables made by request."""
    node_id = node_id or uuid.uuid4().hex[:8]
    repository = TableRepository(store)
    deadlines = Deadlines(live, clock_ms, repository.last_human_ms.get, abandon_after_ms)
    local = LocalFeed()
    ownership = Ownership(repository, live, deadlines, local, TableLocks(), node_id, address, clock_ms)
    # One live matchmade table per player, its reservation taken with the buy-in (reservations.py).
    seats = SeatReservations(store, repository.read, buy_ins, clock_ms)
    pipeline = CommandPipeline(repository, ownership, deadlines, local, live, node_id, clock_ms, seats)

    async def fire(table_id: str, cmd: Timeout | Close, command_id: str) -> Outcome:
        return await pipeline.execute(table_id, cmd, command_id=command_id, actor="server")

    clock = Clock(live, deadlines, node_id, repository.last_event_ms.get, fire, repository.cached)
    watcher = Watcher(repository, live, local, ownership.subscribe, ownership.serving, deadlines.learn)
    return TableService(store, live, node_id, repository, pipeline, ownership, deadlines, clock,
                        watcher, id_key)


@dataclass
class Backends:
    store: EventStore
    live: LiveState
    tables: TableService
    ledger: LedgerStore
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def start_clock(self) -> None:
        """Start this node's background work: deadlines (timeouts, auto-play, the deal pace),
        lease renewal and adopting the tables of nodes that died."""
        self._tasks.append(asyncio.create_task(self.tables.run(self._stop)))

    async def drain(self) -> None:
        """Stop the background work and hand this node's tables over to the others."""
        self._stop.set()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        await self.tables.drain()

    async def close(self) -> None:
        self._stop.set()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.live.close()
        await self.ledger.close()
        await self.store.close()


async def open_backends(settings: Settings) -> Backends:
    """The event store, live state and table service the settings name (SQLite + memory by default)."""
    from services.eventstore import open_event_store
    from services.live import open_live_state

    if settings.database_url.startswith("sqlite:///"):
        path = settings.database_url.removeprefix("sqlite:///")
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    store = await open_event_store(settings.database_url)
    try:
        live = open_live_state(settings.redis_url, namespace=settings.live_namespace)
        await live.ping()
    except BaseException:
        await store.close()
        raise
    try:
        # The ledger's tables sit next to the events: a seat buys in through it.
        ledger = await open_ledger(settings.database_url, store=store)
    except BaseException:
        await live.close()
        await store.close()
        raise
    register_status_details()
    buy_ins = BuyIns(LedgerService(ledger, MemoryLeaderboards(), ledger_settings()))
    tables = table_service(store, live, node_id=settings.node_id, address=settings.advertised_addr,
                           buy_ins=buy_ins, abandon_after_ms=settings.abandon_after_s * 1000,
                           id_key=settings.token_secret)
    return Backends(store, live, tables, ledger)


def register_services(
    server: grpc.aio.Server, services: Sequence[str], backends: Backends, settings: Settings
) -> None:
    """Add the servicers of `services` to `server` (the ledger and matchmaking are opened and
    added by `services.ledger.serving.start_ledger` and `services.matchmaking.serving`)."""
    if "game" in services:
        from services.game.servicer import register

        register(server, backends.tables, settings.token_secret,
                 settings.guest_logins_per_minute, settings.open_tables_per_player,
                 ClientAddress.trusting(settings.trusted_proxies), settings.watch_streams_per_player)
