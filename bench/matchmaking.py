"""Matchmaking on Redis: formation throughput, time to match under a steady load, across two
matchmaker processes, and how many players end up seated twice (counted, never assumed).

- `tickets_matched_per_s`: a burst of `--burst` tickets (default 20,000) sits in one queue;
  two matchmakers (two store connections, as two processes would have) form and "seat" them
  against a fast fake game (no table is made): formation only, from the first formation step
  to the last ticket matched.
- `time_to_match_p50_ms` / `p99_ms`: tickets arrive at `--rate` a second (default 200) for
  `--seconds`; one matchmaker forms and seats them at real tables (the game's table service
  in this process, on Postgres, buying each seat in through the ledger). A ticket's time is
  from its Queue to its match seated.
  `steady_double_seated`: players the game's log holds seated at more than one table (or twice
  at one) when the run ends, `steady_double_bought_in`: players the ledger charged more than one
  buy-in.
- Two processes (`two_*`): a game process and two matchmaker processes (`qipai serve --service
  game` / `--service matchmaking`) on one Postgres schema and Redis namespace. `--players`
  players (default 1,000) queue at once over gRPC, alternately at either matchmaker, half for
  koudian and half for daqi; `--twice` of them (default 10 %) queue at both matchmakers at once,
  koudian at one and daqi at the other (a player racing themself). `two_tickets_matched_per_s`:
  matched tickets ÷ the time from the first Queue call to the last match seen;
  `two_time_to_match_p50_ms` / `_p99_ms`: from a Queue call to its stream reporting the ticket
  matched. `two_double_seated` / `two_double_bought_in` as above, from the game's log and the
  ledger; `two_refused`: Queue calls of racing players turned away (FAILED_PRECONDITION,
  ALREADY_EXISTS or ABORTED before any ticket) or whose ticket was cancelled, which is what
  racing should get; for other players either is an error.
- `double_matched`: players the fake game was asked to seat more than once in the burst.

Doubles are reported, not asserted: another part of the code is responsible for preventing
them, this measures whether it does. Errors (arrivals that could not reach Redis, tickets left
unmatched beyond a partial table per queue, streams that failed) are counted in `errors` /
`error_kinds`; a run with any exits 1.

    .venv/bin/python bench/matchmaking.py [--quick] [--burst 20000] [--rate 200] [--seconds 10]
                                          [--players 1000] [--twice 0.1]

Uses `QIPAI_BENCH_DATABASE_URL` (default: the local test database, a throwaway schema) and
`QIPAI_BENCH_REDIS_URL` (default redis://127.0.0.1:6379/0, a throwaway key namespace).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Errors, table, write  # noqa: E402
from services.live.base import LiveStateUnavailable  # noqa: E402
from services.matchmaking.config import parse_queues  # noqa: E402
from services.matchmaking.game import match_table_id  # noqa: E402
from services.matchmaking.queues import Matchmaker  # noqa: E402
from services.matchmaking.redis_store import RedisTicketStore  # noqa: E402
from services.matchmaking.tickets import SEARCHING, Ticket, new_ticket_id  # noqa: E402
from services.observability import setup_logging  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
CONFIG = {"defaults": {"bot_fill_after_s": 0, "grace_s": 600, "match_lease_s": 30},
          "rulesets": {"koudian": {"presets": {"standard": {}}, "tiers": {"bronze": {"stake": 1}}}}}


class FakeGame:
    """A game that makes no table: records every seat it was asked for."""

    def __init__(self) -> None:
        self.sits: Counter[tuple[str, str]] = Counter()

    def table_id(self, match_id: str) -> str:
        return match_table_id("", match_id)

    async def create_table(self, match_id: str, ruleset: str, options: dict[str, Any]) -> str:
        return self.table_id(match_id)

    async def sit(self, table_id: str, player_id: str, seat: int, request_id: str, *,
                  bot: bool = False) -> None:
        self.sits[(table_id, player_id)] += 1

    async def ready(self, table_id: str, player_id: str, request_id: str) -> None:
        pass

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


# Who sits where at the end, from the game's own log: a player's seats at a table are their
# PlayerSeated events less their PlayerLeft events (bots have no account and are left out).
SEATED_TWICE = """
SELECT count(*) FROM (
  SELECT player FROM (
    SELECT stream_id, data->>'player_id' AS player,
           sum(CASE WHEN type = 'table.PlayerSeated' THEN 1 ELSE -1 END) AS seats
    FROM events WHERE type IN ('table.PlayerSeated', 'table.PlayerLeft') GROUP BY 1, 2) per_table
  WHERE seats > 0 AND player NOT LIKE 'bot-%%'
  GROUP BY player HAVING sum(seats) > 1) twice
"""
SEATED = """
SELECT count(DISTINCT player) FROM (
  SELECT stream_id, data->>'player_id' AS player,
         sum(CASE WHEN type = 'table.PlayerSeated' THEN 1 ELSE -1 END) AS seats
  FROM events WHERE type IN ('table.PlayerSeated', 'table.PlayerLeft') GROUP BY 1, 2) per_table
WHERE seats > 0 AND player NOT LIKE 'bot-%%'
"""
# And from the ledger: players charged more than one buy-in.
BOUGHT_IN_TWICE = """
SELECT count(*) FROM (SELECT debit FROM ledger_transfers WHERE kind = 'buyin' GROUP BY debit
                      HAVING count(*) > 1) twice
"""


async def held(db_url: str, schema: str) -> dict[str, int]:
    """What the game's log and the ledger hold in `schema`: players seated, players seated more
    than once, players charged more than one buy-in."""
    async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
        await conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))

        async def one(query: str) -> int:
            row = await (await conn.execute(query)).fetchone()
            return int(row[0]) if row else 0

        return {"seated": await one(SEATED), "double_seated": await one(SEATED_TWICE),
                "double_bought_in": await one(BOUGHT_IN_TWICE)}


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
        await asyncio.sleep(0.5)  # the last match's seats
        holds = await held(db_url, schema)
    finally:
        stop.set()
        await runner
        await _drop_keys(store, namespace)
        await store.close()
        await backends.close()
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
            await conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    return {"arrivals": n, "tables": tables, "p50": _pct(waits, 50), "p99": _pct(waits, 99),
            "rate": arrival_rate, "refused": refused, "unmatched": n - refused - len(waits),
            "leftover": queued % 4, **holds}


# --- two matchmaker processes -----------------------------------------------------------------

SECRET = "bench-matchmaking-" + "k" * 32
QUEUES_TOML = """
[defaults]
bot_fill_after_s = 0
grace_s = 600
match_lease_s = 5
[rulesets.koudian.presets]
standard = {}
[rulesets.koudian.tiers]
bronze = { stake = 1 }
[rulesets.daqi.presets]
standard = {}
[rulesets.daqi.tiers]
bronze = { stake = 1 }
"""
SEATS = {"koudian": 4, "daqi": 5}
QUIET_S = 10.0  # after the last arrival, the run ends once no ticket has matched for this long


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _wait_serving(address: str, proc: subprocess.Popen[bytes], timeout: float = 180) -> None:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async with grpc.aio.insecure_channel(address) as chan:
        stub = health_pb2_grpc.HealthStub(chan)
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"the server for {address} exited ({proc.returncode})")
            with contextlib.suppress(grpc.aio.AioRpcError):
                if (await stub.Check(health_pb2.HealthCheckRequest(), timeout=1)).status == 1:
                    return
            if time.monotonic() > deadline:
                raise SystemExit(f"{address} did not start within {timeout:g} s")
            await asyncio.sleep(0.3)


async def two_processes(db_url: str, redis_url: str, players: int, twice: float, errors: Errors) -> dict[str, Any]:
    """`players` players queueing at once over two matchmaker processes seating at one game process."""
    import grpc

    from protocol.tokens import issue
    from qipai.v1 import matchmaking_pb2 as pb
    from qipai.v1 import matchmaking_pb2_grpc

    refusals = {grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.ABORTED}

    schema = f"bench_mm2_{uuid.uuid4().hex[:8]}"
    namespace = f"bench-mm2-{uuid.uuid4().hex[:8]}"
    sep = "&" if "?" in db_url else "?"
    tmp = tempfile.TemporaryDirectory(prefix="bench-mm2-")
    queues = Path(tmp.name) / "queues.toml"
    queues.write_text(QUEUES_TOML)
    base = {k: v for k, v in os.environ.items() if not k.startswith("QIPAI_")}
    base |= {"QIPAI_DATABASE_URL": f"{db_url}{sep}schema={schema}", "QIPAI_REDIS_URL": redis_url,
             "QIPAI_LIVE_NAMESPACE": namespace, "QIPAI_TOKEN_SECRET": SECRET, "QIPAI_LOG_LEVEL": "warning",
             "QIPAI_QUEUES_FILE": str(queues)}
    procs: list[subprocess.Popen[bytes]] = []

    def serve(service: str, node: str, extra: dict[str, str]) -> str:
        address = f"127.0.0.1:{_free_port()}"
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--service", service],
            env={**base, **extra, "QIPAI_GRPC_ADDR": address, "QIPAI_NODE_ID": node}, cwd=ROOT))
        return address

    rng = random.Random(7)
    waits: dict[str, float] = {}  # by ticket: a player racing themself may follow one ticket twice
    outcome: Counter[str] = Counter()
    leftover: dict[str, set[str]] = {ruleset: set() for ruleset in SEATS}  # players still searching at the end
    last_match = [0.0]
    try:
        print("two processes: starting a game process and two matchmakers ...", file=sys.stderr, flush=True)
        game = serve("game", "bench-game", {})
        await _wait_serving(game, procs[0])
        makers = [serve("matchmaking", f"bench-mm{n}", {"QIPAI_GAME_ADDR": game}) for n in range(2)]
        for address, proc in zip(makers, procs[1:], strict=True):
            await _wait_serving(address, proc)
        channels = [grpc.aio.insecure_channel(a) for a in makers]
        stubs = [matchmaking_pb2_grpc.MatchmakingStub(c) for c in channels]
        opening = asyncio.Semaphore(100)  # Queue calls being opened at once (the rest wait their turn)
        t0 = time.perf_counter()

        async def queue(player: str, maker: int, ruleset: str, racing: bool) -> None:
            token, _ = issue(SECRET, player)
            async with opening:
                started = time.perf_counter()
                stream = stubs[maker].Queue(pb.QueueRequest(ruleset=ruleset),
                                            metadata=[("authorization", f"Bearer {token}")])
                first = True
            queue_of = ruleset  # a racing player's call may follow the ticket of the other ruleset
            try:
                async for ticket in stream:
                    queue_of = ticket.queue.split("/")[0] or queue_of
                    if ticket.state == pb.TICKET_STATE_MATCHED:
                        now = time.perf_counter()
                        waits[ticket.ticket_id] = min(now - started, waits.get(ticket.ticket_id, now))
                        last_match[0] = now
                        return
                    if ticket.state == pb.TICKET_STATE_CANCELLED:
                        if racing:  # one of a player's two tickets given up: what racing should get
                            outcome["refused"] += 1
                        else:
                            errors.add(f"cancelled: {ticket.cancel_reason}")
                        return
                    first = False
            except asyncio.CancelledError:  # the run ended with this ticket still searching
                leftover.setdefault(queue_of, set()).add(player)
                raise
            except grpc.aio.AioRpcError as exc:
                if racing and first and exc.code() in refusals:
                    outcome["refused"] += 1
                else:
                    errors.add(f"Queue {exc.code().name}")
            finally:
                stream.cancel()

        tasks: list[asyncio.Task[None]] = []
        n_twice = int(players * twice)
        for i in range(players):
            player = f"q{i}"
            if i < n_twice:
                first_maker = rng.randrange(2)
                tasks.append(asyncio.create_task(queue(player, first_maker, "koudian", True)))
                tasks.append(asyncio.create_task(queue(player, 1 - first_maker, "daqi", True)))
            else:
                tasks.append(asyncio.create_task(queue(player, i % 2, "koudian" if i % 4 < 2 else "daqi", False)))
        print(f"two processes: {players:,} players queueing ({n_twice:,} of them at both matchmakers) ...",
              file=sys.stderr, flush=True)
        last_count = -1
        quiet_since = time.perf_counter()
        while not all(t.done() for t in tasks):
            await asyncio.sleep(0.5)
            if len(waits) != last_count:
                last_count, quiet_since = len(waits), time.perf_counter()
            elif time.perf_counter() - quiet_since > QUIET_S:
                break
        for t in tasks:
            if not t.done():
                t.cancel()
        for r in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(r, Exception):
                errors.add(r)
        for ruleset, waiting in leftover.items():  # fewer than a table's worth may wait for more players
            if len(waiting) >= SEATS.get(ruleset, 1):
                errors.add(f"{ruleset} tickets unmatched")
        for c in channels:
            await c.close()
        elapsed = max(last_match[0] - t0, 1e-9)
        await asyncio.sleep(1.0)  # the last matches' seats
        holds = await held(db_url, schema)
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
            await conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
        store = RedisTicketStore(redis_url, namespace)
        await _drop_keys(store, namespace)
        await store.close()
        tmp.cleanup()
    waits_ms = sorted(int(w * 1000) for w in waits.values())
    return {"players": players, "twice": n_twice, "matched": len(waits), "per_s": len(waits) / elapsed, "p50": _pct(waits_ms, 50), "p99": _pct(waits_ms, 99),
            "refused": outcome["refused"], "unmatched": sum(map(len, leftover.values())), **holds}


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
    p.add_argument("--quick", action="store_true",
                   help="a 4,000-ticket burst, 5 s of arrivals, 200 players over two processes")
    p.add_argument("--burst", type=int, default=20_000)
    p.add_argument("--rate", type=float, default=200.0)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--players", type=int, help="players in the two-process run (default 1,000; 0 skips it)")
    p.add_argument("--twice", type=float, default=0.1,
                   help="share of those players queueing at both matchmakers at once")
    args = p.parse_args()
    if args.quick:
        args.burst, args.seconds = 4_000, 5.0
    if args.players is None:
        args.players = 200 if args.quick else 1_000
    setup_logging("warning", "console")
    db_url = os.environ.get("QIPAI_BENCH_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("QIPAI_BENCH_REDIS_URL", DEFAULT_REDIS)
    errors = Errors()
    formed = await burst(redis_url, args.burst)
    timed = await steady(db_url, redis_url, args.rate, args.seconds)
    errors.kinds["steady arrival could not reach Redis"] += timed["refused"]
    if timed["unmatched"] > timed["leftover"]:
        errors.kinds["steady ticket unmatched"] += timed["unmatched"] - timed["leftover"]
    if formed["matched"] < formed["tickets"] - formed["tickets"] % 4:
        errors.kinds["burst ticket unmatched"] += formed["tickets"] - formed["tickets"] % 4 - formed["matched"]
    two = await two_processes(db_url, redis_url, args.players, args.twice, errors) if args.players else None
    rows = [
        ["burst, fake game (2 matchmakers)", formed["tickets"], round(formed["per_s"], 1), "", "",
         formed["double"], "-"],
        [f"{args.rate:g}/s steady, real tables", timed["arrivals"], "", timed["p50"], timed["p99"],
         timed["double_seated"], timed["double_bought_in"]],
    ]
    if two is not None:
        rows.append([f"2 matchmaker processes, {two['players']:,} players at once", two["players"] + two["twice"],
                     round(two["per_s"], 1), two["p50"], two["p99"], two["double_seated"], two["double_bought_in"]])
    print(table(["load", "tickets", "matched/s", "p50 ms", "p99 ms", "seated twice", "bought in twice"], rows))
    print(f"burst: {formed['matched']:,} of {formed['tickets']:,} tickets matched in {formed['seconds']:.2f} s; "
          f"steady: {timed['tables']:,} tables seated, {timed['seated']:,} players seated, arrivals came at "
          f"{timed['rate']:.0f}/s (the game runs in this process); {timed['refused']} arrivals could not reach "
          f"Redis in time, {timed['unmatched']} not matched within 60 s of the last arrival")
    if two is not None:
        print(f"two processes: {two['matched']:,} tickets matched, {two['seated']:,} players seated; "
              f"{two['twice']:,} players queued at both matchmakers at once: {two['refused']} of their calls "
              f"turned away or tickets cancelled; {two['unmatched']} players still searching at the end (fewer than a table's worth "
              "per queue is no error)")
    print("seated twice: players the game's log holds at two seats at the end; bought in twice: players the "
          "ledger charged two buy-ins (burst: seats the fake game was asked for)")
    doubles = formed["double"] + timed["double_seated"] + timed["double_bought_in"] + (
        two["double_seated"] + two["double_bought_in"] if two is not None else 0)
    if doubles:
        print(f"DOUBLES: {doubles} (see the table): a player held more than one seat or buy-in")
    print(errors.line())
    figures: dict[str, float | int | str] = {
        "tickets_matched_per_s": round(formed["per_s"], 1), "burst_tickets": formed["tickets"],
        "burst_matched": formed["matched"], "double_matched": formed["double"],
        "time_to_match_p50_ms": timed["p50"], "time_to_match_p99_ms": timed["p99"],
        "steady_arrivals_per_s": args.rate, "steady_arrivals_achieved_per_s": round(timed["rate"], 1),
        "steady_arrivals": timed["arrivals"], "steady_tables": timed["tables"],
        "steady_seated_players": timed["seated"], "steady_double_seated": timed["double_seated"],
        "steady_double_bought_in": timed["double_bought_in"],
        "steady_arrivals_refused": timed["refused"], "steady_unmatched": timed["unmatched"],
    }
    if two is not None:
        figures |= {"two_players": two["players"], "two_players_twice": two["twice"],
                    "two_tickets_matched": two["matched"], "two_tickets_matched_per_s": round(two["per_s"], 1),
                    "two_time_to_match_p50_ms": two["p50"], "two_time_to_match_p99_ms": two["p99"],
                    "two_seated_players": two["seated"], "two_double_seated": two["double_seated"],
                    "two_double_bought_in": two["double_bought_in"], "two_refused": two["refused"],
                    "two_unmatched": two["unmatched"]}
    figures |= errors.figures()
    print(f"wrote {write('matchmaking', figures)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
