"""The composition root: builds the backends from settings and wires the servicers to them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from services.config import Settings


@dataclass
class Backends:
    store: Any
    live: Any

    async def close(self) -> None:
        await self.live.close()
        await self.store.close()


async def open_backends(settings: Settings) -> Backends:
    """The event store and live state named by the settings (SQLite + memory by default)."""
    from services.eventstore import open_event_store
    from services.live import open_live_state

    if settings.database_url.startswith("sqlite:///"):
        from pathlib import Path

        path = settings.database_url.removeprefix("sqlite:///")
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    store = await open_event_store(settings.database_url)
    try:
        live = await open_live_state(settings.redis_url)
    except BaseException:
        await store.close()
        raise
    return Backends(store, live)


def register_services(
    server: grpc.aio.Server, services: Sequence[str], backends: Backends, settings: Settings
) -> None:
    """Add the servicers of `services` to `server` (services without RPCs yet only answer health)."""
