"""The ledger inside `qipai serve`: open its store and leaderboards next to the event store,
rebuild the boards when their store is empty, register the gRPC service and run the settlement
consumer in the background."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

import grpc

from qipai.v1 import ledger_pb2_grpc

from .config import ledger_settings
from .leaderboard import open_leaderboards
from .service import LedgerService
from .servicer import LedgerServicer
from .settlement import SettlementConsumer
from .store import LedgerStore, open_ledger


@dataclass
class LedgerResource:
    service: LedgerService
    consumer: SettlementConsumer
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self.consumer.run(self._stop), name="ledger settlement")

    async def drain(self) -> None:
        """Stop consuming (another ledger process takes the lock over)."""
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def close(self) -> None:
        """Stop settling and close the boards (the ledger store is the backends')."""
        await self.drain()
        await self.service.boards.close()


async def open_ledger_service(event_store: Any, settings: Any, store: LedgerStore | None = None) -> LedgerService:
    """The ledger on the event store's database (`store`, or one opened here: close it with
    the service) and the live-state Redis (or memory)."""
    opened = store is None
    if store is None:
        store = await open_ledger(settings.database_url, store=event_store)
    boards = open_leaderboards(settings.redis_url, settings.live_namespace)
    service = LedgerService(store, boards, ledger_settings())
    try:
        if not await boards.is_built():
            await service.rebuild_leaderboards()
    except BaseException:
        await boards.close()
        if opened:
            await store.close()
        raise
    return service


async def start_ledger(server: grpc.aio.Server, backends: Any, settings: Any) -> LedgerResource:
    """Open the ledger, add its servicer to `server` and start settling; close the returned
    resource on stop."""
    service = await open_ledger_service(backends.store, settings, backends.ledger)
    ledger_pb2_grpc.add_LedgerServicer_to_server(LedgerServicer(service, backends.live, settings.ledger_calls_per_minute), server)
    resource = LedgerResource(service, SettlementConsumer(backends.store, service))
    resource.start()
    return resource
