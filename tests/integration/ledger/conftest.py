"""Ledger fixtures: `ledger`, a ledger store on each backend (SQLite in tmp_path on the event
store's connection, Postgres in the test's own schema); `open_ledger()` opens another one on the
same database (a second process, as far as the database can tell); `service`, the ledger service
on it with a fake `clock` and in-memory leaderboards; `boards`, leaderboards in memory and Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from services.auth import ADMIN, PLAYER, Identity
from services.eventstore import open_event_store
from services.ledger.config import LedgerSettings
from services.ledger.leaderboard import Leaderboards, MemoryLeaderboards, open_leaderboards
from services.ledger.service import LedgerService
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


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def shanghai(text: str) -> datetime:
    """An aware datetime from local Asia/Shanghai time, e.g. "2026-12-01 23:59:59"."""
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(shanghai("2026-12-01 12:00:00"))


@pytest.fixture(params=["memory", "redis"])
async def boards(request: pytest.FixtureRequest) -> AsyncIterator[Leaderboards]:
    if request.param == "memory":
        yield MemoryLeaderboards()
        return
    url = request.getfixturevalue("redis_url")
    prefix = request.getfixturevalue("redis_prefix")
    opened = open_leaderboards(url, prefix.rstrip(":"))
    yield opened
    await opened.close()


@pytest.fixture
def ledger_config() -> LedgerSettings:
    return LedgerSettings(timezone="Asia/Shanghai", welcome_chips=1000, checkin_rewards="10,20,30,40,50,60,100")


@pytest.fixture
def service(ledger: LedgerStore, clock: FakeClock, ledger_config: LedgerSettings) -> LedgerService:
    return LedgerService(ledger, MemoryLeaderboards(), ledger_config, clock)


def player(name: str) -> Identity:
    return Identity(name, PLAYER)


def operator(name: str = "olga") -> Identity:
    return Identity(name, ADMIN)
