"""The production ledger: Postgres, with transfers posted in batches by one SQL function.

Under load the cost of a transfer is mostly per transaction (a round trip, a commit, a WAL
flush) and per row lock. Transfers that wait at the same moment share one call of
`ledger_post` (postgres_migrations/): one round trip, one commit, and each account row updated
once per batch with the batch's net change. Each transfer is still decided on its own.
Concurrent batches use different house shards, so a storm of check-ins does not queue on one row.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from services.eventstore import migrations
from services.eventstore.postgres import split_url

from . import accounts
from .errors import InsufficientFunds, LedgerUnavailable, UnknownAccount
from .store import (
    AUDIT_COUNT,
    AUDIT_MISMATCHES,
    AUDIT_STRANDED,
    AUDIT_TOTALS,
    HISTORY_PAGE_MAX,
    TRANSFER_COLUMNS,
    AuditReport,
    LedgerStore,
    audit_report,
    opens,
    same_or_conflict,
)
from .transfers import Posted, Transfer, stored

MIGRATIONS = files("services.ledger") / "postgres_migrations"
_RETRY = (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure)

_HISTORY = f"""
SELECT {TRANSFER_COLUMNS} FROM (
    (SELECT * FROM ledger_transfers WHERE debit = ANY(%(acc)s) AND currency = %(cur)s
        AND sequence < %(before)s ORDER BY debit, currency, sequence DESC LIMIT %(n)s)
    UNION ALL
    (SELECT * FROM ledger_transfers WHERE credit = ANY(%(acc)s) AND currency = %(cur)s
        AND sequence < %(before)s ORDER BY credit, currency, sequence DESC LIMIT %(n)s)
) t ORDER BY sequence DESC LIMIT %(n)s
"""


@dataclass(eq=False)
class _Pending:
    transfer: Transfer
    open_credit: bool
    future: asyncio.Future[Posted]


def _is_connection_error(exc: BaseException) -> bool:
    if isinstance(exc, PoolTimeout):
        return True
    return isinstance(exc, psycopg.OperationalError) and (
        exc.sqlstate is None or exc.sqlstate.startswith(("08", "57P0"))
    )


def _stored_account(name: str, shard: int) -> str:
    return accounts.house_shard(shard) if name == accounts.HOUSE else name


def _request(i: int, transfer: Transfer, open_credit: bool, shard: int) -> dict[str, Any]:
    return {
        "i": i, "id": transfer.id, "debit": _stored_account(transfer.debit, shard),
        "credit": _stored_account(transfer.credit, shard), "currency": transfer.currency,
        "amount": transfer.amount, "kind": transfer.kind, "reason": transfer.reason,
        "details": dict(transfer.details), "open_credit": open_credit,
    }


class PostgresLedger(LedgerStore):
    """Open with `await PostgresLedger.open(url)`."""

    backend = "postgres"

    def __init__(self, pool: AsyncConnectionPool, where: str, max_in_flight: int, max_batch: int) -> None:
        self._pool = pool
        self._where = where
        self._queue: collections.deque[_Pending] = collections.deque()
        self._max_in_flight = max_in_flight
        self._max_batch = max_batch
        self._active = 0
        self._flushers: set[asyncio.Task[None]] = set()
        self._batches = 0

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        schema: str | None = None,
        max_size: int = 6,
        connect_timeout: float = 3.0,
        max_batch: int = 256,
    ) -> PostgresLedger:
        """Connect, apply the ledger's migrations (in `schema`, else the URL's `?schema=`,
        else `public`) and open a pool of `max_size` connections."""
        base, url_schema = split_url(url)
        schema = schema or url_schema or "public"
        params = conninfo_to_dict(base)
        where = "Postgres at {}:{}/{}".format(
            params.get("host", "localhost"), params.get("port", 5432), params.get("dbname", "?"))
        options = " ".join(filter(None, [str(params.get("options") or ""), f"-c search_path={schema}"]))
        conninfo = make_conninfo(base, options=options, connect_timeout=max(1, round(connect_timeout)),
                                 application_name="qipai-ledger")
        try:
            async with asyncio.timeout(connect_timeout + 1):
                conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
        except (psycopg.OperationalError, TimeoutError, OSError) as exc:
            raise LedgerUnavailable(f"cannot reach {where}: {exc}") from None
        try:
            await _migrate(conn, schema)
        finally:
            await conn.close()
        pool = AsyncConnectionPool(conninfo, min_size=1, max_size=max_size, open=False,
                                   kwargs={"autocommit": True}, timeout=10.0, name=f"qipai-ledger-{schema}")
        try:
            await pool.open(wait=True, timeout=connect_timeout + 2)
        except PoolTimeout as exc:
            await pool.close()
            raise LedgerUnavailable(f"cannot reach {where}: {exc}") from None
        return cls(pool, where, max(1, max_size - 1), max_batch)

    async def close(self) -> None:
        while self._flushers:
            await asyncio.gather(*self._flushers, return_exceptions=True)
        await self._pool.close()

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[psycopg.AsyncConnection]:
        try:
            async with self._pool.connection() as conn:
                yield conn
        except Exception as exc:
            if _is_connection_error(exc):
                raise LedgerUnavailable(f"lost {self._where}: {exc}") from None
            raise

    # Posting: callers queue, flushers post what is queued in batches.

    async def post(self, transfer: Transfer, *, open_credit: bool = False) -> Posted:
        future: asyncio.Future[Posted] = asyncio.get_running_loop().create_future()
        self._queue.append(_Pending(transfer, open_credit, future))
        while self._queue and self._active < self._max_in_flight:
            self._active += 1
            task = asyncio.create_task(self._flush())
            self._flushers.add(task)
            task.add_done_callback(self._flushers.discard)
        return await future

    def _take_batch(self) -> list[_Pending]:
        batch: list[_Pending] = []
        ids: set[str] = set()
        held_back: list[_Pending] = []
        while self._queue and len(batch) < self._max_batch:
            pending = self._queue.popleft()
            if pending.future.done():
                continue
            # Two transfers with one id in one statement would both look posted: the second
            # waits for the next batch and finds the first there.
            (held_back if pending.transfer.id in ids else batch).append(pending)
            ids.add(pending.transfer.id)
        self._queue.extendleft(reversed(held_back))
        return batch

    async def _flush(self) -> None:
        try:
            while batch := self._take_batch():
                try:
                    async with self._connection() as conn:
                        await self._post_batch(conn, batch)
                except Exception as exc:
                    for pending in batch:
                        if not pending.future.done():
                            pending.future.set_exception(exc)
                except BaseException:
                    for pending in batch:
                        pending.future.cancel()
                    raise
        finally:
            self._active -= 1

    async def _post_batch(self, conn: psycopg.AsyncConnection, batch: list[_Pending]) -> None:
        self._batches += 1
        shard = self._batches
        for attempt in range(5):
            try:
                outcomes = await _call_post(
                    conn, [_request(i, p.transfer, p.open_credit, shard) for i, p in enumerate(batch)])
                break
            except psycopg.errors.CheckViolation:
                if len(batch) == 1:
                    _settle(batch[0].future, await _insufficient(conn, batch[0].transfer))
                    return
                # Some transfer in the batch would overdraw its account: split to find it,
                # the others still post.
                half = len(batch) // 2
                await self._post_batch(conn, batch[:half])
                await self._post_batch(conn, batch[half:])
                return
            except _RETRY:
                if attempt == 4:
                    raise
                await asyncio.sleep(0.001 * 2**attempt)
        for pending, outcome in zip(batch, outcomes, strict=True):
            try:
                result: Posted | Exception = await _decided(conn, pending.transfer, outcome)
            except Exception as exc:
                result = exc
            _settle(pending.future, result)

    async def post_in(self, tx: Any, transfers: Sequence[Transfer], *,
                      open_credit: bool | Sequence[bool] = False) -> list[Posted]:
        conn: psycopg.AsyncConnection = tx.connection
        self._batches += 1
        flags = opens(open_credit, len(transfers))
        requests = [_request(i, t, flags[i], self._batches) for i, t in enumerate(transfers)]
        try:
            async with conn.transaction():  # a savepoint: an overdraft leaves `tx` usable
                outcomes = await _call_post(conn, requests)
        except psycopg.errors.CheckViolation:
            raise await _first_overdraft(conn, transfers, flags, self._batches) from None
        return [await _decided(conn, t, outcome) for t, outcome in zip(transfers, outcomes, strict=True)]

    async def close_tables_in(self, tx: Any, closed: Sequence[tuple[str, str]]) -> None:
        conn: psycopg.AsyncConnection = tx.connection
        for table_key, reason in closed:
            await conn.execute("INSERT INTO ledger_closed_tables (table_key, reason) VALUES (%s, %s)"
                               " ON CONFLICT (table_key) DO NOTHING", (table_key, reason))

    # Reading.

    async def balance(self, account: str, currency: str = accounts.CHIPS) -> int:
        async with self._connection() as conn:
            if account == accounts.HOUSE:
                cur = await conn.execute(
                    "SELECT coalesce(sum(balance), 0)::bigint FROM ledger_accounts"
                    " WHERE account LIKE 'house/%%' AND currency = %s", (currency,))
                return int((await cur.fetchone())[0])  # type: ignore[index]
            cur = await conn.execute(
                "SELECT balance FROM ledger_accounts WHERE account = %s AND currency = %s", (account, currency))
            row = await cur.fetchone()
        if row is None:
            raise UnknownAccount(account, currency)
        return int(row[0])

    async def get(self, transfer_id: str) -> Posted | None:
        async with self._connection() as conn:
            return await _get(conn, transfer_id)

    async def history(
        self, account: str, currency: str = accounts.CHIPS, before: int | None = None, limit: int = 50
    ) -> list[Posted]:
        names = [accounts.house_shard(n) for n in range(accounts.HOUSE_SHARDS)] \
            if account == accounts.HOUSE else [account]
        async with self._connection() as conn:
            cur = await conn.execute(_HISTORY, {"acc": names, "cur": currency, "before": before or 2**62,
                                                "n": min(limit, HISTORY_PAGE_MAX)})
            return [stored(row) for row in await cur.fetchall()]

    async def of_kind(self, kind: str) -> AsyncIterator[Posted]:
        after = 0
        while True:
            async with self._connection() as conn:
                cur = await conn.execute(
                    f"SELECT {TRANSFER_COLUMNS} FROM ledger_transfers WHERE kind = %s AND sequence > %s"
                    " ORDER BY sequence LIMIT 5000", (kind, after))
                rows = await cur.fetchall()
            for row in rows:
                yield stored(row)
            if len(rows) < 5000:
                return
            after = rows[-1][8]

    async def audit(self) -> AuditReport:
        async with self._connection() as conn, conn.transaction():
            await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            mismatches = await (await conn.execute(AUDIT_MISMATCHES)).fetchall()
            totals = await (await conn.execute(AUDIT_TOTALS)).fetchall()
            count = await (await conn.execute(AUDIT_COUNT)).fetchone()
            stranded = await (await conn.execute(AUDIT_STRANDED)).fetchall()
        return audit_report(mismatches, totals, count[0], stranded)  # type: ignore[index]


def _settle(future: asyncio.Future[Posted], result: Posted | BaseException) -> None:
    if future.done():  # the caller gave up waiting
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)


async def _decided(conn: psycopg.AsyncConnection, t: Transfer, outcome: tuple[Any, ...]) -> Posted:
    """The result of one transfer of a `ledger_post` call, or its error raised."""
    status, sequence, at = outcome
    if status == "posted":
        return Posted(t, sequence, at)
    if status == "unknown_debit":
        raise UnknownAccount(t.debit, t.currency)
    if status == "unknown_credit":
        raise UnknownAccount(t.credit, t.currency)
    return same_or_conflict(t, await _get(conn, t.id))  # type: ignore[arg-type]


async def _insufficient(conn: psycopg.AsyncConnection, t: Transfer) -> InsufficientFunds:
    cur = await conn.execute(
        "SELECT balance FROM ledger_accounts WHERE account = %s AND currency = %s", (t.debit, t.currency))
    row = await cur.fetchone()
    return InsufficientFunds(t.debit, t.currency, row[0] if row else 0, t.amount)


async def _first_overdraft(
    conn: psycopg.AsyncConnection, transfers: Sequence[Transfer], flags: list[bool], shard: int
) -> InsufficientFunds:
    """Which transfer of a refused batch overdraws: post them one by one, then undo them all."""
    error: InsufficientFunds | None = None
    with contextlib.suppress(_Undo):
        async with conn.transaction():
            for i, t in enumerate(transfers):
                try:
                    async with conn.transaction():
                        await _call_post(conn, [_request(i, t, flags[i], shard)])
                except psycopg.errors.CheckViolation:
                    error = await _insufficient(conn, t)
                    break
            raise _Undo
    # The batch's net change overdrew an account, so posting it in order overdraws it too.
    assert error is not None
    return error


class _Undo(Exception):
    """Rolls a savepoint back on purpose."""


async def _call_post(conn: psycopg.AsyncConnection, requests: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    cur = await conn.execute("SELECT outcome, seq, at FROM ledger_post(%s::jsonb)",
                             (json.dumps(requests, ensure_ascii=False),))
    return await cur.fetchall()


async def _get(conn: psycopg.AsyncConnection, transfer_id: str) -> Posted | None:
    cur = await conn.execute(f"SELECT {TRANSFER_COLUMNS} FROM ledger_transfers WHERE id = %s", (transfer_id,))
    row = await cur.fetchone()
    return None if row is None else stored(row)


async def _migrate(conn: psycopg.AsyncConnection, schema: str) -> None:
    """Apply missing ledger migrations in one transaction, serialised by an advisory lock."""
    await migrations.apply_postgres(conn, schema, MIGRATIONS, "ledger_migrations", f"qipai.ledger.{schema}")
