"""A table service on each backend pair: embedded (SQLite + memory) and production (Postgres + Redis),
with a clock the test moves by hand so deadlines fire exactly when a test says."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine.core.contract import Status
from engine.table import Act, Sit
from services.bootstrap import table_service
from services.eventstore import open_event_store
from services.game.tables import TableService
from services.live import open_live_state


class FakeClock:
    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self.now = start_ms

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


@pytest.fixture(params=["embedded", "production"])
async def backends(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncIterator[dict]:
    """Store and live state, opened fresh for the test (reopen with `open_service`)."""
    clock = FakeClock()
    if request.param == "embedded":
        store_url, live_url = f"sqlite:///{tmp_path / 'events.sqlite3'}", "memory://"
        live_opts: dict[str, Any] = {"clock": clock}
    else:
        pg = request.getfixturevalue("postgres_url")
        schema = request.getfixturevalue("pg_schema")
        store_url = f"{pg}{'&' if '?' in pg else '?'}schema={schema}"
        live_url = request.getfixturevalue("redis_url")
        live_opts = {"namespace": request.getfixturevalue("redis_prefix").rstrip(":"), "clock": clock}
    opened: list[Any] = []

    shared: list[Any] = []
    stop = asyncio.Event()
    renewing: list[asyncio.Task] = []

    async def open_service(node_id: str = "") -> TableService:
        """Another node on the same backends (in memory, nodes share the one live state)."""
        store = await open_event_store(store_url)
        if live_url == "memory://" and shared:
            live = shared[0]
        else:
            live = open_live_state(live_url, **live_opts)
            shared.append(live)
            opened.append(live)
        opened.append(store)
        service = table_service(store, live, node_id=node_id, clock_ms=clock)
        # As on a real node, leases are renewed in the background while the test runs.
        renewing.append(asyncio.create_task(service.leases.run(stop)))
        return service

    yield {"open": open_service, "clock": clock, "kind": request.param}
    stop.set()
    await asyncio.gather(*renewing)
    for thing in reversed(opened):
        await thing.close()


async def pass_time(service: TableService, clock: FakeClock, ms: int) -> None:
    """Move the test's clock on by `ms`, renewing leases at least every second of it, as a
    node's renewal loop would have while that time passed."""
    while ms > 0:
        step = min(ms, 1000)
        clock.advance(step)
        ms -= step
        await service.leases.renew_once()


@pytest.fixture
async def service(backends: dict) -> TableService:
    return await backends["open"]()


async def seat_everyone(service: TableService, table_id: str, players: list[str]) -> None:
    for p in players:
        await service.execute(table_id, Sit(p), command_id=f"{p}:sit", actor=p)
    for p in players:
        await service.ready(table_id, p, command_id=f"{p}:ready")


async def play_with_bots(service: TableService, table_id: str, players: list[str], clock: FakeClock,
                         seed: int = 1, max_steps: int = 5000) -> None:
    """Bots act for every seat through the service (as clients would) until the hand ends;
    the table clock's own moves (dealing) come from firing its deadlines."""
    rng = random.Random(seed)
    for step in range(max_steps):
        table = await service.get(table_id)
        if table.status is not Status.IN_HAND:
            return
        rs = table.rules
        deadline = rs.deadline(table.game)
        owing = [s for s in deadline.defaults if s is not None]
        if not owing:
            await pass_time(service, clock, deadline.timeout_ms + 1)
            assert await service.fire_due() >= 1
            continue
        seat = owing[0]
        legal = rs.legal_actions(table.game, seat)
        cmd = rs.bots["random"](rs.view(table.game, seat), legal, rng) or deadline.defaults[seat]
        await service.execute(table_id, Act(players[seat], cmd), command_id=f"{players[seat]}:{step}",
                              actor=players[seat])
    raise AssertionError("the hand did not end")
