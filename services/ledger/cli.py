"""`qipai ledger ...`: operator commands on the ledger's database (QIPAI_DATABASE_URL) and
leaderboards (QIPAI_REDIS_URL), with or without a server running."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from services.auth import ADMIN, Identity

from . import accounts
from .errors import LedgerError
from .leaderboard import MemoryLeaderboards
from .service import LedgerService


def add_commands(sub: Any) -> None:
    """Register `qipai ledger` and its subcommands on the CLI's subparsers."""
    lp = sub.add_parser("ledger", help="ledger operator tools: balance, transfers, grant, audit, ...")
    cmds = lp.add_subparsers(dest="ledger_command", required=True, metavar="SUBCOMMAND")
    b = cmds.add_parser("balance", help="an account's balance")
    b.add_argument("account", help="player/<id>, table/<table id>/seat/<n> or house")
    b.add_argument("--currency", default="chips")
    t = cmds.add_parser("transfers", help="an account's transfers, newest first")
    t.add_argument("account")
    t.add_argument("--currency", default="chips")
    t.add_argument("--limit", type=int, default=20, help="how many (1..200)")
    t.add_argument("--page", default="", help="the page token printed after the previous page")
    t.add_argument("--json", action="store_true", help="one JSON object per transfer")
    g = cmds.add_parser("grant", help="chips from the house to a player (idempotent by request id)")
    g.add_argument("account", help="player/<id>")
    g.add_argument("amount", type=int)
    g.add_argument("--reason", required=True, help="why (kept with your identity)")
    g.add_argument("--request-id", required=True, help="unique per grant: a retry posts once")
    g.add_argument("--operator", default=None, help="who grants (default: your login name)")
    g.add_argument("--currency", default="chips")
    cmds.add_parser("audit", help="recompute every balance from the transfers; exit 1 on a mismatch")
    cmds.add_parser("rebuild-leaderboards", help="recompute every leaderboard from the settlement transfers")


def main(args: argparse.Namespace) -> int:
    """Run one `qipai ledger` subcommand; exit code 0 on success."""
    from pydantic import ValidationError

    from services.config import settings

    try:
        conf = settings()
        commands: dict[str, Callable[[LedgerService, argparse.Namespace], Awaitable[int]]] = {
            "balance": _balance, "transfers": _transfers, "grant": _grant, "audit": _audit,
            "rebuild-leaderboards": _rebuild}
        return asyncio.run(_with_service(conf, commands[args.ledger_command], args))
    except ValidationError as exc:
        for err in exc.errors():
            print(f"qipai ledger: configuration: {err['msg']}", file=sys.stderr)
        return 2
    except LedgerError as exc:
        print(f"qipai ledger: {exc}", file=sys.stderr)
        return 1


async def _with_service(conf: Any, command: Callable[[LedgerService, argparse.Namespace], Awaitable[int]],
                        args: argparse.Namespace) -> int:
    from services.eventstore import EventStoreError, open_event_store

    from .serving import open_ledger_service

    try:
        store = await open_event_store(conf.database_url)
    except EventStoreError as exc:
        print(f"qipai ledger: {exc}", file=sys.stderr)
        return 2
    try:
        service = await open_ledger_service(store, conf)
        try:
            return await command(service, args)
        finally:
            await service.boards.close()
            await service.store.close()
    finally:
        await store.close()


def _operator(args: argparse.Namespace) -> Identity:
    return Identity(getattr(args, "operator", None) or f"cli:{getpass.getuser()}", ADMIN)


async def _balance(service: LedgerService, args: argparse.Namespace) -> int:
    account, currency, balance = await service.balance(_operator(args), args.account, args.currency)
    print(f"{account}  {balance:,} {currency}")
    return 0


async def _transfers(service: LedgerService, args: argparse.Namespace) -> int:
    page, token = await service.history(_operator(args), args.account, args.currency, args.limit, args.page)
    for posted in page:
        t = posted.transfer
        if args.json:
            print(json.dumps({"sequence": posted.sequence, "id": t.id, "debit": t.debit, "credit": t.credit,
                              "amount": t.amount, "currency": t.currency, "kind": t.kind, "reason": t.reason,
                              "details": dict(t.details), "posted_at": posted.posted_at.isoformat()},
                             ensure_ascii=False))
            continue
        sign = "-" if t.debit == accounts.named(args.account) else "+"
        other = t.credit if sign == "-" else t.debit
        print(f"{posted.sequence:>8}  {posted.posted_at:%Y-%m-%d %H:%M:%S}  {sign}{t.amount:<10,} {t.kind:<8} "
              f"{other:<28} {t.id}  {t.reason}")
    if token:
        print(f"more: --page {token}", file=sys.stderr)
    return 0


async def _grant(service: LedgerService, args: argparse.Namespace) -> int:
    posted = await service.grant(_operator(args), args.request_id, args.account, args.amount, args.currency,
                                 args.reason)
    what = "granted" if posted.created else "already granted (same request id)"
    print(f"{what}: {posted.transfer.amount:,} {posted.transfer.currency} to {posted.transfer.credit}"
          f" as {posted.transfer.id} (sequence {posted.sequence})")
    return 0


async def _audit(service: LedgerService, args: argparse.Namespace) -> int:
    print("auditing: recomputing every balance from the transfers ...", file=sys.stderr, flush=True)
    report = await service.store.audit()
    print(f"accounts {report.accounts:,}, transfers {report.transfers:,}")
    for currency, total in report.totals.items():
        print(f"  {currency}: sum of all balances {total:,} ({'ok' if total == 0 else 'NOT ZERO'})")
    for m in report.mismatches:
        print(f"  MISMATCH {m.account} {m.currency}: stored {m.stored:,}, postings say {m.recomputed:,}")
    for s in report.stranded:
        print(f"  STRANDED {s.account} {s.currency}: {s.balance:,} left on a table that is over")
    print("audit ok" if report.ok else "audit FAILED")
    return 0 if report.ok else 1


async def _rebuild(service: LedgerService, args: argparse.Namespace) -> int:
    if isinstance(service.boards, MemoryLeaderboards):
        print("QIPAI_REDIS_URL is memory://: each server rebuilds its in-memory boards when it starts",
              file=sys.stderr)
        return 0
    print("rebuilding leaderboards from the settlement transfers ...", file=sys.stderr, flush=True)
    n = await service.rebuild_leaderboards()
    print(f"rebuilt from {n:,} settlement transfers")
    return 0
