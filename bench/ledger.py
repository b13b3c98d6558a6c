"""Ledger transfer throughput on Postgres against the naive way, in the same run.

Workloads, each with C concurrent clients (asyncio tasks) posting one transfer at a time:
- `transfers`: random pairs among A funded player accounts;
- `hot`: every transfer comes from the house (a check-in storm);
and the same two loads through the naive reference: one transaction per transfer doing
`SELECT ... FOR UPDATE` on both balance rows, two `UPDATE`s and an `INSERT`, over a pool of
`--naive-pool` connections. `ratio_vs_naive` = ours / naive on the random-pairs load.
Afterwards the ledger's audit must hold (every balance = its postings, the sum is 0).

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

from bench._report import table, write  # noqa: E402
from services.ledger.postgres import PostgresLedger  # noqa: E402
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


async def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="3 s per load, 2,000 accounts")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--clients", type=int, default=64)
    p.add_argument("--accounts", type=int, default=10_000)
    p.add_argument("--pool", type=int, default=6, help="our pool size (batches in flight = pool - 1)")
    p.add_argument("--naive-pool", type=int, default=16)
    args = p.parse_args()
    if args.quick:
        args.seconds, args.accounts = 3.0, 2_000
    url = os.environ.get("QIPAI_BENCH_DATABASE_URL", DEFAULT_URL)
    schema = f"bench_ledger_{uuid.uuid4().hex[:8]}"
    run = uuid.uuid4().hex[:6]
    try:
        pairs, hots, audit_ok = await _ours(url, schema, args, run)
        naive_pairs, naive_hots = await _naive(url, schema, args, run)
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
    figures = {
        "transfers_per_s": pairs["per_s"], "hot_transfers_per_s": hots["per_s"],
        "naive_transfers_per_s": naive_pairs["per_s"], "naive_hot_transfers_per_s": naive_hots["per_s"],
        "ratio_vs_naive": round(pairs["per_s"] / naive_pairs["per_s"], 2),
        "hot_ratio_vs_naive": round(hots["per_s"] / naive_hots["per_s"], 2),
        "p99_ms": pairs["p99_ms"], "hot_p99_ms": hots["p99_ms"],
        "naive_p99_ms": naive_pairs["p99_ms"], "cpu_us_per_transfer": pairs["cpu_us_per_op"],
        "hot_cpu_us_per_transfer": hots["cpu_us_per_op"], "clients": args.clients,
        "accounts": args.accounts, "seconds_per_load": args.seconds, "audit_ok": int(audit_ok),
    }
    print(f"wrote {write('ledger', figures)}")
    return 0 if audit_ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
