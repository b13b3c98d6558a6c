"""`make demo`: start the services, let bots play a few tables of every ruleset over gRPC, print
the results and the commands that replay and verify each table."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.client import Player, channel, play_seat, seat_players
from engine import rulesets
from protocol import tokens as auth
from qipai.v1 import admin_pb2

# Demo tables deal at once (no pause between daqi cards) so the demo takes seconds, not minutes.
DEMO_OPTIONS = {"daqi": {"deal_interval_ms": 0, "bid_window_ms": 0}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(address: str, server: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as chan:
        stub = health_pb2_grpc.HealthStub(chan)
        while time.monotonic() < deadline and server.poll() is None:
            try:
                if stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status == 1:
                    return
            except grpc.RpcError:
                time.sleep(0.2)
    raise TimeoutError(f"the demo's server did not start at {address} (is something else "
                       "listening there? QIPAI_GRPC_ADDR chooses the address)")


async def play_tables(address: str, per_ruleset: int, secret: str) -> list[dict[str, Any]]:
    """Bots play one hand at `per_ruleset` tables of each ruleset; returns one summary per table."""
    results = []
    async with channel(address) as chan:
        games = []
        for name in rulesets.available():
            rs = rulesets.get(name)
            seats = rs.seats(rs.options({}))
            for _ in range(per_ruleset):
                players = [await Player.guest(chan, f"bot{i}") for i in range(seats)]
                table_id = (await players[0].create_table(name, DEMO_OPTIONS.get(name, {}))).table_id
                await seat_players(players, table_id)
                games.append((name, table_id, players))
        print(f"demo: bots are playing {len(games)} tables ...", file=sys.stderr, flush=True)
        await asyncio.gather(*(play_seat(p, table_id, "greedy", seed=i)
                               for _, table_id, players in games for i, p in enumerate(players)))
        admin = Player(chan, auth.issue(secret, "operator", auth.ADMIN)[0], "operator")
        for name, table_id, players in games:
            view = await players[0].view(table_id)
            check = await admin.admin.Verify(admin_pb2.VerifyRequest(table_id=table_id), metadata=admin.metadata)
            scores = list(getattr(view.view, view.view.WhichOneof("ruleset") or "").scores)
            results.append({"ruleset": name, "table_id": table_id, "events": view.version,
                            "scores": scores, "verified": check.ok})
    return results


def main(args: Any) -> int:
    """Run the demo; the server keeps running (for replays) until Ctrl-C unless --exit."""
    # QIPAI_GRPC_ADDR as for every other command; unset, a free port (`make run` may hold 50051).
    address = os.environ.get("QIPAI_GRPC_ADDR") or f"127.0.0.1:{_free_port()}"
    env = dict(os.environ)
    env.setdefault("QIPAI_DATABASE_URL", "sqlite:///var/demo.sqlite3")
    env["QIPAI_GRPC_ADDR"] = address
    env.setdefault("QIPAI_LOG_LEVEL", "warning")
    secret = env.setdefault("QIPAI_TOKEN_SECRET", "dev-insecure-secret")
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve"], env=env)
    try:
        try:
            _wait_healthy(address, server)
        except TimeoutError as exc:
            print(f"qipai demo: {exc}", file=sys.stderr)
            return 1
        results = asyncio.run(play_tables(address, args.tables, secret))
        print(f"\n{'ruleset':<9} {'table':<24} {'events':>6}  {'verified':<8} scores")
        for r in results:
            print(f"{r['ruleset']:<9} {r['table_id']:<24} {r['events']:>6}  {'yes' if r['verified'] else 'NO':<8} "
                  f"{' '.join(f'{s:+d}' for s in r['scores'])}")
        print("\nReplay or verify a table (while this demo's server runs):")
        for r in results[:: max(1, args.tables)]:
            print(f"  QIPAI_GRPC_ADDR={address} .venv/bin/qipai replay {r['table_id']}")
            print(f"  QIPAI_GRPC_ADDR={address} .venv/bin/qipai verify {r['table_id']}")
        ok = all(r["verified"] for r in results)
        if not args.exit:
            print("\nThe server keeps running for those commands; Ctrl-C stops it.", flush=True)
            server.wait()
        return 0 if ok else 1
    except KeyboardInterrupt:
        return 0
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGINT)
            server.wait(15)
