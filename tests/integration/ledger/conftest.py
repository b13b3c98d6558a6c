"""Ledger fixtures: `ledger`, a ledger store on each backend (SQLite in tmp_path on the event
store's connection, Postgres in the test's own schema); `open_ledger()` opens another one on the
same database (a second process, as far as the database can tell)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from services.eventstore import open_event_store
from services.ledger.store import LedgerStore, open_ledger

OpenLedger = Callable[[], Awaitable[LedgerStore]]


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    schema = request.getfixturevalue("pg_schema")
    url = request.getfixturevalue("postgres_url")
    return f"{url}{'&' if '?' in url else '?'}schema={schema}"


@pytest.fixture
async def open_another(ledger_url: str) -> AsyncIterator[OpenLedger]:
    opened: list[Any] = []

    async def open_() -> LedgerStore:
        store = None
        if ledger_url.startswith("sqlite"):
            store = await open_event_store(ledger_url)
            opened.append(store)
        ledger = await open_ledger(ledger_url, store=store)
        opened.insert(0, ledger)
        return ledger

    yield open_
    for resource in opened:
        await resource.close()


@pytest.fixture
async def ledger(open_another: OpenLedger) -> LedgerStore:
    return await open_another()
