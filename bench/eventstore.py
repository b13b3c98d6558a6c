"""Event-store append throughput and latency on Postgres, with a live subscriber, against the
PyPI `eventsourcing` library's PostgreSQL application recorder as the reference.

The same workload for both: W concurrent writers, each appending one small JSON event at a time to
its own stream, while one subscriber follows the global log. Ours runs W asyncio tasks over a
pool; the reference (a synchronous library) runs W threads over a pool of the same size. The
subscriber must see every event exactly once (`subscriber_missed` and `subscriber_duplicates`,
and the reference's `ref_subscriber_missed`, counted). Those, and appends that fail, are the
run's `errors` (`error_kinds`): a run with any says so and exits 1.

    .venv/bin/python bench/eventstore.py [--quick] [--appends N] [--pool P] [--writers 1,16,64]

Uses `QIPAI_BENCH_DATABASE_URL` (default: the local test database) in throwaway schemas.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Errors, table, write  # noqa: E402
from services.eventstore import NewEvent, open_event_store  # noqa: E402

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
EVENT_TYPE = "bench.TileDiscarded"
ERRORS = Errors()
_ERRORS_LOCK = threading.Lock()  # the reference's writers are threads


def _figures(writers: int, per_writer: int, total: int, elapsed: float, latencies: list,
             lags: list, catch_up: float, seen: list) -> dict:
    """One run's figures, the same for our store and the reference."""
    expected = {(f"table-{w}", n + 1) for w in range(writers) for n in range(per_writer)}
    return {
        "appends_per_s": round(total / elapsed, 1),
        "p50_ms": _ms(_pct(latencies, 0.50)),
        "p99_ms": _ms(_pct(latencies, 0.99)),
        "lag_p50_ms": _ms(_pct(lags, 0.50)),
        "lag_p99_ms": _ms(_pct(lags, 0.99)),
        "catch_up_ms": _ms(catch_up),
        "missed": len(expected - set(seen)),
        "duplicates": len(seen) - len(set(seen)),
    }


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _payload(writer: int, n: int) -> dict:
    return {"seat": writer % 4, "tile": "5m", "n": n, "sent": time.time()}


def _drop(url: str, schema: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


async def _ours(url: str, writers: int, per_writer: int, pool: int) -> dict:
    schema = f"bench_es_{uuid.uuid4().hex[:8]}"
    store = await open_event_store(
        url, schema=schema, known_type=lambda name: name == EVENT_TYPE, min_size=pool, max_size=pool
    )
    seen: list[tuple[str, int]] = []
    lags: list[float] = []

    async def handler(tx, events):
        now = time.time()
        for event in events:
            seen.append((event.stream_id, event.version))
            lags.append(now - event.data["sent"])

    consumer = asyncio.create_task(store.subscribe("bench", handler, batch_size=500).run())
    latencies: list[float] = []

    async def writer(w: int) -> None:
        for n in range(per_writer):
            started = time.perf_counter()
            try:
                await store.append(f"table-{w}", n, [NewEvent(EVENT_TYPE, _payload(w, n))])
            except Exception as exc:  # counted; its stream's later appends would conflict, so stop
                ERRORS.add(f"append: {type(exc).__name__}")
                return
            latencies.append(time.perf_counter() - started)

    try:
        started = time.perf_counter()
        await asyncio.gather(*(writer(w) for w in range(writers)))
        elapsed = time.perf_counter() - started
        done = time.perf_counter()
        total = writers * per_writer
        with contextlib.suppress(TimeoutError):  # what never arrived is counted as missed
            async with asyncio.timeout(60):
                while len(seen) < total:
                    await asyncio.sleep(0.005)
        catch_up = time.perf_counter() - done
        await asyncio.sleep(0.2)  # a duplicate would show up now
    finally:
        consumer.cancel()
        await asyncio.gather(consumer, return_exceptions=True)
        await store.close()
        _drop(url, schema)
    return _figures(writers, per_writer, total, elapsed, latencies, lags, catch_up, seen)


def _reference(url: str, writers: int, per_writer: int, pool: int) -> dict:
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
    from psycopg.conninfo import conninfo_to_dict

    params = conninfo_to_dict(url)
    schema = f"bench_ref_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    datastore = PostgresDatastore(
        params.get("dbname", "test"), params.get("host", "127.0.0.1"), params.get("port", 5432),
        params.get("user", "postgres"), params.get("password", ""),
        pool_size=pool, schema=schema, originator_id_type="text",
    )
    recorder = PostgresApplicationRecorder(datastore)
    recorder.create_table()
    total = writers * per_writer
    seen: list[tuple[str, int]] = []
    lags: list[float] = []
    stop = threading.Event()

    def subscriber() -> None:
        last = 0
        while not stop.is_set() and len(seen) < total:
            batch = recorder.select_notifications(start=last + 1, limit=500)
            now = time.time()
            for notification in batch:
                seen.append((notification.originator_id, notification.originator_version))
                lags.append(now - json.loads(notification.state)["sent"])
                last = notification.id
            if not batch:
                time.sleep(0.002)

    latencies: list[float] = []

    def writer(w: int) -> None:
        for n in range(per_writer):
            started = time.perf_counter()
            try:
                recorder.insert_events([
                    StoredEvent(f"table-{w}", n + 1, EVENT_TYPE, json.dumps(_payload(w, n)).encode())
                ])
            except Exception as exc:  # counted; its stream's later appends would conflict, so stop
                with _ERRORS_LOCK:
                    ERRORS.add(f"reference append: {type(exc).__name__}")
                return
            latencies.append(time.perf_counter() - started)

    follower = threading.Thread(target=subscriber, daemon=True)
    follower.start()
    try:
        started = time.perf_counter()
        with ThreadPoolExecutor(writers) as pool_:
            list(pool_.map(writer, range(writers)))
        elapsed = time.perf_counter() - started
        done = time.perf_counter()
        follower.join(timeout=60)
        catch_up = time.perf_counter() - done
    finally:
        stop.set()
        follower.join(timeout=5)
        datastore.close()
        _drop(url, schema)
    return _figures(writers, per_writer, total, elapsed, latencies, lags, catch_up, seen)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--appends", type=int, default=6400, help="appends per writer count (split among writers)")
    p.add_argument("--pool", type=int, default=16,
                   help="writer connections per pool (+1 for the subscriber), same for both stores")
    p.add_argument("--writers", default="1,16,64", help="comma-separated writer counts")
    p.add_argument("--rounds", type=int, default=1, help="repeat each measurement; the median is kept")
    p.add_argument("--quick", action="store_true", help="a short run (640 appends per writer count)")
    p.add_argument("--url", default=os.environ.get("QIPAI_BENCH_DATABASE_URL", DEFAULT_URL))
    args = p.parse_args(argv)
    appends = 640 if args.quick else args.appends
    levels = [int(w) for w in args.writers.split(",")]
    figures: dict[str, float | int | str] = {"appends_per_level": appends, "pool_size": args.pool}
    rows = []
    missed = duplicates = ref_missed = 0
    for writers in levels:
        per_writer = max(1, appends // writers)
        # One connection per writer up to --pool, plus one so the subscriber never queues a writer.
        pool = min(args.pool, writers) + 1
        runs_ours, runs_ref = [], []
        for _ in range(args.rounds):
            print(f"eventstore: {writers} writers x {per_writer} appends (qipai) ...", file=sys.stderr, flush=True)
            runs_ours.append(asyncio.run(_ours(args.url, writers, per_writer, pool)))
            print(f"eventstore: {writers} writers x {per_writer} appends (eventsourcing) ...", file=sys.stderr, flush=True)
            runs_ref.append(_reference(args.url, writers, per_writer, pool))
        ours = min(runs_ours, key=lambda r: abs(r["appends_per_s"] - statistics.median(x["appends_per_s"] for x in runs_ours)))
        ref = min(runs_ref, key=lambda r: abs(r["appends_per_s"] - statistics.median(x["appends_per_s"] for x in runs_ref)))
        missed += sum(r["missed"] for r in runs_ours)
        duplicates += sum(r["duplicates"] for r in runs_ours)
        ref_missed += sum(r["missed"] for r in runs_ref)
        ratio = round(ours["appends_per_s"] / ref["appends_per_s"], 2)
        for key, value in ours.items():
            if key not in ("missed", "duplicates"):
                figures[f"{key}_{writers}"] = value
        for key in ("appends_per_s", "p50_ms", "p99_ms", "lag_p50_ms", "lag_p99_ms"):
            figures[f"ref_{key}_{writers}"] = ref[key]
        figures[f"ratio_vs_eventsourcing_{writers}"] = ratio
        rows.append([writers, ours["appends_per_s"], ref["appends_per_s"], ratio, ours["p50_ms"],
                     ours["p99_ms"], ref["p50_ms"], ref["p99_ms"], ours["lag_p50_ms"], ours["lag_p99_ms"],
                     ref["lag_p99_ms"], ours["missed"] + ours["duplicates"]])
    figures["subscriber_missed"] = missed
    figures["subscriber_duplicates"] = duplicates
    figures["ref_subscriber_missed"] = ref_missed
    ERRORS.kinds["subscriber missed"] += missed
    ERRORS.kinds["subscriber duplicate"] += duplicates
    ERRORS.kinds["reference subscriber missed"] += ref_missed
    figures |= ERRORS.figures()
    print(table(
        ["writers", "appends/s", "ref appends/s", "ratio", "p50 ms", "p99 ms", "ref p50 ms",
         "ref p99 ms", "lag p50 ms", "lag p99 ms", "ref lag p99 ms", "missed+dup"],
        rows,
    ))
    if 64 in levels:
        goal = figures["ratio_vs_eventsourcing_64"]
        print(f"goal: ratio >= 3 at 64 writers with nothing missed -> {goal} "
              f"{'met' if goal >= 3 and missed == 0 and duplicates == 0 else 'NOT met'}")
    print(ERRORS.line())
    print(f"wrote {write('eventstore', figures)}")
    return 1 if ERRORS else 0


if __name__ == "__main__":
    sys.exit(main())
