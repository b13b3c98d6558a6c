"""Ledger transfer throughput on Postgres against the naive way, in the same run.

Workloads, each with C concurrent clients (asyncio tasks) posting one transfer at a time:
- `transfers`: random pairs among A funded player accounts;
- `hot`: every transfer comes from the house (a check-in storm);
and the same two loads through the naive reference: one transaction per transfer doing
`SELECT ... FOR UPDATE` on both balance rows, two `UPDATE`s and an `INSERT`, over a pool of
`--naive-pool` connections. `ratio_vs_naive` = ours / naive on the random-pairs load.
Afterwards the ledger's audit must hold (every balance = its postings, the sum is 0).

`settlement_lag_p99_ms`: the settlement consumer follows the event log while `--tables` tables
each append a hand result (three payments) every `--hand-interval` seconds; the lag is from a
hand's result committed in the log to its transfers committed. The hand results are synthetic
(the game service does not emit them yet), appended straight to the event store.

    .venv/bin/python bench/ledger.py [--quick] [--seconds S] [--clients 64] [--accounts 10000]

Uses `QIPAI_BENCH_DATABASE_URL` (default: the local test database) in a throwaway schema.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import psycopg
from psycopg import sql
from psycopg_pool import AsyncConnectionPool

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine.chips as chips  # noqa: E402
from bench._report import table, write  # noqa: E402
from engine.core.messages import encode  # noqa: E402
from services.eventstore import NewEvent, open_event_store  # noqa: E402
from services.ledger.config import LedgerSettings  # noqa: E402
from services.ledger.leaderboard import MemoryLeaderboards  # noqa: E402
from services.ledger.postgres import PostgresLedger  # noqa: E402
from services.ledger.service import LedgerService  # noqa: E402
from services.ledger.settlement import SettlementConsumer  # noqa: E402
from services.ledger.transfers import Transfer  # noqa: E402

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
FUNDING = 10_000_000

NAIVE_SCHEMA = """
CREATE TABLE naive_accounts (id text PRIMARY KEY, balance bigint NOT NULL CHECK (balance >= 0 OR id = 'house'));
CREATE TABLE naive_transfers (id text PRIMARY KEY, debit text NOT NULL, credit text NOT NULL,
                              amount bigint NOT NULL, posted_at timestamptz NOT NULL DEFAULT now());
"""


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _drive(clients: int, seconds: float, one: Callable[[int, int], Awaitable[None]]) -> dict:
    """`clients` tasks call `one(client, n)` back to back for `seconds`; throughput and latency."""
    stop = time.perf_counter() + seconds
    latencies: list[float] = []

    async def client(c: int) -> None:
        n = 0
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            await one(c, n)
            latencies.append(time.perf_counter() - t0)
            n += 1

    cpu0, t0 = _cpu(), time.perf_counter()
    await asyncio.gather(*(client(c) for c in range(clients)))
    elapsed, cpu = time.perf_counter() - t0, _cpu() - cpu0
    latencies.sort()
    done = len(latencies)
    return {"per_s": round(done / elapsed, 1), "count": done,
            "p50_ms": round(latencies[done // 2] * 1000, 2),
            "p99_ms": round(latencies[min(done - 1, int(done * 0.99))] * 1000, 2),
            "cpu_us_per_op": round(cpu / max(done, 1) * 1e6, 1)}


def _pair(rng: random.Random, accounts: int) -> tuple[int, int]:
    a = rng.randrange(accounts)
    b = rng.randrange(accounts - 1)
    return a, b + (b >= a)


async def _ours(url: str, schema: str, args: argparse.Namespace, run: str) -> tuple[dict, dict, bool]:
    ledger = await PostgresLedger.open(url, schema=schema, max_size=args.pool)
    try:
        print(f"funding {args.accounts:,} accounts ...", file=sys.stderr, flush=True)
        sem = asyncio.Semaphore(args.clients)

        async def fund(n: int) -> None:
            async with sem:
                await ledger.post(Transfer(f"grant/{run}-{n}", "house", f"player/a{n}", FUNDING, "grant"),
                                  open_credit=True)

        await asyncio.gather(*(fund(n) for n in range(args.accounts)))
        rng = random.Random(1)

        async def pair(c: int, n: int) -> None:
            a, b = _pair(rng, args.accounts)
            await ledger.post(Transfer(f"test/{run}-p{c}-{n}", f"player/a{a}", f"player/a{b}", 1, "transfer"))

        async def hot(c: int, n: int) -> None:
            a = rng.randrange(args.accounts)
            await ledger.post(Transfer(f"checkin/{run}-h{c}-{n}", "house", f"player/a{a}", 1, "checkin"))

        print("ours: random pairs ...", file=sys.stderr, flush=True)
        pairs = await _drive(args.clients, args.seconds, pair)
        print("ours: hot (every transfer touches the house) ...", file=sys.stderr, flush=True)
        hots = await _drive(args.clients, args.seconds, hot)
        report = await ledger.audit()
        return pairs, hots, report.ok
    finally:
        await ledger.close()


async def _naive(url: str, schema: str, args: argparse.Namespace, run: str) -> tuple[dict, dict]:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        for statement in NAIVE_SCHEMA.strip().split(";\n"):
            await conn.execute(statement)
        await conn.execute("INSERT INTO naive_accounts SELECT 'a' || n, %s FROM generate_series(0, %s - 1) n",
                           (FUNDING, args.accounts))
        await conn.execute("INSERT INTO naive_accounts VALUES ('house', 0)")
    pool = AsyncConnectionPool(url, min_size=args.naive_pool, max_size=args.naive_pool, open=False,
                               kwargs={"options": f"-c search_path={schema}"})
    await pool.open(wait=True)
    rng = random.Random(1)

    async def transfer(tid: str, debit: str, credit: str) -> None:
        async with pool.connection() as conn, conn.transaction():
            await conn.execute("SELECT balance FROM naive_accounts WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
                               ([debit, credit],))
            await conn.execute("UPDATE naive_accounts SET balance = balance - 1 WHERE id = %s", (debit,))
            await conn.execute("UPDATE naive_accounts SET balance = balance + 1 WHERE id = %s", (credit,))
            await conn.execute("INSERT INTO naive_transfers (id, debit, credit, amount) VALUES (%s, %s, %s, 1)",
                               (tid, debit, credit))

    async def pair(c: int, n: int) -> None:
        a, b = _pair(rng, args.accounts)
        await transfer(f"p{c}-{n}", f"a{a}", f"a{b}")

    async def hot(c: int, n: int) -> None:
        await transfer(f"h{c}-{n}", "house", f"a{rng.randrange(args.accounts)}")

    try:
        print("naive: random pairs ...", file=sys.stderr, flush=True)
        pairs = await _drive(args.clients, args.seconds, pair)
        print("naive: hot ...", file=sys.stderr, flush=True)
        hots = await _drive(args.clients, args.seconds, hot)
    finally:
        await pool.close()
    return pairs, hots


def _new(event: object) -> NewEvent:
    name, version, data = encode(event)
    return NewEvent(name, data, schema_version=version)


async def _settlement(url: str, schema: str, args: argparse.Namespace, run: str) -> dict:
    """Settlement lag with the consumer running while tables append hand results."""
    events = await open_event_store(url, schema=schema)
    ledger = await PostgresLedger.open(url, schema=schema, max_size=args.pool)
    service = LedgerService(ledger, MemoryLeaderboards(), LedgerSettings())
    consumer = SettlementConsumer(events, service)
    stop = asyncio.Event()
    consuming = asyncio.create_task(consumer.run(stop))
    rng = random.Random(2)
    hands = 0

    async def table(n: int) -> None:
        nonlocal hands
        stream, names = f"table-{run}-{n}", [f"s{run}-{n}-{seat}" for seat in range(4)]
        for name in names:
            await ledger.post(Transfer(f"grant/{name}", "house", f"player/{name}", 10_000, "grant"), open_credit=True)
        version = await events.append(stream, 0, [_new(chips.StackBoughtIn(s, p, 1000, 1))
                                                  for s, p in enumerate(names)])
        stop_at = time.perf_counter() + args.seconds
        hand = 0
        await asyncio.sleep(rng.random() * args.hand_interval)
        while time.perf_counter() < stop_at:
            hand += 1
            winner = rng.randrange(4)
            payments = tuple(chips.SeatPayment(loser, winner, 1, "self_draw", names[loser], names[winner])
                             for loser in range(4) if loser != winner)
            version = await events.append(stream, version, [_new(chips.HandSettled(hand, "koudian", payments))])
            hands += 1
            await asyncio.sleep(args.hand_interval)

    print(f"settlement: {args.tables} tables, a hand each every {args.hand_interval:g} s ...",
          file=sys.stderr, flush=True)
    try:
        await asyncio.gather(*(table(n) for n in range(args.tables)))
        await asyncio.sleep(2.0)  # let the consumer finish the last hands
    finally:
        stop.set()
        await consuming
        await ledger.close()
        await events.close()
    lags = sorted(consumer.lag_ms)
    if not lags:
        raise SystemExit("the settlement consumer settled no hand")
    return {"hands": hands, "settled": len(lags), "p50": round(lags[len(lags) // 2], 1),
            "p99": round(lags[min(len(lags) - 1, int(len(lags) * 0.99))], 1),
            "hands_per_s": round(hands / args.seconds, 1)}


async def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="3 s per load, 2,000 accounts")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--clients", type=int, default=64)
    p.add_argument("--accounts", type=int, default=10_000)
    p.add_argument("--pool", type=int, default=6, help="our pool size (batches in flight = pool - 1)")
    p.add_argument("--naive-pool", type=int, default=16)
    p.add_argument("--tables", type=int, default=200, help="tables appending hand results (settlement lag)")
    p.add_argument("--hand-interval", type=float, default=1.0, help="seconds between a table's hands")
    args = p.parse_args()
    if args.quick:
        args.seconds, args.accounts = 3.0, 2_000
    url = os.environ.get("QIPAI_BENCH_DATABASE_URL", DEFAULT_URL)
    schema = f"bench_ledger_{uuid.uuid4().hex[:8]}"
    run = uuid.uuid4().hex[:6]
    try:
        pairs, hots, audit_ok = await _ours(url, schema, args, run)
        naive_pairs, naive_hots = await _naive(url, schema, args, run)
        settled = await _settlement(url, schema, args, run)
    finally:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            await conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    print(table(["load", "ours/s", "naive/s", "ratio", "ours p99 ms", "naive p99 ms", "ours CPU µs/op"], [
        ["random pairs", pairs["per_s"], naive_pairs["per_s"], round(pairs["per_s"] / naive_pairs["per_s"], 2),
         pairs["p99_ms"], naive_pairs["p99_ms"], pairs["cpu_us_per_op"]],
        ["hot (house)", hots["per_s"], naive_hots["per_s"], round(hots["per_s"] / naive_hots["per_s"], 2),
         hots["p99_ms"], naive_hots["p99_ms"], hots["cpu_us_per_op"]],
    ]))
    print(f"clients {args.clients}, accounts {args.accounts:,}, {args.seconds:g} s per load; audit ok: {audit_ok}")
    print(f"settlement lag: p50 {settled['p50']} ms, p99 {settled['p99']} ms over {settled['settled']:,} hands"
          f" ({settled['hands_per_s']} hands/s from {args.tables} tables; synthetic hand results)")
    figures = {
        "transfers_per_s": pairs["per_s"], "hot_transfers_per_s": hots["per_s"],
        "naive_transfers_per_s": naive_pairs["per_s"], "naive_hot_transfers_per_s": naive_hots["per_s"],
        "ratio_vs_naive": round(pairs["per_s"] / naive_pairs["per_s"], 2),
        "hot_ratio_vs_naive": round(hots["per_s"] / naive_hots["per_s"], 2),
        "p99_ms": pairs["p99_ms"], "hot_p99_ms": hots["p99_ms"],
        "naive_p99_ms": naive_pairs["p99_ms"], "cpu_us_per_transfer": pairs["cpu_us_per_op"],
        "hot_cpu_us_per_transfer": hots["cpu_us_per_op"], "clients": args.clients,
        "accounts": args.accounts, "seconds_per_load": args.seconds, "audit_ok": int(audit_ok),
        "settlement_lag_p50_ms": settled["p50"], "settlement_lag_p99_ms": settled["p99"],
        "settlement_hands_per_s": settled["hands_per_s"], "settlement_hands": settled["settled"],
    }
    print(f"wrote {write('ledger', figures)}")
    return 0 if audit_ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
