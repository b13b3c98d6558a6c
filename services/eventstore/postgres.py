"""The production event store: Postgres through psycopg 3 (async) and a connection pool."""

from __future__ import annotations

import asyncio
import contextlib
import json
import json.encoder
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from . import migrations
from .errors import CheckpointMoved, Fenced, InvalidInput, StoreUnavailable, WrongExpectedVersion
from .group_commit import GroupCommit, PendingAppend
from .records import START, AppendRequest, GlobalPosition, RecordedEvent, Snapshot
from .store import EventStore, Handler

_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
# At most 20 wake-ups a second per process; subscribers also poll. Each NOTIFY is a round trip
# and a commit of its own: at 50 a second they were a third of a paced game node's Postgres
# calls (issue 18), for remote subscribers (the ledger) that wait at most this much longer.
NOTIFY_INTERVAL = 0.05
# Errors meaning another transaction appended to one of the batch's streams first; the
# statement was rolled back as a whole, so each append can simply be tried again on its own.
_RACED = (psycopg.errors.UniqueViolation, psycopg.errors.DeadlockDetected)

# One statement, hence one round trip and one implicit transaction (the pool runs in autocommit),
# for a whole batch of appends to distinct streams (see group_commit.py). Per append: look up its
# command id, check the stream is exactly at the expected version, insert its events in order,
# and record the command's result. An append that fails its check inserts nothing and reports
# the stream's actual version; the others go ahead. A writer racing in another transaction
# fails the whole statement on the (stream_id, version) primary key, and the batch is retried
# one append at a time: no row is ever silently skipped. Rows go in in stream order, so two
# batches touching the same streams wait for each other instead of deadlocking. NOTIFY is not sent from here: a
# notifying commit takes a database-wide lock, which halved throughput; see `_notify`.
_APPEND_BATCH = """
WITH req AS (
    SELECT * FROM jsonb_to_recordset(%s::jsonb)
        AS r(i int, stream text, expected bigint, command text, fence bigint, events jsonb)
), checked AS (
    -- Scalar subqueries, not EXISTS: the planner may turn EXISTS into a hashed scan of the
    -- whole table, and max() is one backward probe of the primary key.
    SELECT req.*,
        (SELECT c.version FROM command_results c
         WHERE c.stream_id = req.stream AND c.command_id = req.command) AS prior,
        (SELECT coalesce(max(e.version), 0) FROM events e WHERE e.stream_id = req.stream) AS actual,
        -- FOR SHARE: a concurrent fence() waits for this append, or this append sees its token.
        CASE WHEN req.fence IS NOT NULL THEN
            (SELECT f.token FROM stream_fences f WHERE f.stream_id = req.stream FOR SHARE)
        END AS newest
    FROM req
), go AS (
    SELECT * FROM checked
    WHERE prior IS NULL AND actual = expected AND (newest IS NULL OR newest <= fence)
), ins AS (
    INSERT INTO events (stream_id, version, type, schema_version, data, metadata)
    SELECT go.stream, go.expected + x.n, x.type, x.schema_version, x.data, x.metadata
    FROM go, ROWS FROM (jsonb_to_recordset(go.events)
                        AS (type text, schema_version int, data jsonb, metadata jsonb))
             WITH ORDINALITY AS x(type, schema_version, data, metadata, n)
    ORDER BY go.stream COLLATE "C", x.n
), cmd AS (
    INSERT INTO command_results (stream_id, command_id, version)
    SELECT go.stream, go.command, go.expected + jsonb_array_length(go.events)
    FROM go WHERE go.command IS NOT NULL
)
SELECT c.i, c.prior, c.prior IS NULL AND c.actual = c.expected AND NOT coalesce(c.newest > c.fence, false),
       CASE WHEN c.actual <> c.expected THEN c.actual END,
       CASE WHEN c.newest > c.fence THEN c.newest END
FROM checked c ORDER BY c.i
"""

_AFTER_CONFLICT = """
SELECT (SELECT version FROM command_results WHERE stream_id = %s AND command_id = %s::text),
       (SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s)
"""

# tx_id travels as text (psycopg has no xid8 loader) under another name: an output column
# called tx_id would capture "ORDER BY tx_id" and sort the log as text ("10" before "9").
_COLUMNS = (
    "e.stream_id, e.version, e.tx_id::text AS tx_text, e.position, e.type, e.schema_version,"
    " e.data, e.metadata, e.recorded_at"
)

# The horizon below which the log is final, taken one statement before the rows are read.
#
# The server-wide `pg_snapshot_xmin` is a safe horizon: every transaction that could still commit
# has an id at or above it. But it waits for every transaction on the server, so an unrelated long
# one (another database's, another schema's, a consumer's own) would hold subscribers back. When
# rows are waiting above it, the horizon is instead the oldest transaction id among this store's
# own writers still running (those holding a row-exclusive lock on this schema's `events`), or,
# with none, the next id the server will assign. Reading the lock table costs the writers a little,
# so it is read only then.
#
# Why the writers' horizon is enough: an append is one statement, which locks `events` before its
# transaction gets an id and keeps the lock until after its commit is visible. So a writer missing
# from the lock table here either finished before this statement (its rows are visible to the read
# that follows) or gets its id after this statement's snapshot, >= its xmax. pg_locks shows 32-bit
# ids: each is widened against that xmax (running ids are within 2^31 of it).
_HORIZON = """
WITH snap AS (SELECT pg_current_snapshot() AS s),
ref AS (SELECT pg_snapshot_xmin(s) AS xmin, pg_snapshot_xmax(s)::text::bigint AS xmax FROM snap)
SELECT CASE
    WHEN NOT EXISTS (SELECT 1 FROM events e WHERE e.tx_id >= ref.xmin
                     AND (e.tx_id, e.position) > (%s::text::xid8, %s::bigint))
        THEN ref.xmin::text
    ELSE (SELECT (ref.xmax - coalesce(max(w.behind) FILTER (WHERE w.behind < 2147483648), 0))::text
          FROM (SELECT ((ref.xmax %% 4294967296) - t.transactionid::text::bigint + 4294967296)
                       %% 4294967296 AS behind
                FROM pg_locks r
                JOIN pg_locks t ON t.pid = r.pid AND t.locktype = 'transactionid'
                               AND t.mode = 'ExclusiveLock' AND t.granted
                WHERE r.locktype = 'relation' AND r.mode = 'RowExclusiveLock' AND r.granted
                  AND r.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND r.relation = 'events'::regclass) w)
    END
FROM ref
"""

# Rows below the horizon (taken by an earlier statement) are final: every append that
# could still commit has a tx_id >= the horizon, so it sorts after anything returned here.
_READ_ALL = f"""
SELECT {_COLUMNS} FROM events e
WHERE (e.tx_id, e.position) > (%s::text::xid8, %s::bigint)
  AND e.tx_id < %s::text::xid8
ORDER BY e.tx_id, e.position
LIMIT %s::int
"""

_READ_STREAM = f"""
SELECT {_COLUMNS} FROM events e
WHERE e.stream_id = %s AND e.version >= %s::bigint AND e.version <= %s::bigint
ORDER BY e.version
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


def _recorded(row: tuple[Any, ...]) -> RecordedEvent:
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

    async def execute(self, query: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
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
        max_in_flight: int,
    ) -> None:
        super().__init__(known_type)
        self._pool = pool
        self._conninfo = conninfo
        self.schema = schema
        self.channel = f"qipai_events.{schema}"
        self._where = where
        self._secret = secret
        self._listener: asyncio.Task[None] | None = None
        self._notifier: asyncio.Task[None] | None = None
        self._unannounced = asyncio.Event()
        self._group = GroupCommit(self._run_batch, max_in_flight=max_in_flight)
        # One cursor per pooled connection for the appends, by the connection's id (the cursor
        # keeps it alive, so the id stays its own): a new cursor sets up its adapters afresh,
        # about a quarter of the client's Python work per append statement.
        self._cursors: dict[int, psycopg.AsyncCursor[Any]] = {}

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
        secret = str(params["password"]) if params.get("password") else None
        options = " ".join(filter(None, [str(params.get("options") or ""), f"-c search_path={schema}"]))
        conninfo = make_conninfo(
            base, options=options, connect_timeout=max(1, round(connect_timeout)),
            application_name=params.get("application_name", "qipai-eventstore"),
        )
        try:
            async with asyncio.timeout(connect_timeout + 1):
                conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
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
        return cls(pool, conninfo, schema, where, secret, known_type, max(1, max_size // 2))

    async def close(self) -> None:
        if self._pool.closed:
            return
        for task in (self._listener, self._notifier):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._listener = self._notifier = None
        await self._group.drain()
        self._cursors.clear()
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
                        # Each NOTIFY commit takes a database-wide lock: a few per second per
                        # process wake remote subscribers just as well as one per append.
                        await asyncio.sleep(NOTIFY_INTERVAL)
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

    async def _append(self, request: AppendRequest) -> int:
        return await self._group.submit(request)

    async def _fence(self, stream_id: str, token: int) -> None:
        async with self._connection() as conn:
            cur = await conn.execute(
                "INSERT INTO stream_fences AS f (stream_id, token) VALUES (%s, %s::bigint)"
                " ON CONFLICT (stream_id) DO UPDATE SET token = EXCLUDED.token, updated_at = now()"
                " WHERE f.token <= EXCLUDED.token"
                " RETURNING token",
                (stream_id, token),
            )
            if await cur.fetchone() is None:
                cur = await conn.execute(
                    "SELECT token FROM stream_fences WHERE stream_id = %s", (stream_id,)
                )
                raise Fenced(stream_id, token, (await _one(cur))[0])

    def _append_cursor(self, conn: psycopg.AsyncConnection) -> psycopg.AsyncCursor[Any]:
        cur = self._cursors.get(id(conn))
        if cur is None:
            for key in [key for key, old in self._cursors.items() if old.connection.closed]:
                del self._cursors[key]  # the pool let that connection go
            cur = self._cursors[id(conn)] = conn.cursor()
        return cur

    async def _run_batch(self, batch: list[PendingAppend]) -> None:
        async with self._connection() as conn:
            cur = self._append_cursor(conn)
            try:
                results = await _insert_batch(cur, batch)
            except _RACED:
                results = []
                for pending in batch:
                    try:
                        results += await _insert_batch(cur, [pending])
                    except _RACED:
                        results.append((None, False, None, None))
            wrote = False
            for pending, (prior, written, actual, newest) in zip(batch, results, strict=True):
                if prior is not None:
                    pending.resolve(prior)
                elif newest is not None:
                    pending.fail(Fenced(pending.stream_id, pending.fence or 0, newest))
                elif written:
                    wrote = True
                    pending.resolve(pending.expected + len(pending.rows))
                elif actual is not None:
                    pending.fail(WrongExpectedVersion(pending.stream_id, pending.expected, actual))
                else:
                    # Lost a race with another transaction, now committed: look again.
                    found = await conn.execute(
                        _AFTER_CONFLICT, (pending.stream_id, pending.command_id, pending.stream_id)
                    )
                    prior, actual = await _one(found)
                    if prior is not None:
                        pending.resolve(prior)
                    elif actual != pending.expected or pending.attempts >= 3 or pending.fence is not None:
                        pending.fail(WrongExpectedVersion(pending.stream_id, pending.expected, actual))
                    else:
                        self._group.retry(pending)
        if wrote:
            self._appended()

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
            return int((await _one(cur))[0])

    async def _command_version(self, stream_id: str, command_id: str) -> int | None:
        async with self._connection() as conn:
            cur = await conn.execute(
                "SELECT version FROM command_results WHERE stream_id = %s AND command_id = %s",
                (stream_id, command_id),
            )
            row = await cur.fetchone()
            return None if row is None else row[0]

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

    async def _consume(
        self, name: str, after: GlobalPosition | None, batch_size: int, handler: Handler
    ) -> tuple[int, GlobalPosition]:
        async with self._connection() as conn:
            if after is None:
                # Checkpoint rows are not events: leaving an existing one alone is the point.
                await conn.execute(
                    "INSERT INTO subscription_checkpoints (name) VALUES (%s)"
                    " ON CONFLICT (name) DO NOTHING",
                    (name,),
                )
                cur = await conn.execute(
                    "SELECT tx_id::text, position FROM subscription_checkpoints WHERE name = %s", (name,)
                )
                tx_id, position = await _one(cur)
                after = GlobalPosition(int(tx_id), position)
            # Read outside the batch's transaction: the compare-and-set below proves the
            # checkpoint did not move meanwhile, and an idle poll costs one round trip.
            events = await _select_all(conn, after, batch_size)
            if not events:
                return 0, after
            last = events[-1].position
            async with conn.transaction():
                await handler(PgTransaction(conn), events)
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
            return len(events), last

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


# C string quoting, not `json.dumps`, whose keyword handling costs more than the quoting; the
# rows' data and metadata are already checked JSON text and go in as they are.
_quote = json.encoder.encode_basestring_ascii


def _request_json(index: int, pending: PendingAppend) -> str:
    events = ",".join(
        f'{{"type":{_quote(t)},"schema_version":{s},"data":{d},"metadata":{m}}}'
        for t, s, d, m in pending.rows
    )
    command = "null" if pending.command_id is None else _quote(pending.command_id)
    fence = "null" if pending.fence is None else pending.fence
    return (
        f'{{"i":{index},"stream":{_quote(pending.stream_id)},"expected":{pending.expected},'
        f'"command":{command},"fence":{fence},"events":[{events}]}}'
    )


async def _insert_batch(
    cur: psycopg.AsyncCursor[Any], batch: list[PendingAppend]
) -> list[tuple[int | None, bool, int | None, int | None]]:
    """`(prior version, written, actual version if the expected one was wrong, newest fencing
    token if the append's was older)` per append."""
    # The events' data and metadata are already checked JSON text: splice, don't re-encode.
    requests = ",".join(_request_json(i, pending) for i, pending in enumerate(batch))
    await cur.execute(_APPEND_BATCH, ("[" + requests + "]",))
    return [tuple(row[1:]) for row in await cur.fetchall()]


async def _select_all(conn: psycopg.AsyncConnection, after: GlobalPosition, limit: int) -> list[RecordedEvent]:
    # Two statements, two snapshots: the horizon must be taken before the rows are read.
    horizon = (await _one(await conn.execute(_HORIZON, (str(after.tx_id), after.position))))[0]
    cur = await conn.execute(_READ_ALL, (str(after.tx_id), after.position, horizon, limit))
    return [_recorded(row) for row in await cur.fetchall()]


async def _migrate(conn: psycopg.AsyncConnection, schema: str) -> None:
    """Apply missing migrations in one transaction, serialised per schema by an advisory lock."""
    await migrations.apply_postgres(conn, schema, migrations.POSTGRES_DIR, "schema_migrations", f"qipai.eventstore.{schema}")


async def _one(cur: psycopg.AsyncCursor[Any]) -> tuple[Any, ...]:
    """The single row an aggregate or a checkpoint lookup always returns."""
    row = await cur.fetchone()
    if row is None:
        raise RuntimeError("the query returned no row")  # a bug, not bad input
    return tuple(row)


def _scrub(message: str, secret: str | None) -> str:
    return message.replace(secret, "***") if secret else message
