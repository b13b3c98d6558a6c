"""The event-store fixtures (`pg_schema` and `redis_prefix`, per-test isolation on the shared
services, live in tests/conftest.py, shared with the e2e tests).

- `store`: an event store on each backend (`sqlite` file in tmp_path, `postgres` in `pg_schema`);
  `open_store()` opens (or reopens) another store on the same database.
- `pg_store`: a Postgres event store in `pg_schema`, for Postgres-only tests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from services.eventstore import EventStore, open_event_store

OpenStore = Callable[..., Awaitable[EventStore]]


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'events.sqlite3'}"
    schema = request.getfixturevalue("pg_schema")
    url = request.getfixturevalue("postgres_url")
    return f"{url}{'&' if '?' in url else '?'}schema={schema}"


@pytest.fixture
async def open_store(store_url: str) -> AsyncIterator[OpenStore]:
    """Opens stores on the test's database; all are closed after the test."""
    opened: list[EventStore] = []

    async def open_(**options: Any) -> EventStore:
        store = await open_event_store(store_url, **options)
        opened.append(store)
        return store

    yield open_
    for store in opened:
        await store.close()


@pytest.fixture
async def store(open_store: OpenStore) -> EventStore:
    return await open_store()


@pytest.fixture
async def pg_store(postgres_url: str, pg_schema: str) -> AsyncIterator[EventStore]:
    """A Postgres event store in the test's own schema (for Postgres-only behaviour)."""
    store = await open_event_store(postgres_url, schema=pg_schema)
    yield store
    await store.close()
