"""Tables in and out of the event store: snapshot + tail, a cache of the tables this node
writes, the fenced append, and snapshots at hand boundaries."""

from __future__ import annotations

import hashlib
import hmac
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

from engine import table as tables
from engine.table import Table
from services.errors import NotFound
from services.eventstore import NewEvent, RecordedEvent, Snapshot
from services.game import snapshots
from services.observability import LIVE_TABLES, log

STREAM_PREFIX = "table-"
CACHE_SIZE = 20_000


class TableNotFound(NotFound):
    """No table with that id."""


def new_table_id() -> str:
    return STREAM_PREFIX + uuid.uuid4().hex[:16]


def requested_table_id(key: str, creator: str, request_id: str) -> str:
    """The table a create with `request_id` by `creator` makes: the same for a retry, so the
    retry finds it, and keyed with the server's secret (its token key), so nobody can name, and
    so claim or probe, the table another player's or the matchmaker's next request will make.
    The one rule for table ids from requests: the game's servicers and the matchmaker call it."""
    digest = hmac.new(key.encode(), f"{creator}:{request_id}".encode(), hashlib.sha256)
    return STREAM_PREFIX + digest.hexdigest()[:16]


class TableStore(Protocol):
    """What the table service needs of the event store (`EventStore` provides it)."""

    async def append(self, stream_id: str, expected_version: int, events: Sequence[NewEvent],
                     command_id: str | None = None, fence: int | None = None) -> int: ...

    async def fence(self, stream_id: str, token: int) -> None: ...

    async def stream_version(self, stream_id: str) -> int: ...

    async def read_stream(self, stream_id: str, from_version: int = 1,
                          to_version: int | None = None) -> list[RecordedEvent]: ...

    async def command_version(self, stream_id: str, command_id: str) -> int | None: ...

    async def list_streams(self, prefix: str | None = None) -> list[str]: ...

    async def save_snapshot(self, stream_id: str, version: int, type: str, schema_version: int,
                            data: dict[str, Any]) -> None: ...

    async def load_snapshot(self, stream_id: str) -> Snapshot | None: ...


class TableRepository:
    """Loads and stores tables. The cache is only as current as this node's own writes: the
    ownership unit empties a table's entry whenever another node may have written it."""

    def __init__(self, store: TableStore, cache_size: int = CACHE_SIZE) -> None:
        self.store = store
        self.cache_size = cache_size
        self._cache: OrderedDict[str, Table] = OrderedDict()
        # When each table's latest event was recorded (deadlines count from it after a restart),
        # and its latest command by a person rather than the server (the abandon policy's clock).
        self.last_event_ms: dict[str, int] = {}
        self.last_human_ms: dict[str, int] = {}

    def cached(self, table_id: str) -> Table | None:
        return self._cache.get(table_id)

    def cached_ids(self) -> list[str]:
        return list(self._cache)

    def remember(self, table: Table) -> None:
        self._cache[table.table_id] = table
        self._cache.move_to_end(table.table_id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        LIVE_TABLES.set(len(self._cache))

    def forget(self, table_id: str) -> None:
        self._cache.pop(table_id, None)

    def forget_all(self) -> None:
        self._cache.clear()

    async def load(self, table_id: str, *, must_exist: bool) -> Table:
        """The table (cached, else read); TableNotFound if it has no events and `must_exist`."""
        table = self._cache.get(table_id)
        if table is not None:
            return table
        table = await self.read(table_id)
        if not table.exists:
            if must_exist:
                raise TableNotFound(f"no table {table_id!r}")
            return table
        self.remember(table)
        return table

    async def read(self, table_id: str) -> Table:
        """The table as the store has it (snapshot + tail), bypassing the cache."""
        table, human_ms = await self._from_snapshot(table_id)
        records = await self.store.read_stream(table_id, table.version + 1)
        for rec in records:
            table = tables.evolve(table, rec.decode())
        if records:
            self.last_event_ms[table_id] = int(records[-1].recorded_at.timestamp() * 1000)
            human = next((rec for rec in reversed(records)
                          if rec.metadata.get("actor", "server") != "server"), None)
            if human is not None:
                human_ms = int(human.recorded_at.timestamp() * 1000)
            elif human_ms is None:
                # A snapshot from before it kept the time (schema < 5): the tail's start is a
                # generous bound, the person acted before it.
                human_ms = int(records[0].recorded_at.timestamp() * 1000)
        if human_ms is not None:
            self.last_human_ms[table_id] = human_ms
        return table

    async def _from_snapshot(self, table_id: str) -> tuple[Table, int | None]:
        """The table its snapshot holds and when a person last acted at it then (an empty
        table and None without a readable one)."""
        snap = await self.store.load_snapshot(table_id)
        if snap is None:
            return Table(), None
        try:
            return (snapshots.decode(snap.schema_version, snap.data),
                    snapshots.last_human_ms(snap.schema_version, snap.data))
        except snapshots.SnapshotUnreadable as exc:
            log.warning("snapshot_unreadable", table_id=table_id, version=snap.version,
                        schema=snap.schema_version, error=str(exc))
            return Table(), None

    async def append(self, table_id: str, version: int, new: Sequence[NewEvent],
                     command_id: str | None, fence: int) -> int:
        """Store `new` after `version` under the lease token `fence` (see EventStore.append)."""
        return await self.store.append(table_id, version, new, command_id=command_id, fence=fence)

    async def stored_command(self, table_id: str, command_id: str) -> dict[str, Any] | None:
        """The command stored under `command_id` (`{"type", "data"}`), or None if there is none."""
        version = await self.store.command_version(table_id, command_id)
        if version is None:
            return None
        for rec in reversed(await self.store.read_stream(table_id, 1, version)):
            if rec.metadata.get("command_id") == command_id and "command" in rec.metadata:
                stored: dict[str, Any] = rec.metadata["command"]
                return stored
        return {}  # stored before commands were recorded in the metadata

    async def save_snapshot(self, table: Table) -> None:
        await self.store.save_snapshot(table.table_id, table.version, snapshots.SNAPSHOT_TYPE,
                                       snapshots.SCHEMA_VERSION,
                                       snapshots.encode(table, self.last_human_ms.get(table.table_id)))

    async def events(self, table_id: str, first: int = 1,
                     last: int | None = None) -> list[RecordedEvent]:
        return await self.store.read_stream(table_id, first, last)

    async def table_ids(self) -> list[str]:
        return await self.store.list_streams(STREAM_PREFIX)
