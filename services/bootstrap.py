"""The composition root: builds the backends from settings and wires the servicers to them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from services.config import Settings


@dataclass
class Backends:
    store: Any
    live: Any
    tables: Any
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list[asyncio.Task] = field(default_factory=list)

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
        await self.store.close()


async def open_backends(settings: Settings) -> Backends:
    """The event store, live state and table service the settings name (SQLite + memory by default)."""
    from services.eventstore import open_event_store
    from services.game.tables import TableService
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
    tables = TableService(store, live, node_id=settings.node_id, address=settings.advertised_addr)
    return Backends(store, live, tables)


def register_services(
    server: grpc.aio.Server, services: Sequence[str], backends: Backends, settings: Settings
) -> None:
    """Add the servicers of `services` to `server` (matchmaking only answers health yet; the
    ledger is opened and added by `services.ledger.serving.start_ledger`)."""
    if "game" in services:
        from services.game.servicer import register

        register(server, backends.tables, settings.token_secret)
