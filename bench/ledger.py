"""Ledger transfer throughput on Postgres against two simple ledgers, in the same run.

Workloads, each with C concurrent clients (asyncio tasks) posting one transfer at a time:
- `transfers`: random pairs among A funded player accounts;
- `hot`: every transfer comes from the house (a check-in storm);
each through ours (`services/ledger/postgres.py`: batched, house shards) and through two simple
ledgers on a balance table with one house row, over a pool of `--naive-pool` connections:
- the baseline (`naive_*`, `ratio_vs_naive`, `hot_ratio_vs_naive`): what a competent engineer
  writes first, one statement per transfer (both balance updates and the transfer row in one
  `WITH ... UPDATE ... INSERT`, its own transaction: one round trip; a negative balance is refused
  by a CHECK, a missing account by a NOT NULL, so a refused transfer changes nothing);
- the locking one (`locking_*`, `ratio_vs_locking`): BEGIN, `SELECT ... FOR UPDATE` on both rows,
  two `UPDATE`s, an `INSERT`, COMMIT: six round trips with the locks held across them. It is a
  straw man, kept only to show what the round trips cost.
The loads run in `--rounds` rounds (default 3), each round every load on every ledger for
`--seconds`, the ledgers' order rotated from round to round, so that a busy machine slows all
of them alike. Figures are medians over the rounds; each ratio is ours ÷ theirs within a round,
with the lowest and highest round's beside the median (`*_min`, `*_max`).
Afterwards our ledger's audit must hold (every balance = its postings, the sum is 0), and the
simple ledgers' balances must sum to their funding.

`settlement_lag_p99_ms`: the settlement consumer follows the event log while `--tables` tables
each append a hand result (three payments) every `--hand-interval` seconds; the lag is from a
hand's result committed in the log to its transfers committed. The game service emits these
`table.HandSettled` events itself; here they are synthetic, appended straight to the event
store, so that the lag is the ledger's alone (`bench/service.py` measures it behind real tables).

A transfer that raises is counted (`errors`, `error_kinds`), never hidden: a run with errors
says so and exits 1.

    .venv/bin/python bench/ledger.py [--quick] [--seconds S] [--rounds 3] [--clients 64] [--accounts 10000]

Uses `QIPAI_BENCH_DATABASE_URL` (default: the local test database) in throwaway schemas.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import resource
import statistics
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import psycopg
from psycopg import sql
from psycopg_pool import AsyncConnectionPool

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine.chips as chips  # noqa: E402
from bench._report import Errors, table, write  # noqa: E402
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
                              amount bigint NOT NULL, posted_at timestamptz NOT NULL DEFAULT now())
"""

# The baseline: one statement, its own transaction. It locks the two rows in id order first (an
# UPDATE alone locks them in scan order, and opposite transfers deadlock); a debit below zero
# breaks the CHECK and a missing account leaves `debit` NULL, so either way the statement,
# updates included, is rolled back.
ONE_STATEMENT = """
WITH locked AS (SELECT id FROM naive_accounts WHERE id IN (%(debit)s, %(credit)s) ORDER BY id FOR UPDATE),
moved AS (
  UPDATE naive_accounts a SET balance = balance + CASE WHEN a.id = %(credit)s THEN %(amount)s ELSE -%(amount)s END
  FROM locked WHERE a.id = locked.id RETURNING a.id)
INSERT INTO naive_transfers (id, debit, credit, amount)
SELECT %(id)s, CASE WHEN count(*) = 2 THEN %(debit)s END, %(credit)s, %(amount)s FROM moved
"""


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _drive(label: str, clients: int, seconds: float, one: Callable[[int, int], Awaitable[None]],
                 errors: Errors) -> dict:
    """`clients` tasks call `one(client, n)` back to back for `seconds`; throughput and latency
    of the transfers that succeeded (a failed one is counted in `errors`, not timed)."""
    stop = time.perf_counter() + seconds
    latencies: list[float] = []

    async def client(c: int) -> None:
        n = 0
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            try:
                await one(c, n)
            except Exception as exc:  # counted and reported, the run then exits 1
                errors.add(f"{label}: {type(exc).__name__}")
            else:
                latencies.append(time.perf_counter() - t0)
            n += 1

    cpu0, t0 = _cpu(), time.perf_counter()
    await asyncio.gather(*(client(c) for c in range(clients)))
    elapsed, cpu = time.perf_counter() - t0, _cpu() - cpu0
    latencies.sort()
    done = len(latencies)
    if not done:
        return {"per_s": 0.0, "count": 0, "p50_ms": 0.0, "p99_ms": 0.0, "cpu_us_per_op": 0.0}
    return {"per_s": round(done / elapsed, 1), "count": done,
            "p50_ms": round(latencies[done // 2] * 1000, 2),
            "p99_ms": round(latencies[min(done - 1, int(done * 0.99))] * 1000, 2),
            "cpu_us_per_op": round(cpu / max(done, 1) * 1e6, 1)}


def _pair(rng: random.Random, accounts: int) -> tuple[int, int]:
    a = rng.randrange(accounts)
    b = rng.randrange(accounts - 1)
    return a, b + (b >= a)


# A ledger under test: its two loads (each `(round, client, n)`, so that ids stay unique over the
# rounds) and its closing check (ours: the audit; the simple ones: balances sum to the funding).
Load = Callable[[int, int, int], Awaitable[None]]


@contextlib.asynccontextmanager
async def _ours(url: str, schema: str, args: argparse.Namespace,
                run: str) -> AsyncIterator[tuple[Load, Load, Callable[[], Awaitable[bool]]]]:
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

        async def pair(r: int, c: int, n: int) -> None:
            a, b = _pair(rng, args.accounts)
            await ledger.post(Transfer(f"test/{run}-{r}-p{c}-{n}", f"player/a{a}", f"player/a{b}", 1, "transfer"))

        async def hot(r: int, c: int, n: int) -> None:
            a = rng.randrange(args.accounts)
            await ledger.post(Transfer(f"checkin/{run}-{r}-h{c}-{n}", "house", f"player/a{a}", 1, "checkin"))

        async def audit() -> bool:
            return (await ledger.audit()).ok

        yield pair, hot, audit
    finally:
        await ledger.close()


@contextlib.asynccontextmanager
async def _simple(url: str, schema: str, args: argparse.Namespace,
                  kind: str) -> AsyncIterator[tuple[Load, Load, Callable[[], Awaitable[bool]]]]:
    """A simple ledger (`kind`: "baseline", one statement, or "locking"), in a schema of its own."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        await conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        for statement in NAIVE_SCHEMA.strip().split(";\n"):
            await conn.execute(statement)
        await conn.execute("INSERT INTO naive_accounts SELECT 'a' || n, %s FROM generate_series(0, %s - 1) n",
                           (FUNDING, args.accounts))
        await conn.execute("INSERT INTO naive_accounts VALUES ('house', 0)")
    pool = AsyncConnectionPool(url, min_size=args.naive_pool, max_size=args.naive_pool, open=False,
                               kwargs={"options": f"-c search_path={schema}", "autocommit": True})
    await pool.open(wait=True)
    rng = random.Random(1)

    async def one_statement(tid: str, debit: str, credit: str) -> None:
        async with pool.connection() as conn:
            await conn.execute(ONE_STATEMENT, {"id": tid, "debit": debit, "credit": credit, "amount": 1})

    async def locking(tid: str, debit: str, credit: str) -> None:
        async with pool.connection() as conn, conn.transaction():
            await conn.execute("SELECT balance FROM naive_accounts WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
                               ([debit, credit],))
            await conn.execute("UPDATE naive_accounts SET balance = balance - 1 WHERE id = %s", (debit,))
            await conn.execute("UPDATE naive_accounts SET balance = balance + 1 WHERE id = %s", (credit,))
            await conn.execute("INSERT INTO naive_transfers (id, debit, credit, amount) VALUES (%s, %s, %s, 1)",
                               (tid, debit, credit))

    transfer = one_statement if kind == "baseline" else locking

    async def pair(r: int, c: int, n: int) -> None:
        a, b = _pair(rng, args.accounts)
        await transfer(f"{r}-p{c}-{n}", f"a{a}", f"a{b}")

    async def hot(r: int, c: int, n: int) -> None:
        await transfer(f"{r}-h{c}-{n}", "house", f"a{rng.randrange(args.accounts)}")

    async def balanced() -> bool:
        async with pool.connection() as conn:
            row = await (await conn.execute("SELECT sum(balance) FROM naive_accounts")).fetchone()
        return row is not None and row[0] == FUNDING * args.accounts

    try:
        yield pair, hot, balanced
    finally:
        await pool.close()


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
        return {"hands": hands, "settled": 0, "p50": 0.0, "p99": 0.0, "hands_per_s": round(hands / args.seconds, 1)}
    return {"hands": hands, "settled": len(lags), "p50": round(lags[len(lags) // 2], 1),
            "p99": round(lags[min(len(lags) - 1, int(len(lags) * 0.99))], 1),
            "hands_per_s": round(hands / args.seconds, 1)}


LEDGERS = ("ours", "baseline", "locking")
LOADS = ("pairs", "hot")


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 2) if values else 0.0


async def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="2 s per load and round, 2,000 accounts")
    p.add_argument("--seconds", type=float, default=5.0, help="seconds per load, ledger and round")
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds; each runs every load on every ledger, in a rotated order (default 3)")
    p.add_argument("--clients", type=int, default=64)
    p.add_argument("--accounts", type=int, default=10_000)
    p.add_argument("--pool", type=int, default=6, help="our pool size (batches in flight = pool - 1)")
    p.add_argument("--naive-pool", type=int, default=16, help="the simple ledgers' pool size")
    p.add_argument("--tables", type=int, default=200, help="tables appending hand results (settlement lag)")
    p.add_argument("--hand-interval", type=float, default=1.0, help="seconds between a table's hands")
    args = p.parse_args()
    if args.quick:
        args.seconds, args.accounts = 2.0, 2_000
    url = os.environ.get("QIPAI_BENCH_DATABASE_URL", DEFAULT_URL)
    schema = f"bench_ledger_{uuid.uuid4().hex[:8]}"
    schemas = [schema, f"{schema}_baseline", f"{schema}_locking"]
    run = uuid.uuid4().hex[:6]
    errors = Errors()
    runs: dict[tuple[str, str], list[dict]] = {(ledger, load): [] for ledger in LEDGERS for load in LOADS}
    checks: dict[str, bool] = {}
    try:
        async with contextlib.AsyncExitStack() as stack:
            ledgers = {"ours": await stack.enter_async_context(_ours(url, schema, args, run)),
                       "baseline": await stack.enter_async_context(_simple(url, schemas[1], args, "baseline")),
                       "locking": await stack.enter_async_context(_simple(url, schemas[2], args, "locking"))}
            for r in range(args.rounds):
                order = LEDGERS[r % 3:] + LEDGERS[:r % 3]  # each ledger goes first in some round
                for load in LOADS:
                    for name in order:
                        print(f"round {r + 1}/{args.rounds}: {name}, {load} ...", file=sys.stderr, flush=True)
                        one = ledgers[name][LOADS.index(load)]
                        runs[(name, load)].append(await _drive(
                            f"{name}, {load}", args.clients, args.seconds,
                            lambda c, n, one=one, r=r: one(r, c, n), errors))
            for name, (_, _, check) in ledgers.items():
                checks[name] = await check()
        settled = await _settlement(url, schema, args, run)
    finally:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            for name in schemas:
                await conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))
    for name, ok in checks.items():
        if not ok:
            errors.add(f"{name}: {'audit' if name == 'ours' else 'balances'} failed")
    if settled["settled"] < settled["hands"]:
        errors.kinds["hand not settled"] += settled["hands"] - settled["settled"]

    def per_s(name: str, load: str) -> list[float]:
        return [x["per_s"] for x in runs[(name, load)]]

    def ratios(load: str, other: str) -> list[float]:
        return [a / b if b else 0.0 for a, b in zip(per_s("ours", load), per_s(other, load), strict=True)]

    def spread(values: list[float]) -> str:
        return f"{min(values):.2f}-{max(values):.2f}" if values else "-"

    def median_of(name: str, load: str, key: str) -> float:
        return _median([x[key] for x in runs[(name, load)]])

    rows = []
    for load, label in (("pairs", "random pairs"), ("hot", "hot (house)")):
        rows.append([label, median_of("ours", load, "per_s"), median_of("baseline", load, "per_s"),
                     _median(ratios(load, "baseline")), spread(ratios(load, "baseline")),
                     median_of("locking", load, "per_s"), _median(ratios(load, "locking")),
                     median_of("ours", load, "p99_ms"), median_of("baseline", load, "p99_ms"),
                     median_of("ours", load, "cpu_us_per_op")])
    print(table(["load", "ours/s", "baseline/s", "ratio", "ratio range", "locking/s", "ratio",
                 "ours p99 ms", "baseline p99 ms", "ours CPU µs/op"], rows))
    print(f"medians over {args.rounds} rounds of {args.seconds:g} s per load and ledger, interleaved; ratio range: "
          "lowest and highest of the rounds' ratios")
    print("baseline: one statement per transfer (one round trip, its own transaction); locking: SELECT FOR "
          "UPDATE, 2 UPDATEs, INSERT in BEGIN..COMMIT (six round trips: a straw man, kept for comparison)")
    print(f"clients {args.clients}, accounts {args.accounts:,}, our pool {args.pool}, the simple ledgers' pool "
          f"{args.naive_pool}; our audit ok: {checks.get('ours')}")
    print(f"settlement lag: p50 {settled['p50']} ms, p99 {settled['p99']} ms over {settled['settled']:,} of "
          f"{settled['hands']:,} hands ({settled['hands_per_s']} hands/s from {args.tables} tables; "
          "synthetic hand results)")
    print(errors.line())
    figures: dict[str, float | int | str] = {
        "transfers_per_s": median_of("ours", "pairs", "per_s"), "hot_transfers_per_s": median_of("ours", "hot", "per_s"),
        "naive_transfers_per_s": median_of("baseline", "pairs", "per_s"),
        "naive_hot_transfers_per_s": median_of("baseline", "hot", "per_s"),
        "ratio_vs_naive": _median(ratios("pairs", "baseline")),
        "ratio_vs_naive_min": round(min(ratios("pairs", "baseline"), default=0.0), 2),
        "ratio_vs_naive_max": round(max(ratios("pairs", "baseline"), default=0.0), 2),
        "hot_ratio_vs_naive": _median(ratios("hot", "baseline")),
        "hot_ratio_vs_naive_min": round(min(ratios("hot", "baseline"), default=0.0), 2),
        "hot_ratio_vs_naive_max": round(max(ratios("hot", "baseline"), default=0.0), 2),
        "locking_transfers_per_s": median_of("locking", "pairs", "per_s"),
        "locking_hot_transfers_per_s": median_of("locking", "hot", "per_s"),
        "ratio_vs_locking": _median(ratios("pairs", "locking")),
        "hot_ratio_vs_locking": _median(ratios("hot", "locking")),
        "p99_ms": median_of("ours", "pairs", "p99_ms"), "hot_p99_ms": median_of("ours", "hot", "p99_ms"),
        "naive_p99_ms": median_of("baseline", "pairs", "p99_ms"),
        "naive_hot_p99_ms": median_of("baseline", "hot", "p99_ms"),
        "cpu_us_per_transfer": median_of("ours", "pairs", "cpu_us_per_op"),
        "hot_cpu_us_per_transfer": median_of("ours", "hot", "cpu_us_per_op"),
        "clients": args.clients, "accounts": args.accounts, "seconds_per_load": args.seconds,
        "rounds": args.rounds, "pool": args.pool, "naive_pool": args.naive_pool,
        "audit_ok": int(checks.get("ours", False)),
        "settlement_lag_p50_ms": settled["p50"], "settlement_lag_p99_ms": settled["p99"],
        "settlement_hands_per_s": settled["hands_per_s"], "settlement_hands": settled["settled"],
        "settlement_unsettled_hands": settled["hands"] - settled["settled"],
        **errors.figures(),
    }
    print(f"wrote {write('ledger', figures)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
