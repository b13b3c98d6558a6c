"""Live state speed, per backend: what one game action costs, fan-out delivery, deadline claims.

- action: each of C concurrent tables performs, per action, the live-state writes of a command
  (publish its event and cache the view in one update, re-arm the deadline): actions/s, p50/p99;
  the lease is renewed every 50 actions, as a node renews on a timer, not per command.
- fanout: T tables with L listeners each publish P messages each, R messages/s in all (paced, as
  players act); delivery latency from publish to each listener, and how many Redis connections
  all those listeners keep busy.
- claim: N due deadlines over many tables, claimed by 4 concurrent claimers in batches of 100.

Redis comes from QIPAI_BENCH_REDIS_URL (default redis://127.0.0.1:6379/0), a Redis Cluster from
QIPAI_BENCH_REDIS_CLUSTER_URL (redis+cluster://host:port,...; infra/redis-cluster/start.sh starts
one; without it the cluster column is left out, and the run says so); a unique namespace is used
and deleted afterwards.

Deliveries a listener never got (`<backend>_fanout_missed`) and deadlines not claimed exactly
once (`<backend>_claim_missed`) are counted as errors (`errors`, `error_kinds`): a run with any
says so and exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Errors, table, write  # noqa: E402
from services.live import LiveState, Published, View, open_live_state  # noqa: E402


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def bench_action(live: LiveState, tables: int, actions: int) -> dict[str, float]:
    per_table = max(1, actions // tables)
    latencies: list[float] = []
    view = b"v" * 600
    event = b"e" * 200

    async def play(t: int) -> None:
        table_id = f"bench-{t}"
        lease = await live.acquire_lease(table_id, "bench-node", 30_000)
        assert lease is not None
        for version in range(1, per_table + 1):
            start = time.perf_counter()
            if version % 50 == 0:
                await live.renew(lease, 30_000)
            await live.update_table(table_id, [Published(version, event)], View(version, view))
            await live.schedule(table_id, "turn", 10**13, b"default")
            latencies.append(time.perf_counter() - start)

    start = time.perf_counter()
    await asyncio.gather(*(play(t) for t in range(tables)))
    elapsed = time.perf_counter() - start
    return {
        "action_per_s": round(len(latencies) / elapsed, 1),
        "action_p50_ms": round(_percentile(latencies, 0.5) * 1000, 3),
        "action_p99_ms": round(_percentile(latencies, 0.99) * 1000, 3),
    }


async def bench_fanout(
    live: LiveState, tables: int, listeners: int, messages: int, rate: int
) -> dict[str, float]:
    delays: list[float] = []
    ready = asyncio.Event()
    joined = 0

    async def listen(table_id: str) -> None:
        nonlocal joined
        stream = live.listen(table_id, 0)
        first = asyncio.ensure_future(anext(stream))
        joined += 1
        if joined == tables * listeners:
            ready.set()
        message = await first
        while True:
            delays.append(time.perf_counter() - float(message.payload))
            if message.version == messages:
                return
            message = await anext(stream)

    tasks = [
        asyncio.create_task(listen(f"fan-{t}")) for t in range(tables) for _ in range(listeners)
    ]
    await ready.wait()
    await asyncio.sleep(0.3)  # let the shared readers pick every table up
    connection = getattr(live, "_connection", None)  # memory has none
    blocked = connection.in_use() if connection is not None else 0

    interval = tables / rate

    async def publish(t: int) -> None:
        await asyncio.sleep(t / rate)  # stagger the tables evenly over one interval
        for version in range(1, messages + 1):
            await live.publish(f"fan-{t}", version, repr(time.perf_counter()).encode())
            await asyncio.sleep(interval)

    await asyncio.gather(*(publish(t) for t in range(tables)))
    _, late = await asyncio.wait(tasks, timeout=60)
    for task in late:  # a listener still waiting for its last message: what it lacks is counted
        task.cancel()
    return {
        "fanout_deliveries": len(delays),
        "fanout_missed": tables * listeners * messages - len(delays),
        "fanout_p50_ms": round(statistics.median(delays) * 1000, 3),
        "fanout_p99_ms": round(_percentile(delays, 0.99) * 1000, 3),
        "fanout_connections_in_use": blocked,
    }


async def bench_claim(live: LiveState, deadlines: int) -> dict[str, float]:
    for i in range(deadlines):
        await live.schedule(f"claim-{i % 1000}", f"k{i // 1000}", i, b"p")
    claimed = 0

    async def claimer() -> None:
        nonlocal claimed
        while batch := await live.claim_due(10**12, 100):
            claimed += len(batch)

    start = time.perf_counter()
    await asyncio.gather(*(claimer() for _ in range(4)))
    elapsed = time.perf_counter() - start
    return {"claim_per_s": round(claimed / elapsed, 1), "claim_missed": deadlines - claimed}


async def run(backend: str, url: str, args: argparse.Namespace) -> dict[str, float]:
    live = open_live_state(url, namespace=f"bench-{uuid.uuid4().hex[:8]}")
    try:
        figures: dict[str, float] = {}
        print(f"{backend}: action path ...", file=sys.stderr, flush=True)
        figures |= await bench_action(live, args.tables, args.actions)
        print(f"{backend}: fan-out ...", file=sys.stderr, flush=True)
        figures |= await bench_fanout(
            live, args.fan_tables, args.listeners, args.messages, args.rate
        )
        print(f"{backend}: deadline claims ...", file=sys.stderr, flush=True)
        figures |= await bench_claim(live, args.deadlines)
        return figures
    finally:
        await live.flush_namespace()
        await live.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--tables", type=int, default=200, help="concurrent tables (action path)")
    p.add_argument("--actions", type=int, default=20_000)
    p.add_argument("--fan-tables", type=int, default=500)
    p.add_argument("--listeners", type=int, default=4, help="listeners per table")
    p.add_argument("--messages", type=int, default=10, help="messages per table (fan-out)")
    p.add_argument("--rate", type=int, default=1000, help="messages per second, all tables")
    p.add_argument("--deadlines", type=int, default=20_000)
    p.add_argument("--quick", action="store_true", help="a short run")
    p.add_argument("--backend", choices=["memory", "redis", "cluster", "all"], default="all")
    args = p.parse_args(argv)
    if args.quick:
        args.tables, args.actions, args.fan_tables, args.messages, args.deadlines = (
            50,
            2_000,
            50,
            5,
            2_000,
        )
    redis_url = os.environ.get("QIPAI_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
    cluster_url = os.environ.get("QIPAI_BENCH_REDIS_CLUSTER_URL")
    backends = {"memory": "memory://", "redis": redis_url}
    if cluster_url:
        backends["cluster"] = cluster_url
    elif args.backend in ("cluster", "all"):
        print("live_state: no QIPAI_BENCH_REDIS_CLUSTER_URL, so no Redis Cluster column",
              file=sys.stderr)
        if args.backend == "cluster":
            return 2
    if args.backend != "all":
        backends = {args.backend: backends[args.backend]}
    results = {name: asyncio.run(run(name, url, args)) for name, url in backends.items()}
    keys = list(next(iter(results.values())))
    print(table(["figure", *results], [[k, *(r[k] for r in results.values())] for k in keys]))
    flat = {f"{name}_{k}": v for name, r in results.items() for k, v in r.items()}
    flat |= {
        "tables": args.tables,
        "fan_tables": args.fan_tables,
        "listeners": args.listeners,
        "fan_rate": args.rate,
    }
    errors = Errors()
    for name, r in results.items():
        errors.kinds[f"{name}: fan-out deliveries missed or repeated"] += abs(int(r["fanout_missed"]))
        errors.kinds[f"{name}: deadlines not claimed once"] += abs(int(r["claim_missed"]))
    flat |= errors.figures()
    print(errors.line())
    print(f"wrote {write('live_state', flat)}")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
