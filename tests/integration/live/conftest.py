"""Fixtures of the live-state contract suite: every test runs against memory, a real Redis and a
real Redis Cluster."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from services.live import LiveState, Published, open_live_state


class FakeClock:
    """Milliseconds that move only when a test says so."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self.now_ms = start_ms

    def __call__(self) -> int:
        return self.now_ms

    def advance(self, ms: int) -> None:
        self.now_ms += ms


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def live_url(backend: str, request: pytest.FixtureRequest) -> str:
    if backend == "memory":
        return "memory://"
    return str(request.getfixturevalue("redis_url" if backend == "redis" else "redis_cluster_url"))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def namespace() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


OpenLive = Callable[..., LiveState]


@pytest.fixture
async def open_live(
    backend: str, live_url: str, namespace: str, clock: FakeClock
) -> AsyncIterator[OpenLive]:
    """Opens live states on the backend under test; their keys are deleted afterwards.

    Two opened with the same namespace are two nodes sharing one deployment; in memory that is
    one process, so they are the same object.
    """
    opened: list[LiveState] = []

    def open_(namespace: str = namespace, **options: Any) -> LiveState:
        if backend == "memory":
            for live in opened:
                if live.namespace == namespace and not options:
                    return live
        options.setdefault("clock", clock)
        live = open_live_state(live_url, namespace=namespace, **options)
        opened.append(live)
        return live

    yield open_
    for live in opened:
        await live.flush_namespace()
        await live.close()


@pytest.fixture
def live(open_live: OpenLive) -> LiveState:
    return open_live()


@pytest.fixture
def pass_time(backend: str, clock: FakeClock) -> Callable[[int], Awaitable[None]]:
    """Let `ms` pass: on the fake clock, and in real time on Redis, whose PX expiry is real."""

    async def pass_(ms: int) -> None:
        clock.advance(ms)
        if backend != "memory":
            await asyncio.sleep(ms / 1000)

    return pass_


async def collect(live: LiveState, table_id: str, after: int, count: int) -> list[Published]:
    """The next `count` messages a listener gets (generous wait: delivery is live, not timed)."""
    out: list[Published] = []

    async def run() -> None:
        async for message in live.listen(table_id, after):
            out.append(message)
            if len(out) == count:
                return

    await asyncio.wait_for(run(), timeout=10)
    return out
