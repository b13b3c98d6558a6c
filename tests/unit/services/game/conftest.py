"""The table service's units on the in-memory backends (SQLite in memory, memory live state),
with a clock the test moves by hand."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine.table import Sit
from services.bootstrap import table_service
from services.eventstore import EventStore, open_event_store
from services.game.tables import TableService
from services.live import LiveState, open_live_state

FAST_DAQI = {"deal_interval_ms": 0, "bid_window_ms": 0}
DAQI = ["ann", "bob", "cai", "dan", "eve"]
SIT = 2  # events a Sit records: the player seated and their buy-in


class FakeClock:
    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self.now = start_ms

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def store() -> AsyncIterator[EventStore]:
    opened = await open_event_store("sqlite:///:memory:")
    yield opened
    await opened.close()


@pytest.fixture
async def live(clock: FakeClock) -> AsyncIterator[LiveState]:
    opened = open_live_state("memory://", clock=clock)
    yield opened
    await opened.close()


@pytest.fixture
def node(store: EventStore, live: LiveState, clock: FakeClock) -> TableService:
    return table_service(store, live, node_id="node-a", address="a:1", clock_ms=clock)


def other_node(store: EventStore, live: LiveState, clock: Any, name: str = "node-b") -> TableService:
    return table_service(store, live, node_id=name, address=f"{name}:1", clock_ms=clock)


async def seated(service: TableService, ruleset: str = "daqi", options: dict[str, Any] | None = None,
                 players: list[str] = DAQI) -> str:
    """A table with everyone seated and ready (the first hand dealt, for a fast daqi)."""
    table_id = (await service.create(ruleset, FAST_DAQI if options is None else options, "ann")).table.table_id
    for p in players:
        await service.execute(table_id, Sit(p),
                              command_id=f"{p}:sit", actor=p)
    for p in players:
        await service.ready(table_id, p, command_id=f"{p}:ready")
    return table_id
