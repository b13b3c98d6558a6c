"""The event store: an append-only log of streams, one interface over Postgres and SQLite.

    store = await open_event_store("postgresql://user@host/db?schema=qipai")  # or sqlite:///var/qipai.db
    version = await store.append("table-42", 0, [NewEvent("daqi.TableCreated", {...})], command_id="c1")
    await store.fence("table-42", lease_token)   # then: append(..., fence=lease_token)
    events = await store.read_stream("table-42")
    sub = store.subscribe("ledger", handler)      # async handler(tx, events); run with await sub.run()

See `EventStore` for the contract and `Subscription` for exactly-once consumers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import (
    CheckpointMoved,
    EventStoreError,
    Fenced,
    InvalidInput,
    InvalidStreamId,
    InvalidVersion,
    MigrationError,
    NotSerialisable,
    PayloadTooLarge,
    StoreUnavailable,
    UnknownEventType,
    WrongExpectedVersion,
)
from .records import START, GlobalPosition, NewEvent, RecordedEvent, Snapshot
from .store import EventStore, Handler, Transaction
from .subscription import Subscription
from .validation import MAX_PAYLOAD_BYTES, MAX_STREAM_ID_LENGTH

__all__ = [
    "MAX_PAYLOAD_BYTES", "MAX_STREAM_ID_LENGTH", "START", "CheckpointMoved", "EventStore",
    "EventStoreError", "Fenced", "GlobalPosition", "Handler", "InvalidInput", "InvalidStreamId",
    "InvalidVersion", "MigrationError", "NewEvent", "NotSerialisable", "PayloadTooLarge",
    "RecordedEvent", "Snapshot", "StoreUnavailable", "Subscription", "Transaction",
    "UnknownEventType", "WrongExpectedVersion", "open_event_store",
]


async def open_event_store(
    url: str, *, known_type: Callable[[str], bool] | None = None, **options: Any
) -> EventStore:
    """Open the store named by `url`, applying migrations.

    `sqlite:///relative/path.db`, `sqlite:////absolute/path.db`, `sqlite:///:memory:`, or
    `postgresql://user:pass@host:port/db[?schema=name]`. `known_type(name)` decides which event
    types may be appended (default: types registered with `@event`). Postgres options: `schema`,
    `min_size`, `max_size`, `connect_timeout`; SQLite: `busy_timeout`.
    """
    if not isinstance(url, str):
        raise InvalidInput(f"event store URL must be text, got {type(url).__name__}")
    if url.startswith("sqlite:///"):
        from .sqlite import SqliteEventStore

        return await SqliteEventStore.open(url.removeprefix("sqlite:///"), known_type=known_type, **options)
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresEventStore

        return await PostgresEventStore.open(url, known_type=known_type, **options)
    raise InvalidInput(
        f"unsupported event store URL {url.split('://')[0]!r}://...: use sqlite:///path or postgresql://..."
    )
