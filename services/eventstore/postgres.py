"""The production event store: Postgres through psycopg 3 (async) and a connection pool."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from . import migrations
from .errors import CheckpointMoved, InvalidInput, StoreUnavailable, WrongExpectedVersion
from .records import START, GlobalPosition, RecordedEvent, Snapshot
from .store import EventStore, Handler

_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

# One statement, hence one round trip and one implicit transaction (the pool runs in autocommit):
# look up the command id, check the expected version, insert the events in order, and record the
# command's result. A second writer after the same version fails on the (stream_id, version)
# primary key; no row is ever silently skipped. NOTIFY is not sent from here: a notifying commit
# takes a database-wide lock, which halved throughput; see `_notify`.
_APPEND = """
WITH prior AS (
    SELECT version FROM command_results
    WHERE stream_id = %(stream)s AND command_id = %(command)s::text
), ok AS (
    SELECT NOT EXISTS (SELECT 1 FROM prior)
       AND (%(expected)s::bigint = 0 OR EXISTS (
            SELECT 1 FROM events WHERE stream_id = %(stream)s AND version = %(expected)s::bigint
       )) AS go
), ins AS (
    INSERT INTO events (stream_id, version, type, schema_version, data, metadata)
    SELECT %(stream)s, %(expected)s::bigint + x.n, x.type, x.schema_version, x.data::jsonb, x.metadata::jsonb
    FROM ok, unnest(%(types)s::text[], %(schemas)s::int[], %(datas)s::text[], %(metas)s::text[])
         WITH ORDINALITY AS x(type, schema_version, data, metadata, n)
    WHERE ok.go
    ORDER BY x.n
    RETURNING version
), cmd AS (
    INSERT INTO command_results (stream_id, command_id, version)
    SELECT %(stream)s, %(command)s::text, max(version) FROM ins
    HAVING %(command)s::text IS NOT NULL AND count(*) > 0
)
SELECT (SELECT version FROM prior), (SELECT max(version) FROM ins)
"""

_AFTER_CONFLICT = """
SELECT (SELECT version FROM command_results WHERE stream_id = %s AND command_id = %s::text),
       (SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s)
"""

_COLUMNS = "stream_id, version, tx_id::text, position, type, schema_version, data, metadata, recorded_at"

# Rows of transactions below the snapshot's xmin are final: every transaction that could still
# commit has a tx_id >= xmin, so it sorts after anything returned here.
_READ_ALL = f"""
SELECT {_COLUMNS} FROM events
WHERE (tx_id, position) > (%s::text::xid8, %s::bigint)
  AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY tx_id, position
LIMIT %s::int
"""

_READ_STREAM = f"""
SELECT {_COLUMNS} FROM events
WHERE stream_id = %s AND version >= %s::bigint AND version <= %s::bigint
ORDER BY version
"""

# A loose index scan: one index probe per distinct stream instead of reading every event.
_LIST_STREAMS = """
WITH RECURSIVE s(stream_id) AS (
    (SELECT stream_id FROM events WHERE stream_id >= %(p)s ORDER BY stream_id LIMIT 1)
    UNION ALL
    SELECT (SELECT e.stream_id FROM events e WHERE e.stream_id > s.stream_id
            ORDER BY e.stream_id LIMIT 1)
    FROM s WHERE starts_with(s.stream_id, %(p)s)
)
SELECT stream_id FROM s WHERE starts_with(stream_id, %(p)s)
"""

_SAVE_SNAPSHOT = """
INSERT INTO snapshots (stream_id, version, type, schema_version, data)
VALUES (%s, %s::bigint, %s, %s::int, %s::jsonb)
ON CONFLICT (stream_id) DO UPDATE
SET version = EXCLUDED.version, type = EXCLUDED.type, schema_version = EXCLUDED.schema_version,
    data = EXCLUDED.data, recorded_at = now()
WHERE snapshots.version <= EXCLUDED.version
"""


def _recorded(row: tuple) -> RecordedEvent:
    stream_id, version, tx_id, position, type_, schema, data, metadata, recorded_at = row
    return RecordedEvent(
        stream_id, version, GlobalPosition(int(tx_id), position), type_, schema, data, metadata, recorded_at
    )


def _is_connection_error(exc: BaseException) -> bool:
    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate
    # No SQLSTATE: the client lost or never had the connection. 08xxx connection exceptions,
    # 57P0x: the server is shutting down or cannot accept connections.
    return state is None or state.startswith("08") or state.startswith("57P0")


def split_url(url: str) -> tuple[str, str | None]:
    """`(url without the schema option, schema)`: libpq rejects query options it does not know."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = None
    kept = []
    for key, val in query:
        if key == "schema":
            schema = val
        else:
            kept.append((key, val))
    scheme = "postgresql" if parts.scheme == "postgres" else parts.scheme
    return urlunsplit((scheme, parts.netloc, parts.path, urlencode(kept), parts.fragment)), schema


class PgTransaction:
    """The `Transaction` a subscription handler gets on Postgres (`%s` parameters)."""

    backend = "postgres"
    paramstyle = "format"

    def __init__(self, conn: psycopg.AsyncConnection) -> None:
        self._conn = conn

    @property
    def connection(self) -> psycopg.AsyncConnection:
        return self._conn

    async def execute(self, query: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple]:
        cur = await self._conn.execute(query, params or None)
        return await cur.fetchall() if cur.description else []

    async def executemany(self, query: str, params: Sequence[Sequence[Any] | dict[str, Any]]) -> None:
        async with self._conn.cursor() as cur:
            await cur.executemany(query, params)


class PostgresEventStore(EventStore):
    """Postgres backend. Open it with `await PostgresEventStore.open(url)`."""

    backend = "postgres"

    def __init__(
        self,
        pool: AsyncConnectionPool,
        conninfo: str,
        schema: str,
        where: str,
        secret: str | None,
        known_type: Callable[[str], bool] | None,
    ) -> None:
        super().__init__(known_type)
        self._pool = pool
        self._conninfo = conninfo
        self.schema = schema
        self.channel = f"qipai_events.{schema}"
        self._where = where
        self._secret = secret
        self._listener: asyncio.Task | None = None
        self._notifier: asyncio.Task | None = None
        self._unannounced = asyncio.Event()

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        schema: str | None = None,
        known_type: Callable[[str], bool] | None = None,
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = 3.0,
    ) -> PostgresEventStore:
        """Connect, apply migrations (under an advisory lock), and open the pool.

        `schema` (or `?schema=` in the URL) keeps everything in that Postgres schema, created if
        missing; default `public`. Raises `StoreUnavailable` if the server does not answer within
        `connect_timeout` seconds.
        """
        base, url_schema = split_url(url)
        schema = schema or url_schema or "public"
        if not _SCHEMA_NAME.match(schema):
            raise InvalidInput(f"schema name {schema!r} must match {_SCHEMA_NAME.pattern}")
        try:
            params = conninfo_to_dict(base)
        except psycopg.ProgrammingError as exc:
            raise InvalidInput(f"not a Postgres URL: {exc}") from None
        where = "Postgres at {}:{}/{} as {}".format(
            params.get("host", "localhost"), params.get("port", 5432),
            params.get("dbname", "?"), params.get("user", "?"),
        )
        secret = params.get("password")
        options = " ".join(filter(None, [params.get("options"), f"-c search_path={schema}"]))
        conninfo = make_conninfo(
            base, options=options, connect_timeout=max(1, round(connect_timeout)),
            application_name=params.get("application_name", "qipai-eventstore"),
        )
        try:
            conn = await asyncio.wait_for(
                psycopg.AsyncConnection.connect(conninfo, autocommit=True), connect_timeout + 1
            )
        except (psycopg.OperationalError, TimeoutError, OSError) as exc:
            raise StoreUnavailable(_scrub(f"cannot reach {where}: {exc}", secret)) from None
        try:
            await _migrate(conn, schema)
        finally:
            await conn.close()
        pool = AsyncConnectionPool(
            conninfo, min_size=min_size, max_size=max_size, open=False,
            kwargs={"autocommit": True}, timeout=10.0, name=f"qipai-eventstore-{schema}",
        )
        try:
            await pool.open(wait=True, timeout=connect_timeout + 2)
        except PoolTimeout as exc:
            await pool.close()
            raise StoreUnavailable(_scrub(f"cannot reach {where}: {exc}", secret)) from None
        return cls(pool, conninfo, schema, where, secret, known_type)

    async def close(self) -> None:
        if self._pool.closed:
            return
        for task in (self._listener, self._notifier):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._listener = self._notifier = None
        await self._pool.close()

    def _appended(self) -> None:
        self.wakeup.bump()
        self._unannounced.set()
        if self._notifier is None or self._notifier.done():
            self._notifier = asyncio.create_task(self._notify(), name=f"notify {self.channel}")

    async def _notify(self) -> None:
        """Tell other processes' subscribers that events were appended, after the commit.

        One NOTIFY covers every append that committed while the previous one was in flight, so
        at most one is outstanding at a time. A notification lost to a crash in between is
        covered by the subscribers' polling.
        """
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
                async with conn:
                    while True:
                        await self._unannounced.wait()
                        self._unannounced.clear()
                        await conn.execute("SELECT pg_notify(%s, '')", (self.channel,))
            except psycopg.OperationalError:
                await asyncio.sleep(1.0)

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[psycopg.AsyncConnection]:
        try:
            async with self._pool.connection() as conn:
                yield conn
        except Exception as exc:
            if _is_connection_error(exc):
                raise StoreUnavailable(_scrub(f"lost {self._where}: {exc}", self._secret)) from None
            raise

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[PgTransaction]:
        async with self._connection() as conn, conn.transaction():
            yield PgTransaction(conn)

    async def _append(
        self, stream_id: str, expected: int, rows: list[tuple[str, int, str, str]], command_id: str | None
    ) -> int:
        params = {
            "stream": stream_id, "expected": expected, "command": command_id,
            "types": [r[0] for r in rows], "schemas": [r[1] for r in rows],
            "datas": [r[2] for r in rows], "metas": [r[3] for r in rows],
        }
        # A retry only happens when the stream moved between the check and the conflict lookup.
        for _ in range(3):
            async with self._connection() as conn:
                try:
                    cur = await conn.execute(_APPEND, params)
                    prior, new_version = await cur.fetchone()
                except psycopg.errors.UniqueViolation:
                    prior, new_version = None, None
                if prior is not None:
                    return prior
                if new_version is not None:
                    self._appended()
                    return new_version
                cur = await conn.execute(_AFTER_CONFLICT, (stream_id, command_id, stream_id))
                prior, actual = await cur.fetchone()
            if prior is not None:
                return prior
            if actual != expected:
                raise WrongExpectedVersion(stream_id, expected, actual)
        raise WrongExpectedVersion(stream_id, expected, actual)

    async def _read_stream(self, stream_id: str, first: int, last: int | None) -> list[RecordedEvent]:
        async with self._connection() as conn:
            cur = await conn.execute(_READ_STREAM, (stream_id, first, last if last is not None else 2**62))
            return [_recorded(row) for row in await cur.fetchall()]

    async def _read_all(self, after: GlobalPosition, limit: int) -> list[RecordedEvent]:
        async with self._connection() as conn:
            return await _select_all(conn, after, limit)

    async def _stream_version(self, stream_id: str) -> int:
        async with self._connection() as conn:
            cur = await conn.execute(
                "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s", (stream_id,)
            )
            return (await cur.fetchone())[0]

    async def _list_streams(self, prefix: str) -> list[str]:
        async with self._connection() as conn:
            cur = await conn.execute(_LIST_STREAMS, {"p": prefix})
            return [row[0] for row in await cur.fetchall()]

    async def _save_snapshot(self, stream_id: str, version: int, type: str, schema: int, data: str) -> None:
        async with self._connection() as conn:
            await conn.execute(_SAVE_SNAPSHOT, (stream_id, version, type, schema, data))

    async def _load_snapshot(self, stream_id: str) -> Snapshot | None:
        async with self._connection() as conn:
            cur = await conn.execute(
                "SELECT stream_id, version, type, schema_version, data, recorded_at"
                " FROM snapshots WHERE stream_id = %s",
                (stream_id,),
            )
            row = await cur.fetchone()
        return None if row is None else Snapshot(*row)

    async def _checkpoint(self, name: str) -> GlobalPosition:
        async with self._connection() as conn:
            cur = await conn.execute(
                "SELECT tx_id::text, position FROM subscription_checkpoints WHERE name = %s", (name,)
            )
            row = await cur.fetchone()
        return START if row is None else GlobalPosition(int(row[0]), row[1])

    async def _consume(self, name: str, batch_size: int, handler: Handler) -> int:
        async with self._connection() as conn:
            # Outside the batch's transaction, so that transaction has no tx id of its own while
            # it reads. Checkpoint rows are not events: skipping an existing one is the point.
            await conn.execute(
                "INSERT INTO subscription_checkpoints (name) VALUES (%s) ON CONFLICT (name) DO NOTHING",
                (name,),
            )
            async with conn.transaction():
                cur = await conn.execute(
                    "SELECT tx_id::text, position FROM subscription_checkpoints WHERE name = %s", (name,)
                )
                tx_id, position = await cur.fetchone()
                after = GlobalPosition(int(tx_id), position)
                events = await _select_all(conn, after, batch_size)
                if not events:
                    return 0
                await handler(PgTransaction(conn), events)
                last = events[-1].position
                # Compare-and-set: a second consumer of the same name loses here and rolls back.
                cur = await conn.execute(
                    "UPDATE subscription_checkpoints"
                    " SET tx_id = %s::text::xid8, position = %s, updated_at = now()"
                    " WHERE name = %s AND tx_id = %s::text::xid8 AND position = %s",
                    (str(last.tx_id), last.position, name, str(after.tx_id), after.position),
                )
                if cur.rowcount != 1:
                    raise CheckpointMoved(
                        f"subscription {name!r} was advanced by another consumer; batch rolled back"
                    )
            return len(events)

    async def _wait_for_appends(self, seen: int, timeout: float) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen(), name=f"listen {self.channel}")
        await self.wakeup.wait(seen, timeout)

    async def _listen(self) -> None:
        """Turn NOTIFYs from other processes' appends into wake-ups (polling covers the gaps)."""
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
                async with conn:
                    await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
                    # Anything committed while we were not listening must be looked at.
                    self.wakeup.bump()
                    async for _ in conn.notifies():
                        self.wakeup.bump()
            except psycopg.OperationalError:
                await asyncio.sleep(1.0)


async def _select_all(conn: psycopg.AsyncConnection, after: GlobalPosition, limit: int) -> list[RecordedEvent]:
    cur = await conn.execute(_READ_ALL, (str(after.tx_id), after.position, limit))
    return [_recorded(row) for row in await cur.fetchall()]


async def _migrate(conn: psycopg.AsyncConnection, schema: str) -> None:
    """Apply missing migrations in one transaction, serialised per schema by an advisory lock."""
    wanted = migrations.load(migrations.POSTGRES_DIR)
    ident = sql.Identifier(schema)
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"qipai.eventstore.{schema}",))
        await conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(ident))
        await conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(ident))
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        cur = await conn.execute("SELECT version, checksum FROM schema_migrations")
        applied = dict(await cur.fetchall())
        for migration in wanted:
            if migration.version in applied:
                migrations.verify(migration, applied[migration.version])
                continue
            await conn.execute(migration.sql)
            await conn.execute(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                (migration.version, migration.name, migration.checksum),
            )


def _scrub(message: str, secret: str | None) -> str:
    return message.replace(secret, "***") if secret else message
