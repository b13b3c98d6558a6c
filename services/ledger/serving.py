"""The ledger inside `qipai serve`: open its store and leaderboards next to the event store,
rebuild the boards when their store is empty, and register the gRPC service."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc

from qipai.v1 import ledger_pb2_grpc

from .config import ledger_settings
from .leaderboard import open_leaderboards
from .service import LedgerService
from .servicer import LedgerServicer
from .store import open_ledger


@dataclass
class LedgerResource:
    service: LedgerService

    async def drain(self) -> None:
        return None

    async def close(self) -> None:
        await self.service.boards.close()
        await self.service.store.close()


async def open_ledger_service(event_store: Any, settings: Any) -> LedgerService:
    """The ledger on the event store's database and the live-state Redis (or memory)."""
    store = await open_ledger(settings.database_url, store=event_store)
    boards = open_leaderboards(settings.redis_url, settings.live_namespace)
    service = LedgerService(store, boards, ledger_settings())
    try:
        if not await boards.is_built():
            await service.rebuild_leaderboards()
    except BaseException:
        await boards.close()
        await store.close()
        raise
    return service


async def start_ledger(server: grpc.aio.Server, backends: Any, settings: Any) -> LedgerResource:
    """Open the ledger and add its servicer to `server`; close the returned resource on stop."""
    service = await open_ledger_service(backends.store, settings)
    ledger_pb2_grpc.add_LedgerServicer_to_server(LedgerServicer(service), server)
    return LedgerResource(service)
