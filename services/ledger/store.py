"""The ledger's storage interface, one contract over Postgres and SQLite (as the event store has).

    ledger = await open_ledger("postgresql://...")           # or open_ledger(url, store=sqlite_store)
    posted = await ledger.post(Transfer("grant/r1", "house", "player/ann", 500, "grant"),
                               open_credit=True)
    await ledger.balance("player/ann")                        # 500
    report = await ledger.audit()                             # report.ok

Everything a transfer must satisfy (two existing accounts, a positive amount, never negative
unless the house, an id posted at most once) is enforced by the database itself.
"""

from __future__ import annotations

import abc
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import accounts
from .errors import TransferConflict
from .transfers import Posted, Transfer

HISTORY_PAGE_MAX = 200


@dataclass(frozen=True)
class Mismatch:
    account: str
    currency: str
    stored: int
    recomputed: int


@dataclass(frozen=True)
class Stranded:
    """A seat's stack left at a table that is over."""

    account: str
    currency: str
    balance: int


@dataclass(frozen=True)
class AuditReport:
    """Stored balances against the balances recomputed from every transfer's two postings, and
    the seat accounts of closed tables that still hold chips."""

    accounts: int
    transfers: int
    totals: dict[str, int]
    mismatches: list[Mismatch] = field(default_factory=list)
    stranded: list[Stranded] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every balance equals its postings, each currency sums to zero (double entry) and no
        closed table holds chips (every `table/<id>/seat/<n>` of a closed table is 0)."""
        return (not self.mismatches and not self.stranded
                and all(total == 0 for total in self.totals.values()))


# The two audit queries, valid SQL on both backends.
AUDIT_MISMATCHES = """
SELECT a.account, a.currency, a.balance, coalesce(c.s, 0) - coalesce(d.s, 0)
FROM ledger_accounts a
LEFT JOIN (SELECT credit AS account, currency, sum(amount) AS s FROM ledger_transfers
           GROUP BY credit, currency) c ON c.account = a.account AND c.currency = a.currency
LEFT JOIN (SELECT debit AS account, currency, sum(amount) AS s FROM ledger_transfers
           GROUP BY debit, currency) d ON d.account = a.account AND d.currency = a.currency
WHERE a.balance <> coalesce(c.s, 0) - coalesce(d.s, 0)
ORDER BY a.account, a.currency
"""
AUDIT_TOTALS = "SELECT currency, sum(balance), count(*) FROM ledger_accounts GROUP BY currency ORDER BY currency"
AUDIT_COUNT = "SELECT count(*) FROM ledger_transfers"
# The non-zero seat accounts of closed tables: `rtrim` of the seat number leaves
# 'table/<key>/seat/', whose <key> is looked up by the closed tables' primary key.
AUDIT_STRANDED = """
SELECT a.account, a.currency, a.balance
FROM ledger_accounts a
JOIN ledger_closed_tables c
  ON c.table_key = substr(rtrim(a.account, '0123456789'), 7, length(rtrim(a.account, '0123456789')) - 12)
WHERE a.account LIKE 'table/%' AND a.balance <> 0
ORDER BY a.account, a.currency
"""
TRANSFER_COLUMNS = "id, debit, credit, currency, amount, kind, reason, details, sequence, posted_at"


def audit_report(mismatch_rows: list[tuple[Any, ...]], total_rows: list[tuple[Any, ...]], transfers: int,
                 stranded_rows: Sequence[tuple[Any, ...]] = ()) -> AuditReport:
    return AuditReport(
        accounts=sum(int(n) for _, _, n in total_rows),
        transfers=int(transfers),
        totals={currency: int(total) for currency, total, _ in total_rows},
        mismatches=[Mismatch(a, c, int(s), int(r)) for a, c, s, r in mismatch_rows],
        stranded=[Stranded(a, c, int(b)) for a, c, b in stranded_rows],
    )


def same_or_conflict(wanted: Transfer, stored: Posted) -> Posted:
    """A retry of a posted transfer answers with it; other content under its id is an error."""
    if stored.transfer.content() != wanted.content():
        raise TransferConflict(stored)
    return stored


def opens(open_credit: bool | Sequence[bool], n: int) -> list[bool]:
    """`post_in`'s `open_credit`, one flag per transfer."""
    flags = [open_credit] * n if isinstance(open_credit, bool) else list(open_credit)
    if len(flags) != n:
        raise ValueError(f"{len(flags)} open_credit flags for {n} transfers")
    return flags


def details_json(transfer: Transfer) -> str:
    return json.dumps(dict(transfer.details), ensure_ascii=False, sort_keys=True)


class LedgerStore(abc.ABC):
    """Accounts, transfers and balances. Every method is safe under concurrency."""

    backend: str

    async def __aenter__(self) -> LedgerStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @abc.abstractmethod
    async def post(self, transfer: Transfer, *, open_credit: bool = False) -> Posted:
        """Post `transfer` once. A retry with the same content returns the stored transfer
        (`created` False); other content under the same id raises `TransferConflict`.
        Raises `UnknownAccount` unless both accounts exist (`open_credit` opens the credited
        one; the house always exists) and `InsufficientFunds` if the debited account would
        go below zero. A failed transfer moves nothing."""

    @abc.abstractmethod
    async def post_in(self, tx: Any, transfers: Sequence[Transfer], *,
                      open_credit: bool | Sequence[bool] = False) -> list[Posted]:
        """Post `transfers` inside `tx`, an event-store `Transaction` on the same database (a
        subscription's batch): they commit or roll back with it. `open_credit` may be given per
        transfer. Raises like `post`; on Postgres the accounts of the whole list are locked in
        one fixed order, so two transactions posting lists never deadlock each other."""

    @abc.abstractmethod
    async def close_tables_in(self, tx: Any, closed: Sequence[tuple[str, str]]) -> None:
        """Record in `tx` (a subscription's batch) that each table (`table_key`, `reason`) is
        over: from then on the audit requires every seat account of it to be 0. Recording one
        again changes nothing."""

    @abc.abstractmethod
    async def balance(self, account: str, currency: str = accounts.CHIPS) -> int:
        """The account's balance; raises `UnknownAccount`. The house always exists: its balance
        is the sum of its shards (0 before its first transfer in that currency)."""

    @abc.abstractmethod
    async def get(self, transfer_id: str) -> Posted | None:
        """The transfer posted under `transfer_id`, if any."""

    @abc.abstractmethod
    async def history(
        self, account: str, currency: str = accounts.CHIPS, before: int | None = None, limit: int = 50
    ) -> list[Posted]:
        """The account's transfers with a sequence below `before`, newest first."""

    @abc.abstractmethod
    def of_kind(self, kind: str) -> AsyncIterator[Posted]:
        """Every transfer of `kind`, oldest first (rebuilding projections)."""

    @abc.abstractmethod
    async def audit(self) -> AuditReport:
        """Recompute every balance from the transfers, on one consistent snapshot."""

    @abc.abstractmethod
    async def close(self) -> None: ...


async def open_ledger(url: str, *, store: Any = None, **options: Any) -> LedgerStore:
    """The ledger on the database `url` names (the event store's database).

    SQLite shares the event store's connection, so a subscription can post in its own
    transaction: pass the open `store` (else one is opened and owned by the ledger).
    Postgres options: `schema`, `max_size`, `connect_timeout`, `house_shards`.
    """
    if url.startswith("sqlite:///"):
        from .sqlite import SqliteLedger

        return await SqliteLedger.open(url, store=store)
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresLedger

        return await PostgresLedger.open(url, **options)
    raise ValueError(f"unsupported ledger database URL {url.split('://')[0]!r}://...: use sqlite:///path or postgresql://...")
