"""The embedded ledger: SQLite, on the event store's own connection and thread.

Sharing the connection is what lets a subscription post transfers inside the transaction that
moves its checkpoint; a second connection would wait forever for the write lock the first holds.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from importlib.resources import files
from typing import Any

from services.eventstore import migrations

from . import accounts
from .errors import InsufficientFunds, UnknownAccount
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
    details_json,
    opens,
    same_or_conflict,
)
from .transfers import Posted, Transfer, stored

MIGRATIONS = files("services.ledger") / "sqlite_migrations"


def _row(row: tuple[Any, ...]) -> Posted:
    *head, details, sequence, posted_at = row
    return stored((*head, json.loads(details), sequence, datetime.fromisoformat(posted_at)))


def _stored_account(name: str, transfer_id: str) -> str:
    # One writer at a time on SQLite: the shard only has to be stable for a transfer.
    return accounts.house_shard(zlib.crc32(transfer_id.encode())) if name == accounts.HOUSE else name


class SqliteLedger(LedgerStore):
    """Open with `await SqliteLedger.open(url, store=event_store)`."""

    backend = "sqlite"

    def __init__(self, store: Any, owned: bool) -> None:
        self._store = store
        self._owned = owned

    @classmethod
    async def open(cls, url: str, *, store: Any = None) -> SqliteLedger:
        """The ledger in the SQLite database of `store` (opened from `url` if not given)."""
        owned = store is None
        if store is None:
            from services.eventstore import open_event_store

            store = await open_event_store(url)
        if store.backend != "sqlite":
            raise ValueError("a SQLite ledger needs the SQLite event store of the same database")
        ledger = cls(store, owned)
        await ledger._migrate()
        return ledger

    async def close(self) -> None:
        if self._owned:
            await self._store.close()

    async def _migrate(self) -> None:
        async with self._store.transaction() as tx:
            await tx.execute(
                "CREATE TABLE IF NOT EXISTS ledger_migrations (version INTEGER PRIMARY KEY,"
                " name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)")
            applied = dict(await tx.execute("SELECT version, checksum FROM ledger_migrations"))
            for migration in migrations.unapplied(migrations.load(MIGRATIONS), applied):
                for statement in _statements(migration.sql):
                    await tx.execute(statement)
                await tx.execute(
                    "INSERT INTO ledger_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                    (migration.version, migration.name, migration.checksum, _now()))

    async def post(self, transfer: Transfer, *, open_credit: bool = False) -> Posted:
        async with self._store.transaction() as tx:
            return await _post(tx, transfer, open_credit)

    async def post_in(self, tx: Any, transfers: Sequence[Transfer], *,
                      open_credit: bool | Sequence[bool] = False) -> list[Posted]:
        return [await _post(tx, t, flag) for t, flag in zip(transfers, opens(open_credit, len(transfers)),
                                                            strict=True)]

    async def close_tables_in(self, tx: Any, closed: Sequence[tuple[str, str]]) -> None:
        for table_key, reason in closed:
            await tx.execute("INSERT INTO ledger_closed_tables (table_key, reason, closed_at) VALUES (?, ?, ?)"
                             " ON CONFLICT (table_key) DO NOTHING", (table_key, reason, _now()))

    async def balance(self, account: str, currency: str = accounts.CHIPS) -> int:
        async with self._store.transaction() as tx:
            if account == accounts.HOUSE:
                rows = await tx.execute(
                    "SELECT coalesce(sum(balance), 0) FROM ledger_accounts"
                    " WHERE account LIKE 'house/%' AND currency = ?", (currency,))
                return int(rows[0][0])
            rows = await tx.execute(
                "SELECT balance FROM ledger_accounts WHERE account = ? AND currency = ?", (account, currency))
        if not rows:
            raise UnknownAccount(account, currency)
        return int(rows[0][0])

    async def get(self, transfer_id: str) -> Posted | None:
        async with self._store.transaction() as tx:
            return await _get(tx, transfer_id)

    async def history(
        self, account: str, currency: str = accounts.CHIPS, before: int | None = None, limit: int = 50
    ) -> list[Posted]:
        params: tuple[str, ...] = ()
        if account == accounts.HOUSE:
            match = "LIKE 'house/%'"
        else:
            match, params = "= ?", (account,)
        query = (f"SELECT {TRANSFER_COLUMNS} FROM ledger_transfers WHERE (debit {match} OR credit {match})"
                 " AND currency = ? AND sequence < ? ORDER BY sequence DESC LIMIT ?")
        async with self._store.transaction() as tx:
            rows = await tx.execute(query, (*params, *params, currency, before or 2**62,
                                            min(limit, HISTORY_PAGE_MAX)))
        return [_row(row) for row in rows]

    async def of_kind(self, kind: str) -> AsyncIterator[Posted]:
        after = 0
        while True:
            async with self._store.transaction() as tx:
                rows = await tx.execute(
                    f"SELECT {TRANSFER_COLUMNS} FROM ledger_transfers WHERE kind = ? AND sequence > ?"
                    " ORDER BY sequence LIMIT 5000", (kind, after))
            for row in rows:
                yield _row(row)
            if len(rows) < 5000:
                return
            after = rows[-1][8]

    async def audit(self) -> AuditReport:
        async with self._store.transaction() as tx:
            mismatches = await tx.execute(AUDIT_MISMATCHES)
            totals = await tx.execute(AUDIT_TOTALS)
            count = await tx.execute(AUDIT_COUNT)
            stranded = await tx.execute(AUDIT_STRANDED)
        return audit_report(mismatches, totals, count[0][0], stranded)


async def _get(tx: Any, transfer_id: str) -> Posted | None:
    rows = await tx.execute(f"SELECT {TRANSFER_COLUMNS} FROM ledger_transfers WHERE id = ?", (transfer_id,))
    return _row(rows[0]) if rows else None


async def _post(tx: Any, t: Transfer, open_credit: bool) -> Posted:
    """Post one transfer in `tx`, inside a savepoint: a refused transfer leaves no trace."""
    found = await _get(tx, t.id)
    if found is not None:
        return same_or_conflict(t, found)
    debit, credit = _stored_account(t.debit, t.id), _stored_account(t.credit, t.id)
    now = _now()
    await tx.execute("SAVEPOINT ledger_post")
    try:
        for name, wanted in ((debit, accounts.is_house(debit)),
                             (credit, accounts.is_house(credit) or open_credit)):
            if wanted:
                await tx.execute(
                    "INSERT INTO ledger_accounts (account, currency, overdraft, opened_at)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (name, t.currency, accounts.is_house(name), now))
            elif not await tx.execute(
                    "SELECT 1 FROM ledger_accounts WHERE account = ? AND currency = ?", (name, t.currency)):
                raise UnknownAccount(t.debit if name == debit else t.credit, t.currency)
        await tx.execute(
            "INSERT INTO ledger_transfers (id, debit, credit, currency, amount, kind, reason, details,"
            " posted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (t.id, debit, credit, t.currency, t.amount, t.kind, t.reason, details_json(t), now))
        try:
            await tx.execute("UPDATE ledger_accounts SET balance = balance - ? WHERE account = ? AND currency = ?",
                             (t.amount, debit, t.currency))
        except sqlite3.IntegrityError:
            rows = await tx.execute("SELECT balance FROM ledger_accounts WHERE account = ? AND currency = ?",
                                    (debit, t.currency))
            raise InsufficientFunds(t.debit, t.currency, int(rows[0][0]), t.amount) from None
        await tx.execute("UPDATE ledger_accounts SET balance = balance + ? WHERE account = ? AND currency = ?",
                         (t.amount, credit, t.currency))
        rows = await tx.execute("SELECT sequence FROM ledger_transfers WHERE id = ?", (t.id,))
    except BaseException:
        await tx.execute("ROLLBACK TO ledger_post")
        await tx.execute("RELEASE ledger_post")
        raise
    await tx.execute("RELEASE ledger_post")
    return Posted(t, rows[0][0], datetime.fromisoformat(now))


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _statements(script: str) -> list[str]:
    """The statements of a migration script (triggers hold semicolons of their own)."""
    out, pending = [], ""
    for line in script.splitlines(keepends=True):
        if not pending and line.lstrip().startswith("--"):
            continue
        pending += line
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    return out
