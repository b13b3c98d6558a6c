"""Matchmaking on Redis: formation throughput, time to match under a steady load, and that no
ticket is ever matched twice.

- `tickets_matched_per_s`: a burst of `--burst` tickets (default 20,000) sits in one queue;
  two matchmakers (two store connections, as two processes would have) form and "seat" them
  against a fast fake game (no table is made): formation only, from the first formation step
  to the last ticket matched.
- `time_to_match_p50_ms` / `p99_ms`: tickets arrive at `--rate` a second (default 200) for
  `--seconds`; one matchmaker forms and seats them at real tables (the game's table service
  in this process, on Postgres, buying each seat in through the ledger). A ticket's time is
  from its Queue to its match seated.
- `double_matched`: tickets seated in more than one match, over both runs (must be 0).

    .venv/bin/python bench/matchmaking.py [--quick] [--burst 20000] [--rate 200] [--seconds 10]

Uses `QIPAI_BENCH_DATABASE_URL` (default: the local test database, a throwaway schema) and
`QIPAI_BENCH_REDIS_URL` (default redis://127.0.0.1:6379/0, a throwaway key namespace).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import table, write  # noqa: E402
from services.live.base import LiveStateUnavailable  # noqa: E402
from services.matchmaking.config import parse_queues  # noqa: E402
from services.matchmaking.game import match_table_id  # noqa: E402
from services.matchmaking.queues import Matchmaker  # noqa: E402
from services.matchmaking.redis_store import RedisTicketStore  # noqa: E402
from services.matchmaking.tickets import SEARCHING, Ticket, new_ticket_id  # noqa: E402
from services.observability import setup_logging  # noqa: E402

DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
CONFIG = {"defaults": {"bot_fill_after_s": 0, "grace_s": 600, "match_lease_s": 30},
          "rulesets": {"koudian": {"presets": {"standard": {}}, "tiers": {"bronze": {"stake": 1}}}}}


class FakeGame:
    """A game that makes no table: records every seat it was asked for."""

    def __init__(self) -> None:
        self.sits: Counter[tuple[str, str]] = Counter()

    async def create_table(self, match_id: str, ruleset: str, options: dict[str, Any]) -> str:
        return match_table_id(match_id)

    async def sit(self, table_id: str, player_id: str, seat: int, request_id: str, *,
                  bot: bool = False) -> None:
        self.sits[(table_id, player_id)] += 1

    async def leave(self, table_id: str, player_id: str, request_id: str) -> None:
        pass

    async def seated(self, table_id: str, player_id: str) -> bool:
        return False


async def _enqueue(store: RedisTicketStore, queue: str, players: list[str]) -> None:
    sem = asyncio.Semaphore(50)
    now = int(time.time() * 1000)

    async def one(p: str) -> None:
        async with sem:
            await store.enqueue(Ticket(new_ticket_id(queue), p, queue, SEARCHING, now, expires_ms=now + 600_000))

    await asyncio.gather(*(one(p) for p in players))


async def burst(redis_url: str, n: int) -> dict[str, float]:
    """Formation throughput of two matchmakers against a fast fake game."""
    namespace = f"bench-mm-{uuid.uuid4().hex[:8]}"
    config = parse_queues(CONFIG)
    stores = [RedisTicketStore(redis_url, namespace) for _ in range(2)]
    games = [FakeGame(), FakeGame()]
    makers = [Matchmaker(config, s, g) for s, g in zip(stores, games, strict=True)]
    queue = next(iter(config.queues))
    players = [f"b{i}" for i in range(n)]
    try:
        await _enqueue(stores[0], queue, players)
        t0 = time.perf_counter()

        async def drain(maker: Matchmaker) -> None:
            while await maker.form_once(wait=True):
                pass

        await asyncio.gather(*(drain(m) for m in makers))
        elapsed = time.perf_counter() - t0
        matched = (await makers[0].store.match_stats(queue))[0] * 4  # the store counts every process's
        sits = games[0].sits + games[1].sits
        by_player = Counter(p for (_, p) in sits)
        double = sum(1 for c in by_player.values() if c > 1)
        return {"tickets": n, "matched": matched, "seconds": elapsed,
                "per_s": matched / elapsed, "double": double}
    finally:
        await _drop_keys(stores[0], namespace)
        for s in stores:
            await s.close()


async def steady(db_url: str, redis_url: str, rate: float, seconds: float) -> dict[str, float]:
    """Time to match at `rate` arrivals a second, seating real tables."""
    from services.bootstrap import open_backends
    from services.config import Settings
    from services.matchmaking.game import InProcessGame

    schema = f"bench_mm_{uuid.uuid4().hex[:8]}"
    namespace = f"bench-mm-{uuid.uuid4().hex[:8]}"
    sep = "&" if "?" in db_url else "?"
    backends = await open_backends(Settings(database_url=f"{db_url}{sep}schema={schema}",
                                            redis_url=redis_url, live_namespace=namespace))
    config = parse_queues(CONFIG)
    from engine import rulesets

    for spec in config.queues.values():  # a running server has its rulesets loaded (seconds each)
        rulesets.get(spec.ruleset)
    store = RedisTicketStore(redis_url, namespace, max_connections=1000)  # arrivals never wait for one
    waits: list[int] = []
    maker = Matchmaker(config, store, InProcessGame(backends.tables), tick_s=0.05, record_waits=waits)
    queue = next(iter(config.queues))
    stop = asyncio.Event()
    runner = asyncio.create_task(maker.run(stop))
    n = int(rate * seconds)
    try:
        t0 = time.perf_counter()
        arrivals: set[asyncio.Task[Any]] = set()

        refused = 0

        async def arrive(i: int) -> None:
            nonlocal refused
            now_ms = int(time.time() * 1000)
            try:
                await store.enqueue(Ticket(new_ticket_id(queue), f"s{i}", queue, SEARCHING, now_ms,
                                           expires_ms=now_ms + 600_000))
            except LiveStateUnavailable:  # the process is too busy to reach Redis in time
                refused += 1

        for i in range(n):  # on schedule, whatever the seating keeps the process busy with
            delay = t0 + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            task = asyncio.create_task(arrive(i))
            arrivals.add(task)
            task.add_done_callback(arrivals.discard)
        await asyncio.gather(*arrivals)
        arrival_rate = n / (time.perf_counter() - t0)
        deadline = time.perf_counter() + 60
        queued = n - refused
        while ((await maker.store.match_stats(queue))[0] * 4 < queued - queued % 4
               and time.perf_counter() < deadline):
            await asyncio.sleep(0.1)
        waits.sort()
        tables = (await maker.store.match_stats(queue))[0]
    finally:
        stop.set()
        await runner
        await _drop_keys(store, namespace)
        await store.close()
        await backends.close()
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
            await conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    return {"arrivals": n, "tables": tables, "p50": _pct(waits, 50), "p99": _pct(waits, 99),
            "rate": arrival_rate, "refused": refused, "unmatched": n - refused - len(waits)}


def _pct(values: list[int], pct: float) -> float:
    if not values:
        return float("nan")
    return float(statistics.quantiles(values, n=100)[int(pct) - 1]) if len(values) > 1 else float(values[0])


async def _drop_keys(store: RedisTicketStore, namespace: str) -> None:
    client = store._client
    async for key in client.scan_iter(match=f"{namespace}:*", count=1000):
        await client.delete(key)


async def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="a 4,000-ticket burst, 5 s of arrivals")
    p.add_argument("--burst", type=int, default=20_000)
    p.add_argument("--rate", type=float, default=200.0)
    p.add_argument("--seconds", type=float, default=10.0)
    args = p.parse_args()
    if args.quick:
        args.burst, args.seconds = 4_000, 5.0
    setup_logging("warning", "console")
    db_url = os.environ.get("QIPAI_BENCH_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("QIPAI_BENCH_REDIS_URL", DEFAULT_REDIS)
    formed = await burst(redis_url, args.burst)
    timed = await steady(db_url, redis_url, args.rate, args.seconds)
    print(table(["load", "tickets", "matched/s", "p50 ms", "p99 ms", "double matched"], [
        ["burst, fake game (2 matchmakers)", formed["tickets"], round(formed["per_s"], 1), "", "",
         formed["double"]],
        [f"{args.rate:g}/s steady, real tables", timed["arrivals"], "", timed["p50"], timed["p99"], 0],
    ]))
    print(f"burst: {formed['matched']:,} of {formed['tickets']:,} tickets matched in {formed['seconds']:.2f} s; "
          f"steady: {timed['tables']:,} tables seated, arrivals came at {timed['rate']:.0f}/s "
          f"(the game runs in this process); {timed['refused']} arrivals could not reach Redis in "
          f"time, {timed['unmatched']} not matched within 60 s of the last arrival")
    figures = {
        "tickets_matched_per_s": round(formed["per_s"], 1), "burst_tickets": formed["tickets"],
        "time_to_match_p50_ms": timed["p50"], "time_to_match_p99_ms": timed["p99"],
        "steady_arrivals_per_s": args.rate, "steady_arrivals_achieved_per_s": round(timed["rate"], 1), "steady_arrivals": timed["arrivals"],
        "steady_tables": timed["tables"], "double_matched": formed["double"],
        "steady_arrivals_refused": timed["refused"], "steady_unmatched": timed["unmatched"],
    }
    print(f"wrote {write('matchmaking', figures)}")
    return 0 if formed["double"] == 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
