"""The game service under load, over gRPC, against Postgres and Redis.

1. Full speed: T tables (default 200) of greedy bots acting as fast as they can; actions/s and
   the Act round trip's p50/p99.
2. The ceiling: a bare grpc.aio unary echo service on this machine, driven the same way (as many
   callers as tables, over as many connections as the bots use: one per TABLES_PER_CONNECTION
   tables, `echo_connections` / `connections`), in the same run; `ratio_vs_echo` = actions/s ÷
   echo calls/s.
3. Paced: N tables (default 2,000), each seat thinking one second before each decision (about
   one action per table per second, since mostly one seat decides at a time); Act p99 and the
   server process's CPU.
4. With `--workers N` (default 2; 1 skips it): the full-speed run again against
   `qipai serve --service game --workers N`
   (N game processes sharing one address); total actions/s, server CPU over every worker, and
   how the tables spread over the workers (`workers_tables_min` / `_max`, by lease holder).
The server runs as its own process (`qipai serve --service game`); the bots share this one.

Settlement lag: in the full-speed run (where hands end every few seconds; paced hands outlast
the run) a ledger process of its own (`qipai serve --service ledger`, on the same database
schema; its CPU is not in `server_cpu`) settles the hands as they end. `settlement_lag_p50_ms` /
`_p99_ms` are per hand with chips to move, from its `table.HandSettled` event's `recorded_at` in
the log to the moment its `settle/...` transfers are seen committed by a reader polling the ledger
every SETTLEMENT_POLL_S on a connection of its own: late by up to about one poll, never early.
`settlement_unsettled_hands` counts such hands still without transfers when the run ended (an
error). A run in which no such hand ended has no lag to report: -1, and it says so.

CPU per operation does not depend on how much CPU the bots leave the server:
`server_cpu_ms_per_action` (full speed) and `paced_server_cpu_ms_per_action` are the server
process's CPU seconds over the measured window ÷ the actions acknowledged in it, in ms;
`echo_cpu_ms_per_call` is the echo server's the same way; `cpu_per_action_vs_echo_call` and
`paced_cpu_per_action_vs_echo_call` are how many echo calls' worth of CPU one action costs.

The game process is not all an action costs. `[paced_|workers_]box_cpu_ms_per_action` is the
CPU of every process it goes through, by pid, over the same window ÷ the same actions: the game
process (and its workers), the ledger process (the full-speed run only; the paced run has none),
the Postgres backends serving their connections (a process per connection, found by the
client ports of the sockets those processes hold, in pg_stat_activity) and the Redis server;
each part also on its own (`ledger_`, `postgres_`, `redis_cpu_ms_per_action`), and
`box_cpu_per_action_vs_echo_call` the box's figure in echo calls (the echo call has no other
process). On a shared machine the Redis server serves others too, so its part is an upper
bound; `postgres_all_cpu_ms_per_action` counts every Postgres process (the postmaster, its
background writers, all backends, those that exited: an upper bound on a shared server).

Errors (a bot's call failing other than at the bench's own shutdown, an echo call failing, a
hand the ledger did not settle) are counted by kind: `errors`, `error_kinds`, per run
`[paced_|workers_]errors`, a column of the table; a run with any exits 1 and says its figures are
not valid.
The window opens once every seat's Watch stream has caught up on its table's history (the first
update of each; `warm_up_s` / `paced_warm_up_s` say how long that took, at most WARM_UP_MAX_S:
at that cap some streams were still catching up and the figures include that start-up work).
The echo server runs on uvloop when it is installed, as `qipai serve` does.

Messages per acknowledged action in the window (`[paced_]..._per_action`, counted where the bots
receive them, so at no cost to the server): `watch_messages` (Watch updates), `watch_views`
(those carrying a seat view), `watch_events`, and the unary calls `act_calls` (refused ones too),
`get_view_calls`, `ready_calls`.

How busy the machine was: `machine_busy` / `paced_machine_busy` / `workers_machine_busy` are the
whole machine's CPU utilisation over the window, every process and every core (/proc/stat; 1.0:
no core idle, so nothing was left for more workers to use), and `bots_cpu_ms_per_action` (and
`paced_` / `workers_`) the load generator's own CPU per action, in this process.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import table, write  # noqa: E402
from clients.client import Player, channel, play_seat, seat_players  # noqa: E402
from services.server import steady_gc  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ECHO = "/bench.Echo/Call"
WARM_UP_S = 3.0
# The warm-up lasts until every seat's Watch stream has brought its first update, at most this
# long: that first update is the table's whole history, read from the store and decoded for each
# seat, a start-up cost (seconds of server CPU for hundreds of tables) that is not the steady
# state the CPU per action describes.
WARM_UP_MAX_S = 60.0


# The messages of the run (reset when the measured window opens): what the server sent and
# answered, counted where the bots receive them (a message sent is a message received, so the
# server does no counting of its own).
MESSAGES: collections.Counter[str] = collections.Counter()


class _Stream:
    """A Watch call that notes when its first update arrives, and counts the updates."""

    def __init__(self, call: Any, first: asyncio.Event) -> None:
        self._call, self._first = call, first

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._updates()

    async def _updates(self) -> AsyncIterator[Any]:
        async for update in self._call:
            self._first.set()
            MESSAGES["watch"] += 1
            MESSAGES["watch_views"] += update.HasField("view")
            MESSAGES["watch_events"] += len(update.events)
            yield update

    def cancel(self) -> bool:
        return bool(self._call.cancel())


class _BenchPlayer(Player):
    """A player whose `caught_up` is set once its Watch stream has brought an update, and
    whose calls are counted."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.caught_up = asyncio.Event()

    def watch(self, table_id: str, from_version: int = 0, with_views: bool = False) -> Any:
        MESSAGES["watch_calls"] += 1
        return _Stream(super().watch(table_id, from_version, with_views), self.caught_up)

    async def act(self, *args: Any, **kwargs: Any) -> Any:
        MESSAGES["act"] += 1
        return await super().act(*args, **kwargs)

    async def view(self, table_id: str) -> Any:
        MESSAGES["get_view"] += 1
        return await super().view(table_id)

    async def ready(self, *args: Any, **kwargs: Any) -> Any:
        MESSAGES["ready"] += 1
        return await super().ready(*args, **kwargs)

    async def reveal(self, *args: Any, **kwargs: Any) -> Any:
        MESSAGES["ready"] += 1
        return await super().reveal(*args, **kwargs)
# Per acknowledged action in the measured window (figure name, MESSAGES key): Watch messages
# (`watch_messages_per_action`), those carrying a seat view, the events in them, and the unary
# calls (Act includes refused ones; GetView: a bot looking again; Ready: hands and deal nonces).
MESSAGE_FIGURES = (("watch_messages", "watch"), ("watch_views", "watch_views"),
                   ("watch_events", "watch_events"), ("act_calls", "act"),
                   ("get_view_calls", "get_view"), ("ready_calls", "ready"))
TABLES_PER_CONNECTION = 50
SEATING_AT_ONCE = 20  # tables seated concurrently before play (one at a time took minutes)
FAST = {"koudian": {}, "daqi": {"deal_interval_ms": 0}}  # bots bid and pass themselves


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu_seconds(pid: int) -> float:
    """CPU seconds of `pid` and of its live child processes (a supervisor's workers)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    children = Path(f"/proc/{pid}/task/{pid}/children")
    kids = [int(c) for c in children.read_text().split()] if children.exists() else []
    return own + sum(_cpu_seconds(kid) for kid in kids if Path(f"/proc/{kid}").exists())


def _machine_ticks() -> tuple[int, int]:
    """The whole machine's busy and total CPU ticks so far, over every core (/proc/stat)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    total = sum(fields[:8])  # guest time is already in user and nice
    return total - idle, total


def _stat(pid: int) -> list[str]:
    """/proc/<pid>/stat's fields from the state on (index 11: utime, 12: stime, 13: cutime,
    14: cstime); [] once the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return []


def _own_cpu(pid: int, reaped: bool = False) -> float:
    """CPU seconds of `pid` alone, with `reaped` also of its children that have exited."""
    fields = _stat(pid)
    if not fields:
        return 0.0
    ticks = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if reaped else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def _tree(pid: int) -> list[int]:
    """`pid` and its live descendants."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        kids = [int(c) for c in children.read_text().split()]
    except (FileNotFoundError, ProcessLookupError):
        kids = []
    return [pid] + [d for kid in kids for d in _tree(kid)]


def _ports_to(pids: list[int], remote_port: int) -> list[int]:
    """The local TCP ports of the sockets `pids` hold that are connected to `remote_port`."""
    inodes: set[str] = set()
    for pid in pids:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError, PermissionError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if link.startswith("socket:["):
                        inodes.add(link[8:-1])
    ports = []
    for table_file in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(FileNotFoundError):
            for line in Path(table_file).read_text().splitlines()[1:]:
                cols = line.split()
                if cols[9] in inodes and int(cols[2].rsplit(":", 1)[1], 16) == remote_port:
                    ports.append(int(cols[1].rsplit(":", 1)[1], 16))
    return ports


class BoxCpu:
    """CPU seconds of every process an action goes through, by pid: the game node (with its
    workers), the ledger process, the Postgres backends serving their connections (Postgres
    runs a process per connection: found by the client ports the node's sockets use), and the
    Redis server. Also every process of the Postgres server (its postmaster, background writers
    and all backends, other clients' included: an upper bound on a shared server). Redis is one
    process serving every client, so on a shared Redis its figure includes others' work too."""

    def __init__(self, game_pid: int, ledger_pid: int | None, db: str, redis: str) -> None:
        from urllib.parse import urlparse

        self._game, self._ledger, self._db = game_pid, ledger_pid, db
        self._pg_port = urlparse(db).port or 5432
        self._postmaster = self._redis = None
        with contextlib.suppress(Exception):  # a server on another machine: its part is left out
            import psycopg

            with psycopg.connect(db, autocommit=True) as conn:
                row = conn.execute("SELECT pg_backend_pid()").fetchone()
            ppid = int(_stat(int(row[0]))[1]) if row else 0
            self._postmaster = ppid if _stat(ppid) else None
        with contextlib.suppress(Exception):
            import redis as redis_lib

            client = redis_lib.Redis.from_url(redis)
            pid = int(client.info("server")["process_id"])
            client.close()
            self._redis = pid if _stat(pid) else None
        self._start: dict[str, Any] = {}

    def _backends(self) -> dict[int, float]:
        """Our Postgres backends and their CPU so far."""
        import psycopg

        ours = _tree(self._game) + ([self._ledger] if self._ledger else [])
        ports = _ports_to(ours, self._pg_port)
        if not ports:
            return {}
        with psycopg.connect(self._db, autocommit=True) as conn:
            rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE client_port = ANY(%s)", (ports,)).fetchall()
        return {pid: _own_cpu(pid) for (pid,) in rows}

    def _sample(self) -> dict[str, Any]:
        pm = self._postmaster
        return {"game": sum(_own_cpu(p) for p in _tree(self._game)),
                "ledger": _own_cpu(self._ledger) if self._ledger else 0.0,
                "backends": self._backends() if pm else {},
                "postgres_all": (_own_cpu(pm, reaped=True) + sum(_own_cpu(p) for p in _tree(pm)[1:])) if pm else 0.0,
                "redis": _own_cpu(self._redis) if self._redis else 0.0}

    def start(self) -> None:
        self._start = self._sample()

    def stop(self) -> dict[str, float]:
        """CPU seconds of each part since start(); `postgres`/`redis` are -1 when not measured
        (the server is not on this machine)."""
        end, begin = self._sample(), self._start
        # A backend seen only at the end counts whole: its connection opened in the window.
        postgres = sum(cpu - begin["backends"].get(pid, 0.0) for pid, cpu in end["backends"].items())
        parts = {k: end[k] - begin[k] for k in ("game", "ledger", "postgres_all", "redis")}
        parts["postgres"] = postgres
        if self._postmaster is None:
            parts["postgres"] = parts["postgres_all"] = -1.0
        if self._redis is None:
            parts["redis"] = -1.0
        parts["box"] = sum(parts[k] for k in ("game", "ledger", "postgres", "redis") if parts[k] > 0)
        return parts


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def _wait_serving(address: str, timeout: float = 30) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async with grpc.aio.insecure_channel(address) as chan:
        stub = health_pb2_grpc.HealthStub(chan)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if (await stub.Check(health_pb2.HealthCheckRequest(), timeout=1)).status == 1:
                    return
            except grpc.aio.AioRpcError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{address} did not start")
            await asyncio.sleep(0.2)


# --- the echo ceiling ------------------------------------------------------------------------

# On the game server's own stack: `qipai serve` runs its loop on uvloop when it is installed,
# so the echo server does too (the ratio compares an action with a bare call on the same loop).
ECHO_SERVER = """
import asyncio, grpc, sys
try:
    import uvloop
    uvloop.install()
except ImportError:
    pass
async def main():
    server = grpc.aio.server()
    async def call(request, context):
        return request
    handler = grpc.method_handlers_generic_handler("bench.Echo", {
        "Call": grpc.unary_unary_rpc_method_handler(call)})
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(sys.argv[1])
    await server.start()
    await server.wait_for_termination()
asyncio.run(main())
"""


async def echo_run(concurrency: int, seconds: float,
                   per_connection: int = TABLES_PER_CONNECTION) -> dict[str, Any]:
    """Echo calls at `concurrency` for `seconds`, a connection per `per_connection` callers as
    the game's bots have per tables: calls/s, latency, and the echo server's CPU."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", ECHO_SERVER, f"127.0.0.1:{port}"])
    connections = -(-concurrency // per_connection)
    errors: collections.Counter[str] = collections.Counter()
    try:
        async with contextlib.AsyncExitStack() as stack:
            calls = []
            for _ in range(connections):
                chan = await stack.enter_async_context(channel(f"127.0.0.1:{port}", own_connection=True))
                calls.append(chan.unary_unary(ECHO))
            for call in calls:
                for _ in range(50):
                    try:
                        await call(b"x" * 64, timeout=1)
                        break
                    except grpc.aio.AioRpcError:
                        await asyncio.sleep(0.1)
            latencies: list[float] = []
            stop = time.monotonic() + seconds

            async def worker(n: int) -> None:
                payload, call = b"x" * 64, calls[n // per_connection]
                while time.monotonic() < stop:
                    t = time.monotonic()
                    try:
                        await call(payload)
                    except grpc.aio.AioRpcError as exc:  # counted and reported, never hidden
                        errors[f"echo {exc.code().name}"] += 1
                        continue
                    latencies.append(time.monotonic() - t)

            cpu0, started = _cpu_seconds(proc.pid), time.monotonic()
            await asyncio.gather(*(worker(n) for n in range(concurrency)))
            elapsed, cpu = time.monotonic() - started, _cpu_seconds(proc.pid) - cpu0
        return {"rps": len(latencies) / elapsed, "p50_ms": _pct(latencies, 0.5), "p99_ms": _pct(latencies, 0.99),
                "server_cpu": cpu / elapsed, "cpu_ms_per_op": 1000 * cpu / max(1, len(latencies)),
                "connections": connections, "errors": errors}
    finally:
        proc.kill()
        proc.wait()


# --- the game service ------------------------------------------------------------------------


def _error_kind(exc: BaseException) -> str:
    if isinstance(exc, grpc.aio.AioRpcError):
        return f"{exc.code().name}: {(exc.details() or '')[:80]}"
    return type(exc).__name__


async def tables_run(node: Node, tables: int, seconds: float, pace_s: float,
                     label: str, rulesets: list[str], profile: str | None = None,
                     per_connection: int = TABLES_PER_CONNECTION) -> dict[str, Any]:
    """Bots at `tables` tables (of `rulesets` in turn) for `seconds` after a warm-up (every
    table making its first moves at once is a start-up burst, not the steady state); Act
    latencies, the server's CPU and every part's (BoxCpu) over the measured window."""
    address, pid = node.address, node.pid
    box = BoxCpu(node.pid, node.ledger_pid, node.db, node.redis)
    latencies: list[float] = []
    measuring = False
    errors: list[str] = []
    # A connection per TABLES_PER_CONNECTION tables: players come from many devices, and one
    # HTTP/2 connection carrying every stream of thousands would be a bottleneck of its own.
    channels = [channel(address, own_connection=True) for _ in range(-(-tables // per_connection))]
    async with contextlib.AsyncExitStack() as stack:
        for chan in channels:
            await stack.enter_async_context(chan)
        print(f"{label}: seating {tables} tables ...", file=sys.stderr, flush=True)
        seating = asyncio.Semaphore(SEATING_AT_ONCE)

        async def seat_table(n: int) -> tuple[str, list[Any]]:
            async with seating:
                chan = channels[n // per_connection]
                ruleset = rulesets[n % len(rulesets)]
                seats = 4 if ruleset == "koudian" else 5
                players = list(await asyncio.gather(
                    *(_BenchPlayer.guest(chan, f"b{n}-{i}") for i in range(seats))))
                table_id = (await players[0].create_table(ruleset, FAST[ruleset])).table_id
                await seat_players(list(players), table_id)
                if n % 100 == 99:
                    print(f"  {n + 1}/{tables} tables seated", file=sys.stderr, flush=True)
                return table_id, players

        games = await asyncio.gather(*(seat_table(n) for n in range(tables)))
        stop = asyncio.Event()

        def ack(_: str, __: object, seconds_taken: float) -> None:
            if measuring:
                latencies.append(seconds_taken)

        async def seat(table_id: str, p: Player, i: int) -> None:
            await asyncio.sleep(random.uniform(0, WARM_UP_S / 2))  # players arrive over time
            try:
                await play_seat(p, table_id, "greedy", seed=i, hands=10**6, on_ack=ack,
                                pace_s=pace_s, stop=stop)
            except Exception as exc:  # counted and reported, never hidden
                if not stop.is_set():  # calls cut off by the bench's own shutdown are not errors
                    errors.append(_error_kind(exc))

        steady_gc()  # the load generator's own collection pauses would count as latency
        print(f"{label}: warming up (until every seat's stream has caught up), then playing for {seconds:.0f} s ...",
              file=sys.stderr, flush=True)
        tasks = [asyncio.create_task(seat(t, p, i)) for t, players in games for i, p in enumerate(players)]
        warm_start = time.monotonic()
        await asyncio.sleep(WARM_UP_S)
        seated = [p for _, players in games for p in players]
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(WARM_UP_MAX_S - WARM_UP_S):
                for p in seated:
                    await p.caught_up.wait()
        warm_up_s = time.monotonic() - warm_start
        print(f"{label}: warmed up in {warm_up_s:.1f} s ({sum(p.caught_up.is_set() for p in seated)}"
              f"/{len(seated)} streams caught up)", file=sys.stderr, flush=True)
        measuring = True
        MESSAGES.clear()
        box.start()
        cpu0, t0, bots0, machine0 = _cpu_seconds(pid), time.monotonic(), time.process_time(), _machine_ticks()
        if profile:  # the server's collapsed stacks while it plays (py-spy: `make bench` installs it)
            beside = Path(sys.executable).with_name("py-spy")
            spy = await asyncio.create_subprocess_exec(
                str(beside) if beside.exists() else "py-spy", "record", "--pid", str(pid), "--format", "raw", "--rate", "200",
                "--duration", str(max(1, int(seconds) - 1)), "-o", profile,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await asyncio.sleep(seconds)
        if profile:
            await spy.wait()
        n_actions, elapsed = len(latencies), time.monotonic() - t0
        cpu = (_cpu_seconds(pid) - cpu0) / elapsed
        bots_cpu = (time.process_time() - bots0) / elapsed
        machine = _machine_ticks()
        parts = box.stop()
        busy = (machine[0] - machine0[0]) / max(1, machine[1] - machine0[1])
        messages = dict(MESSAGES)
        stop.set()
        await asyncio.wait(tasks, timeout=10)
        for t in tasks:
            t.cancel()
    window = latencies[:n_actions]
    kinds = collections.Counter(errors)
    for kind, count in kinds.most_common(5):
        print(f"  bot error ({count}x): {kind[:200]}", file=sys.stderr)
    acked = max(n_actions, 1)
    return {"actions_per_s": n_actions / elapsed, "p50_ms": _pct(window, 0.5),
            "p99_ms": _pct(window, 0.99), "server_cpu": cpu, "bots_cpu": bots_cpu, "errors": kinds,
            "part_ms_per_op": {k: (1000 * v / acked if v >= 0 else -1.0) for k, v in parts.items()},
            "mean_ms": statistics.fmean(window) * 1000 if window else 0.0,
            "cpu_ms_per_op": 1000 * cpu / max(n_actions / elapsed, 1e-9), "warm_up_s": warm_up_s,
            "messages": {k: v / max(1, n_actions) for k, v in messages.items()},
            "machine_busy": busy, "bots_cpu_ms_per_op": 1000 * bots_cpu / max(n_actions / elapsed, 1e-9),
            "table_ids": [table_id for table_id, _ in games]}


SETTLEMENT_POLL_S = 0.02
SETTLEMENT_DRAIN_S = 15.0  # after play stops, how long the ledger may take to settle the last hands
HANDS_TO_SETTLE = """
SELECT substr(stream_id, length('table-') + 1), data->>'hand', extract(epoch FROM recorded_at)
FROM events WHERE type = 'table.HandSettled'
 AND EXISTS (SELECT 1 FROM jsonb_array_elements(data->'payments') p WHERE (p->>'chips')::bigint > 0)
"""


class SettlementWatch:
    """Notes when each hand's settlement transfers become visible (so committed) in the ledger,
    polling from a thread with its own connection: the bots' event loop does not delay it."""

    def __init__(self, conninfo: str, schema: str) -> None:
        self._conninfo, self._schema = conninfo, schema
        self.seen: dict[tuple[str, str], float] = {}  # (table, hand) -> first time seen committed
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="settlement watch", daemon=True)
        self._thread.start()

    def _connect(self) -> Any:
        import psycopg

        conn = psycopg.connect(self._conninfo, autocommit=True)
        conn.execute(f'SET search_path TO "{self._schema}"')
        return conn

    def _poll(self) -> None:
        import psycopg

        after = 0
        with self._connect() as conn:
            while not self._stop.wait(SETTLEMENT_POLL_S):
                try:
                    # One consumer posts settlements, batch after batch: their sequences commit in order.
                    rows = conn.execute("SELECT sequence, id FROM ledger_transfers WHERE kind = 'settle' "
                                        "AND sequence > %s ORDER BY sequence", (after,)).fetchall()
                except psycopg.errors.UndefinedTable:  # the ledger's migrations have not run yet
                    continue
                now = time.time()
                for sequence, transfer_id in rows:
                    _, table_key, hand, *_ = transfer_id.split("/")
                    self.seen.setdefault((table_key, hand), now)
                    after = sequence

    def _hands(self) -> list[tuple[str, str, float]]:
        with self._connect() as conn:
            return [(t, h, float(at)) for t, h, at in conn.execute(HANDS_TO_SETTLE).fetchall()]

    async def finish(self) -> dict[str, float]:
        """Once play has stopped: wait for the last hands to settle, then their lags."""
        deadline = time.monotonic() + SETTLEMENT_DRAIN_S
        hands = await asyncio.to_thread(self._hands)
        while any((t, h) not in self.seen for t, h, _ in hands) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        self._stop.set()
        await asyncio.to_thread(self._thread.join)
        lags = [self.seen[(t, h)] - at for t, h, at in hands if (t, h) in self.seen]
        return {"p50": round(_pct(lags, 0.5), 1), "p99": round(_pct(lags, 0.99), 1), "hands": len(lags),
                "unsettled": len(hands) - len(lags)}


@dataclasses.dataclass(frozen=True)
class Node:
    """A game node under test: its address, its pid (a supervisor's with workers), its ledger
    process's pid (None without one), the live state, and the database and Redis it uses."""

    address: str
    pid: int
    ledger_pid: int | None
    live: Any
    db: str
    redis: str


@contextlib.asynccontextmanager
async def game_node(name: str, workers: int = 1,
                    lag: dict[str, float] | None = None) -> AsyncIterator[Node]:
    """A fresh game node (its own schema and key prefix, removed afterwards), or `workers` of
    them under one supervisor.
    Each run gets its own, so that one run's abandoned tables (timing out, then played by the
    server) do not load the next. With `lag`, a ledger process settles the hands and `lag` gets
    the settlement lag figures (SettlementWatch.finish) when the node stops."""
    import psycopg

    from services.live import open_live_state

    db = os.environ.get("QIPAI_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
    redis = os.environ.get("QIPAI_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
    schema = f"bench_{name}_{uuid.uuid4().hex[:8]}"
    port = _free_port()
    env = {**os.environ, "QIPAI_GRPC_ADDR": f"127.0.0.1:{port}",
           "QIPAI_DATABASE_URL": f"{db}{'&' if '?' in db else '?'}schema={schema}",
           "QIPAI_REDIS_URL": redis, "QIPAI_LIVE_NAMESPACE": schema, "QIPAI_LOG_LEVEL": "warning",
           "QIPAI_GUEST_LOGINS_PER_MINUTE": "1000000"}  # every bot logs in from this one address
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--service", "game",
                               "--workers", str(workers)], env=env, cwd=ROOT)
    ledger = watch = None
    live = open_live_state(redis, namespace=schema)  # a single Redis or a cluster alike
    try:
        await _wait_serving(f"127.0.0.1:{port}")
        if lag is not None:  # started once the game node has created the schema
            ledger_port = _free_port()
            ledger = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--service", "ledger"],
                                      env={**env, "QIPAI_GRPC_ADDR": f"127.0.0.1:{ledger_port}"}, cwd=ROOT)
            await _wait_serving(f"127.0.0.1:{ledger_port}")
            watch = SettlementWatch(db, schema)
        while len(await live.live_nodes()) < workers:  # the first to answer made it healthy
            await asyncio.sleep(0.1)
        yield Node(f"127.0.0.1:{port}", server.pid, ledger.pid if ledger is not None else None, live, db, redis)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(30)
        if watch is not None and lag is not None:
            lag.update(await watch.finish())
        if ledger is not None:
            ledger.send_signal(signal.SIGINT)
            ledger.wait(30)
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await live.flush_namespace()
        await live.close()


async def _tables_per_node(live: Any, table_ids: list[str]) -> list[int]:
    """How many of the tables each node holds, most first."""
    holders = [await live.lease_holder(t) for t in table_ids]
    counts = collections.Counter(h.node_id for h in holders if h is not None)
    return sorted(counts.values(), reverse=True)


# The parts of BoxCpu, as figure names (`<part>_cpu_ms_per_action`) and table columns.
PARTS = (("game", "game"), ("ledger", "ledger"), ("postgres", "Postgres"), ("redis", "Redis"))


async def main_async(args: argparse.Namespace) -> int:
    lag: dict[str, float] = {}
    async with game_node("fast", lag=lag) as node:
        fast = await tables_run(node, args.tables, args.seconds, 0.0, "full speed", args.rulesets, args.profile)
    echo = await echo_run(args.tables, args.seconds)
    async with game_node("paced") as node:
        paced = await tables_run(node, args.paced_tables, args.seconds, 1.0, "paced",
                                 args.rulesets, _paced_profile(args.profile))
    spread: list[int] = []
    runs: list[tuple[str, dict[str, Any]]] = [("", fast), ("paced_", paced)]
    if args.workers > 1:
        async with game_node("workers", args.workers) as node:
            # Eight connections per worker or more, so the kernel has something to spread.
            per_connection = max(1, min(TABLES_PER_CONNECTION, args.tables // (8 * args.workers)))
            many = await tables_run(node, args.tables, args.seconds, 0.0,
                                    f"full speed, {args.workers} workers", args.rulesets,
                                    per_connection=per_connection)
            spread = await _tables_per_node(node.live, many["table_ids"])
        runs.append(("workers_", many))
    errors: collections.Counter[str] = collections.Counter(echo["errors"])
    for _, run in runs:
        errors.update(run["errors"])
    if lag["unsettled"]:
        errors["hand not settled by the ledger"] += int(lag["unsettled"])
    if not lag["hands"]:  # nothing to measure: no 0 that reads like a figure
        lag["p50"] = lag["p99"] = -1.0
    echo_ms = echo["cpu_ms_per_op"]

    figures: dict[str, Any] = {
        "tables": args.tables, "actions_per_s": round(fast["actions_per_s"], 1),
        "p50_ms": round(fast["p50_ms"], 2), "p99_ms": round(fast["p99_ms"], 2),
        "server_cpu_full_speed": round(fast["server_cpu"], 2), "bots_cpu_full_speed": round(fast["bots_cpu"], 2),
        "echo_rps": round(echo["rps"], 1), "ratio_vs_echo": round(fast["actions_per_s"] / echo["rps"], 3),
        "echo_connections": echo["connections"], "connections": -(-args.tables // TABLES_PER_CONNECTION),
        "paced_tables": args.paced_tables, "paced_actions_per_s": round(paced["actions_per_s"], 1),
        "paced_p99_ms": round(paced["p99_ms"], 2), "paced_server_cpu": round(paced["server_cpu"], 2),
        "paced_bots_cpu": round(paced["bots_cpu"], 2),
        "warm_up_s": round(fast["warm_up_s"], 1), "paced_warm_up_s": round(paced["warm_up_s"], 1),
        "server_cpu_ms_per_action": round(fast["cpu_ms_per_op"], 3),
        "paced_server_cpu_ms_per_action": round(paced["cpu_ms_per_op"], 3),
        "echo_cpu_ms_per_call": round(echo_ms, 3),
        "cpu_per_action_vs_echo_call": round(fast["cpu_ms_per_op"] / echo_ms, 2),
        "paced_cpu_per_action_vs_echo_call": round(paced["cpu_ms_per_op"] / echo_ms, 2),
        "settlement_lag_p50_ms": lag["p50"], "settlement_lag_p99_ms": lag["p99"],
        "settled_hands": lag["hands"], "settlement_unsettled_hands": lag["unsettled"],
        "cores": os.cpu_count() or 0,
    }
    for prefix, run in runs:
        part = run["part_ms_per_op"]
        figures |= {f"{prefix}{name}_cpu_ms_per_action": round(part[name], 3) for name, _ in PARTS}
        figures |= {f"{prefix}postgres_all_cpu_ms_per_action": round(part["postgres_all"], 3),
                    f"{prefix}box_cpu_ms_per_action": round(part["box"], 3),
                    f"{prefix}box_cpu_per_action_vs_echo_call": round(part["box"] / echo_ms, 2),
                    f"{prefix}errors": sum(run["errors"].values())}
    for prefix, run in runs[:2]:
        figures |= {f"{prefix}{name}_per_action": round(run["messages"].get(key, 0.0), 2)
                    for name, key in MESSAGE_FIGURES}
        figures |= {f"{prefix}machine_busy": round(run["machine_busy"], 3),
                    f"{prefix}bots_cpu_ms_per_action": round(run["bots_cpu_ms_per_op"], 3)}
    figures["echo_errors"] = sum(echo["errors"].values())

    def row(label: str, tables: int, run: dict[str, Any]) -> list[Any]:
        part = run["part_ms_per_op"]
        return [label, tables, run["actions_per_s"], run["p50_ms"], run["p99_ms"], run["server_cpu"],
                run["cpu_ms_per_op"], *(part[name] if part[name] >= 0 else "n/a" for name, _ in PARTS[1:]),
                part["box"], sum(run["errors"].values())]

    rows = [
        row("game, full speed", args.tables, fast),
        ["echo ceiling", args.tables, echo["rps"], echo["p50_ms"], echo["p99_ms"], echo["server_cpu"],
         echo_ms, "-", "-", "-", echo_ms, sum(echo["errors"].values())],
        row("game, paced 1/s", args.paced_tables, paced),
        ["settlement lag, full speed", args.tables, "-", *([lag["p50"], lag["p99"]] if lag["hands"] else ["n/a"] * 2),
         "-", "-", "-", "-", "-", "-",
         int(lag["unsettled"])],
    ]
    if args.workers > 1:
        figures |= {
            "workers": args.workers, "workers_actions_per_s": round(many["actions_per_s"], 1),
            "workers_speedup": round(many["actions_per_s"] / fast["actions_per_s"], 2),
            "workers_p99_ms": round(many["p99_ms"], 2), "workers_server_cpu": round(many["server_cpu"], 2),
            "workers_server_cpu_ms_per_action": round(many["cpu_ms_per_op"], 3),
            "workers_bots_cpu": round(many["bots_cpu"], 2),
            "workers_machine_busy": round(many["machine_busy"], 3),
            "workers_bots_cpu_ms_per_action": round(many["bots_cpu_ms_per_op"], 3),
            "workers_tables_max": spread[0] if spread else 0,
            "workers_tables_min": spread[-1] if len(spread) == args.workers else 0,
        }
        rows.append(row(f"game, full speed, {args.workers} workers", args.tables, many))
    figures |= {"errors": sum(errors.values()),
                "error_kinds": "; ".join(f"{k} {n}" for k, n in errors.most_common())}
    print(table(["run", "tables", "calls/s", "p50 ms", "p99 ms", "server CPU (cores)", "server CPU ms/call",
                 "ledger ms", "Postgres ms", "Redis ms", "box CPU ms/call", "errors"], rows))
    print("box CPU: the game (or echo) server + the ledger process (full speed only) + the Postgres backends "
          "serving their connections + the Redis server, per call; the Redis server is shared, so its part "
          "includes other clients' work")
    if args.workers > 1:
        print(f"{args.workers} workers: {figures['workers_speedup']}x the actions/s of one; tables per "
              f"worker {'/'.join(map(str, spread))}")
    print(f"echo over {echo['connections']} connections, the game's bots over "
          f"{figures['connections']} ({TABLES_PER_CONNECTION} tables each)")
    print(f"machine busy (all {figures['cores']} cores, every process): {figures['machine_busy']:.0%} at "
          f"full speed, {figures['paced_machine_busy']:.0%} paced"
          + (f", {figures['workers_machine_busy']:.0%} with {args.workers} workers" if args.workers > 1 else "")
          + f"; bots' CPU per action {figures['bots_cpu_ms_per_action']} ms at full speed")
    print(f"every Postgres process (others' clients included: an upper bound), ms per action: "
          f"{figures['postgres_all_cpu_ms_per_action']} full speed, {figures['paced_postgres_all_cpu_ms_per_action']}"
          " paced")
    for prefix, label in (("", "full speed"), ("paced_", "paced")):
        print(f"messages per action, {label}: " + ", ".join(
            f"{name} {figures[prefix + name + '_per_action']}" for name, _ in MESSAGE_FIGURES))
    print(f"ratio_vs_echo {figures['ratio_vs_echo']}; an action costs "
          f"{figures['cpu_per_action_vs_echo_call']} echo calls' CPU in the game process at full speed "
          f"({figures['paced_cpu_per_action_vs_echo_call']} paced), {figures['box_cpu_per_action_vs_echo_call']} "
          f"on the whole box ({figures['paced_box_cpu_per_action_vs_echo_call']} paced)")
    if lag["hands"]:
        print(f"settlement lag at full speed (a ledger process settling): p50 {lag['p50']} ms, "
              f"p99 {lag['p99']} ms over {lag['hands']} hands (goal p99 <= 500 ms); "
              f"{lag['unsettled']} hands unsettled at the end")
    else:
        print("settlement lag: not measured, no hand with chips to move ended in the run (longer --seconds or "
              "fewer --tables); written as -1")
    if errors:
        print(f"ERRORS: {figures['errors']:,} ({figures['error_kinds']}): the figures above are not valid")
    else:
        print("errors: 0")
    print(f"wrote {write('service', figures)}")
    return 1 if errors else 0


def _paced_profile(profile: str | None) -> str | None:
    """Where the paced run's profile goes: beside the full-speed one, `.paced` before its suffix."""
    if profile is None:
        return None
    path = Path(profile)
    return str(path.with_name(f"{path.stem}.paced{path.suffix}"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--paced-tables", type=int, default=2000)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--rulesets", type=lambda v: v.split(","), default=["koudian", "daqi"],
                   help="the games the tables play, in turn (default: koudian,daqi)")
    p.add_argument("--quick", action="store_true", help="20 and 100 tables for 5 s")
    p.add_argument("--workers", type=int, default=2, metavar="N",
                   help="also run full speed against N game workers (qipai serve --workers N; "
                        "default 2, so `make bench` shows them; 1 skips that run)")
    p.add_argument("--profile", metavar="FILE",
                   help="record the server with py-spy (collapsed stacks, for flame graphs): at full "
                        "speed into FILE, paced into FILE with .paced before its suffix")
    args = p.parse_args(argv)
    unknown = sorted(set(args.rulesets) - set(FAST))
    if unknown:
        p.error(f"unknown ruleset(s) {', '.join(unknown)}; choose from {', '.join(FAST)}")
    if args.quick:
        args.tables, args.paced_tables, args.seconds = 20, 100, 5.0
    if args.profile and not (Path(sys.executable).with_name("py-spy").exists() or shutil.which("py-spy")):
        p.error("--profile needs py-spy: `make bench` installs it (or: pip install py-spy)")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
