"""The embedded event store: stdlib sqlite3 on one dedicated thread, WAL mode.

Every database call runs on a single worker thread, in submission order, so a rollback queued
after a cancelled call always runs after it. An asyncio lock gives one coroutine the connection
for a whole transaction (a subscription batch spans several awaits).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from . import migrations
from .errors import (
    CheckpointMoved,
    EventStoreError,
    Fenced,
    MigrationError,
    StoreUnavailable,
    WrongExpectedVersion,
)
from .records import START, AppendRequest, GlobalPosition, RecordedEvent, Snapshot
from .store import EventStore, Handler

T = TypeVar("T")

_COLUMNS = "stream_id, version, position, type, schema_version, data, metadata, recorded_at"


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _recorded(row: tuple[Any, ...]) -> RecordedEvent:
    stream_id, version, position, type_, schema, data, metadata, recorded_at = row
    return RecordedEvent(
        stream_id, version, GlobalPosition(0, position), type_, schema,
        json.loads(data), json.loads(metadata), datetime.fromisoformat(recorded_at),
    )


class SqliteTransaction:
    """The `Transaction` a subscription handler gets on SQLite (`?` parameters)."""

    backend = "sqlite"
    paramstyle = "qmark"

    def __init__(self, store: SqliteEventStore) -> None:
        self._store = store

    @property
    def connection(self) -> sqlite3.Connection:
        return self._store._conn

    async def execute(self, query: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        return await self._store._run(lambda conn: conn.execute(query, params).fetchall())

    async def executemany(self, query: str, params: Sequence[Sequence[Any] | dict[str, Any]]) -> None:
        await self._store._run(lambda conn: conn.executemany(query, params))


class SqliteEventStore(EventStore):
    """SQLite backend. Open it with `await SqliteEventStore.open(path)` (or ":memory:")."""

    backend = "sqlite"

    def __init__(
        self,
        conn: sqlite3.Connection,
        executor: ThreadPoolExecutor,
        known_type: Callable[[str], bool] | None,
    ) -> None:
        super().__init__(known_type)
        self._conn = conn
        self._executor = executor
        self._lock = asyncio.Lock()
        self._closed = False

    @classmethod
    async def open(
        cls, path: str, *, known_type: Callable[[str], bool] | None = None, busy_timeout: float = 5.0
    ) -> SqliteEventStore:
        """Open (creating the file and its folder if needed) and apply migrations."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qipai-sqlite")

        def connect() -> sqlite3.Connection:
            if path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("PRAGMA foreign_keys=ON")
                _migrate(conn)
            except BaseException:
                conn.close()
                raise
            return conn

        loop = asyncio.get_running_loop()
        try:
            conn = await loop.run_in_executor(executor, connect)
        except (sqlite3.Error, OSError) as exc:
            executor.shutdown(wait=False)
            raise StoreUnavailable(f"cannot open SQLite database {path!r}: {exc}") from None
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(conn, executor, known_type)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        async with self._lock:
            await self._run(lambda conn: conn.close())
        self._executor.shutdown(wait=True)

    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, fn, self._conn)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "unable to open" in str(exc) or "disk" in str(exc):
                raise StoreUnavailable(f"SQLite database unavailable: {exc}") from None
            raise
        except RuntimeError as exc:
            # The executor was shut down: the store is closed.
            raise StoreUnavailable(f"the SQLite event store is closed ({exc})") from None

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        async with self._lock:
            return await self._run(fn)

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteTransaction]:
        async with self._lock:
            await self._run(lambda conn: conn.execute("BEGIN IMMEDIATE"))
            try:
                yield SqliteTransaction(self)
                await self._run(lambda conn: conn.execute("COMMIT"))
            except BaseException:
                await asyncio.shield(self._run(_rollback))
                raise

    async def _append(self, request: AppendRequest) -> int:
        stream_id, expected, rows, command_id, fence = request

        def append(conn: sqlite3.Connection) -> int | EventStoreError:
            with _transaction(conn):
                if command_id is not None:
                    prior = conn.execute(
                        "SELECT version FROM command_results WHERE stream_id = ? AND command_id = ?",
                        (stream_id, command_id),
                    ).fetchone()
                    if prior is not None:
                        return int(prior[0])
                if fence is not None:
                    newest = _fence_of(conn, stream_id)
                    if newest is not None and newest > fence:
                        return Fenced(stream_id, fence, newest)
                actual = conn.execute(
                    "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = ?", (stream_id,)
                ).fetchone()[0]
                if actual != expected:
                    return WrongExpectedVersion(stream_id, expected, actual)
                now = _now()
                conn.executemany(
                    "INSERT INTO events (stream_id, version, type, schema_version, data, metadata,"
                    " recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(stream_id, expected + i, t, s, d, m, now) for i, (t, s, d, m) in enumerate(rows, 1)],
                )
                new_version = expected + len(rows)
                if command_id is not None:
                    conn.execute(
                        "INSERT INTO command_results (stream_id, command_id, version, recorded_at)"
                        " VALUES (?, ?, ?, ?)",
                        (stream_id, command_id, new_version, now),
                    )
                return new_version

        result = await self._call(append)
        if isinstance(result, EventStoreError):
            raise result
        self.wakeup.bump()
        return result

    async def _fence(self, stream_id: str, token: int) -> None:
        def fence(conn: sqlite3.Connection) -> int | None:
            with _transaction(conn):
                newest = _fence_of(conn, stream_id)
                if newest is not None and newest > token:
                    return newest
                conn.execute(
                    "INSERT INTO stream_fences (stream_id, token, updated_at) VALUES (?, ?, ?)"
                    " ON CONFLICT (stream_id) DO UPDATE SET token = excluded.token,"
                    " updated_at = excluded.updated_at",
                    (stream_id, token, _now()),
                )
                return None

        newest = await self._call(fence)
        if newest is not None:
            raise Fenced(stream_id, token, newest)

    async def _read_stream(self, stream_id: str, first: int, last: int | None) -> list[RecordedEvent]:
        rows = await self._call(
            lambda conn: conn.execute(
                f"SELECT {_COLUMNS} FROM events WHERE stream_id = ? AND version BETWEEN ? AND ?"
                " ORDER BY version",
                (stream_id, first, last if last is not None else 2**62),
            ).fetchall()
        )
        return [_recorded(row) for row in rows]

    async def _read_all(self, after: GlobalPosition, limit: int) -> list[RecordedEvent]:
        rows = await self._call(lambda conn: _select_all(conn, after, limit))
        return [_recorded(row) for row in rows]

    async def _stream_version(self, stream_id: str) -> int:
        return await self._call(
            lambda conn: conn.execute(
                "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = ?", (stream_id,)
            ).fetchone()[0]
        )

    async def _command_version(self, stream_id: str, command_id: str) -> int | None:
        row = await self._call(
            lambda conn: conn.execute(
                "SELECT version FROM command_results WHERE stream_id = ? AND command_id = ?",
                (stream_id, command_id),
            ).fetchone()
        )
        return None if row is None else row[0]

    async def _list_streams(self, prefix: str) -> list[str]:
        # substr instead of LIKE: stream ids may contain % and _.
        rows = await self._call(
            lambda conn: conn.execute(
                "SELECT DISTINCT stream_id FROM events WHERE substr(stream_id, 1, ?) = ?"
                " ORDER BY stream_id",
                (len(prefix), prefix),
            ).fetchall()
        )
        return [row[0] for row in rows]

    async def _save_snapshot(self, stream_id: str, version: int, type: str, schema: int, data: str) -> None:
        await self._call(
            lambda conn: conn.execute(
                "INSERT INTO snapshots (stream_id, version, type, schema_version, data, recorded_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (stream_id) DO UPDATE SET"
                " version = excluded.version, type = excluded.type,"
                " schema_version = excluded.schema_version, data = excluded.data,"
                " recorded_at = excluded.recorded_at WHERE snapshots.version <= excluded.version",
                (stream_id, version, type, schema, data, _now()),
            )
        )

    async def _load_snapshot(self, stream_id: str) -> Snapshot | None:
        row = await self._call(
            lambda conn: conn.execute(
                "SELECT stream_id, version, type, schema_version, data, recorded_at"
                " FROM snapshots WHERE stream_id = ?",
                (stream_id,),
            ).fetchone()
        )
        if row is None:
            return None
        sid, version, type_, schema, data, recorded_at = row
        return Snapshot(sid, version, type_, schema, json.loads(data), datetime.fromisoformat(recorded_at))

    async def _checkpoint(self, name: str) -> GlobalPosition:
        row = await self._call(
            lambda conn: conn.execute(
                "SELECT position FROM subscription_checkpoints WHERE name = ?", (name,)
            ).fetchone()
        )
        return START if row is None else GlobalPosition(0, row[0])

    async def _consume(
        self, name: str, after: GlobalPosition | None, batch_size: int, handler: Handler
    ) -> tuple[int, GlobalPosition]:
        def checkpoint(conn: sqlite3.Connection) -> GlobalPosition:
            conn.execute(
                "INSERT INTO subscription_checkpoints (name, position, updated_at) VALUES (?, 0, ?)"
                " ON CONFLICT (name) DO NOTHING",
                (name, _now()),
            )
            row = conn.execute(
                "SELECT position FROM subscription_checkpoints WHERE name = ?", (name,)
            ).fetchone()
            return GlobalPosition(0, row[0])

        def commit(conn: sqlite3.Connection, last: int) -> None:
            cur = conn.execute(
                "UPDATE subscription_checkpoints SET position = ?, updated_at = ?"
                " WHERE name = ? AND position = ?",
                (last, _now(), name, start.position),
            )
            if cur.rowcount != 1:
                raise CheckpointMoved(
                    f"subscription {name!r} was advanced by another consumer; batch rolled back"
                )
            conn.execute("COMMIT")

        async with self._lock:
            start = after if after is not None else await self._run(checkpoint)
            rows = await self._run(lambda conn: _select_all(conn, start, batch_size))
            if not rows:
                return 0, start
            events = [_recorded(row) for row in rows]
            last = events[-1].position
            try:
                await self._run(lambda conn: conn.execute("BEGIN IMMEDIATE"))
                await handler(SqliteTransaction(self), events)
                await self._run(lambda conn: commit(conn, last.position))
            except BaseException:
                # Shielded and queued behind whatever the thread is running, so the rollback
                # happens even if this task is cancelled again while waiting for it.
                await asyncio.shield(self._run(_rollback))
                raise
        return len(events), last


def _fence_of(conn: sqlite3.Connection, stream_id: str) -> int | None:
    row = conn.execute("SELECT token FROM stream_fences WHERE stream_id = ?", (stream_id,)).fetchone()
    return None if row is None else row[0]


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        conn.execute("ROLLBACK")


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _select_all(conn: sqlite3.Connection, after: GlobalPosition, limit: int) -> list[tuple[Any, ...]]:
    # tx_id is always 0 here; a cursor from elsewhere with a larger tx_id has nothing after it.
    if after.tx_id != 0:
        return []
    return conn.execute(
        f"SELECT {_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?",
        (after.position, limit),
    ).fetchall()


def _statements(script: str) -> list[str]:
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip() and not all(
        part.strip().startswith("--") or not part.strip() for part in buffer.splitlines()
    ):
        raise MigrationError(f"unterminated SQL statement: {buffer.strip()[:80]}")
    return statements


def _migrate(conn: sqlite3.Connection) -> None:
    """Apply missing migrations in one transaction (BEGIN IMMEDIATE serialises processes)."""
    wanted = migrations.load(migrations.SQLITE_DIR)
    with _transaction(conn):
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
            " name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        applied = dict(conn.execute("SELECT version, checksum FROM schema_migrations").fetchall())
        for migration in migrations.unapplied(wanted, applied):
            for statement in _statements(migration.sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                (migration.version, migration.name, migration.checksum, _now()),
            )
