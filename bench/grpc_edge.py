"""The gRPC edge's own CPU: what our wrappers, interceptor and forwarder add to a bare grpc.aio call.

A stand-in Game server (subprocess, uvloop as `qipai serve`) answers Act at once and, per Act,
sends one small TableUpdate on each Watch stream of that table (as the feed does). Variants:

- `bare`: plain grpc.aio handlers, no interceptor (the floor on this machine);
- `edge`: the real edge around the same handlers: AuthInterceptor, `status.unary`/`streaming`,
  `_Limited._caller` (identity, log context, rate limit), `Forwarder.routed`;
- `old`: `edge` with the edge modules as of git revision `--old` (default 4f3d563).

`BENCH_GENERIC_ONLY=1` in a server's environment (`--env`) leaves its methods unregistered
(found by the generic handlers alone): grpc.aio's accept loop then waits on one future per call
rather than one per registered method.

Runs the variants side by side (one server each, the same load on each, one CPU window),
`--reps` times, and prints the server's CPU (utime+stime from /proc)
per Act call alone (`unary`: no streams) and per action with `--watchers` streams per table
(`mixed`); per stream message = (mixed - unary) / watchers.

Calls and streams that fail (other than cut off by the bench's own shutdown), and a run whose
streams did not bring `--watchers` messages per Act, are counted (`errors`, `error_kinds`): a run
with any says so and exits 1.

    .venv/bin/python bench/grpc_edge.py --reps 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import _report  # noqa: E402

SECRET = "bench-secret-bench-secret-bench-secret"
ERRORS = _report.Errors()
EDGE_MODULES = ("services/status.py", "services/auth.py", "services/ratelimit.py",
                "services/game/forwarding.py")


def _load_old(rev: str) -> None:
    """Put the edge modules of `rev` in place of the working tree's (before anyone imports them)."""
    for path in EDGE_MODULES:
        name = path.removesuffix(".py").replace("/", ".")
        source = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout
        module = types.ModuleType(name)
        module.__file__ = str(ROOT / path)
        sys.modules[name] = module
        exec(compile(source, f"{rev}:{path}", "exec"), module.__dict__)


def serve(variant: str, port: int, options: list[tuple[str, Any]], old: str) -> None:
    import uvloop

    uvloop.install()
    if variant == "old":
        _load_old(old)
    import grpc

    from qipai.v1 import game_pb2, game_pb2_grpc

    update = game_pb2.TableUpdate(version=7, events=[
        game_pb2.TableEvent(version=7, type="mahjong.TileDiscarded",
                            data_json='{"seat": 2, "tile": "5m", "riichi": false}')])
    queues: dict[str, list[asyncio.Queue[Any]]] = {}

    def push(table_id: str) -> None:
        for q in queues.get(table_id, ()):
            q.put_nowait(update)

    async def feed(table_id: str) -> Any:
        q: asyncio.Queue[Any] = asyncio.Queue()
        queues.setdefault(table_id, []).append(q)
        try:
            while True:
                yield await q.get()
        finally:
            queues[table_id].remove(q)

    interceptors: list[Any] = []
    if variant in ("bare", "bareauth"):
        class Servicer(game_pb2_grpc.GameServicer):
            async def Act(self, request: Any, context: Any) -> Any:
                push(request.table_id)
                return game_pb2.TableResponse(table_id=request.table_id, version=7, seat=1)

            async def Watch(self, request: Any, context: Any) -> Any:
                async for item in feed(request.table_id):
                    yield item
        servicer: Any = Servicer()
        if variant == "bareauth":  # the floor with the auth interceptor alone
            from services.auth import AuthInterceptor

            interceptors = [AuthInterceptor(SECRET)]
    else:
        import structlog

        from services.auth import AuthInterceptor
        from services.game.servicer import _Limited
        from services.ratelimit import RateLimiter
        from services.status import streaming, unary

        class Leases:
            draining, address = False, "127.0.0.1:1"

        class Tables:
            node_id, leases = "bench", Leases()

        class Edge(_Limited, game_pb2_grpc.GameServicer):  # type: ignore[misc]
            @unary
            async def Act(self, request: Any, context: Any) -> Any:
                await self._caller()

                async def local() -> Any:
                    structlog.contextvars.bind_contextvars(seat=1)
                    push(request.table_id)
                    return game_pb2.TableResponse(table_id=request.table_id, version=7, seat=1)

                return await self.forwarder.routed("Act", request, context, local)

            @streaming
            async def Watch(self, request: Any, context: Any) -> Any:
                await self._caller()
                structlog.contextvars.bind_contextvars(seat=1)
                async for item in feed(request.table_id):
                    yield item
        servicer = Edge(Tables(), RateLimiter(1e9, 1e9))
        interceptors = [AuthInterceptor(SECRET)]

    async def main() -> None:
        from services.server import steady_gc

        steady_gc()  # as `qipai serve`
        server = grpc.aio.server(interceptors=interceptors, options=options)
        if os.environ.get("BENCH_GENERIC_ONLY"):  # methods found by the generic handlers alone
            server.add_registered_method_handlers = lambda *args: None  # type: ignore[method-assign]
        game_pb2_grpc.add_GameServicer_to_server(servicer, server)
        server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        print("ready", flush=True)
        await server.wait_for_termination()

    asyncio.run(main())


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def drive(ports: list[int], tables: int, watchers: int, seconds: float,
                pids: list[int]) -> list[float]:
    """Per server: its CPU microseconds per Act over the same `seconds`, `tables` actors each
    acting at full speed against it. The servers run side by side under the same load, so the
    machine's other work weighs on each alike."""
    import grpc

    from protocol.tokens import issue
    from qipai.v1 import game_pb2, game_pb2_grpc

    channels = [[grpc.aio.insecure_channel(f"127.0.0.1:{port}",
                                           options=[("grpc.use_local_subchannel_pool", 1)])
                 for _ in range(4)] for port in ports]
    acts = [0] * len(ports)
    messages = [0] * len(ports)
    measuring = False
    stop = False
    streams: list[Any] = []

    async def watch(server: int, stub: Any, table_id: str, md: Any) -> None:
        call = stub.Watch(game_pb2.WatchRequest(table_id=table_id), metadata=md)
        streams.append(call)
        try:
            async for _ in call:
                if measuring:
                    messages[server] += 1
        except grpc.aio.AioRpcError as exc:
            if not stop:
                ERRORS.add(f"Watch {exc.code().name}")

    async def table(server: int, n: int) -> None:
        chans = channels[server]
        stub = game_pb2_grpc.GameStub(chans[n % len(chans)])
        table_id = f"t{n}"
        md = (("authorization", "Bearer " + issue(SECRET, f"p{n}")[0]),)
        for _ in range(watchers):
            asyncio.ensure_future(watch(server, stub, table_id, md))
        await asyncio.sleep(0.5)  # the streams reach the server (their first message is the first Act's)
        k = 0
        while not stop:
            k += 1
            await stub.Act(game_pb2.ActRequest(table_id=table_id, action_id=f"a{k}"), metadata=md)
            if measuring:
                acts[server] += 1

    tasks = [asyncio.ensure_future(table(server, n)) for n in range(tables) for server in range(len(ports))]
    await asyncio.sleep(1.5)
    measuring = True
    cpu0 = [_cpu_seconds(pid) for pid in pids]
    await asyncio.sleep(seconds)
    cpu = [_cpu_seconds(pid) - c for pid, c in zip(pids, cpu0, strict=True)]
    measuring = False
    stop = True
    for result in await asyncio.gather(*tasks, return_exceptions=True):
        if isinstance(result, grpc.aio.AioRpcError):
            ERRORS.add(f"Act {result.code().name}")
        elif isinstance(result, Exception):
            ERRORS.add(result)
    for call in streams:
        call.cancel()
    for chans in channels:
        for chan in chans:
            await chan.close()
    for server, count in enumerate(acts):
        if watchers and abs(messages[server] / max(1, count) - watchers) > 0.5:
            print(f"  {messages[server] / max(1, count):.2f} messages per Act, not {watchers}", file=sys.stderr)
            ERRORS.add("stream messages per Act off by more than 0.5")
    return [1e6 * c / max(1, n) for c, n in zip(cpu, acts, strict=True)]


def run(variants: list[str], options: list[tuple[str, Any]], args: argparse.Namespace,
        env: dict[str, str]) -> list[tuple[float, float]]:
    """(per Act alone, per action with streams) for each of `variants`, all at once; a variant
    ending in "+" gets `options` and `env`."""
    import socket

    ports, procs = [], []
    try:
        for variant in variants:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            tuned = variant.endswith("+")
            proc = subprocess.Popen(
                [sys.executable, __file__, "--serve", variant.rstrip("+"), "--port", str(port),
                 "--options", json.dumps(options if tuned else []), "--old", args.old],
                stdout=subprocess.PIPE, text=True, env={**os.environ, **(env if tuned else {})})
            ports.append(port)
            procs.append(proc)
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        pids = [proc.pid for proc in procs]
        unary = asyncio.run(drive(ports, args.tables, 0, args.seconds, pids))
        mixed = asyncio.run(drive(ports, args.tables, args.watchers, args.seconds, pids)) \
            if args.watchers else unary
        return list(zip(unary, mixed, strict=True))
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--serve")
    parser.add_argument("--port", type=int)
    parser.add_argument("--options", default="[]", help='server options, JSON: [["grpc.x", 0]]')
    parser.add_argument("--old", default="4f3d563")
    parser.add_argument("--variants", default="bare,old,edge",
                        help='bare, bareauth, old, edge; a trailing "+" gets --options and --env')
    parser.add_argument("--tables", type=int, default=30, help="per server")
    parser.add_argument("--watchers", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--env", default="", help="KEY=VALUE,... for the servers of variants ending in +")
    parser.add_argument("--quick", action="store_true", help="one rep of 2 s")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.seconds = 1, 2.0
    options = [tuple(o) for o in json.loads(args.options)]
    if args.serve:
        serve(args.serve, args.port, options, args.old)
        return 0
    env = dict(kv.split("=", 1) for kv in args.env.split(",") if kv)
    variants = args.variants.split(",")
    results: dict[str, list[tuple[float, float]]] = {v: [] for v in variants}
    for _ in range(args.reps):
        for name, figures in zip(variants, run(variants, options, args, env), strict=True):
            results[name].append(figures)
            print(f"{name}: unary {figures[0]:.1f} us/call, mixed {figures[1]:.1f} us/action", flush=True)
    rows, figures = [], {}
    for name, figs in results.items():
        u = sorted(f[0] for f in figs)[len(figs) // 2]
        m = sorted(f[1] for f in figs)[len(figs) // 2]
        per_message = (m - u) / max(1, args.watchers)
        rows.append([name, u, m, per_message])
        key = name.replace("+", "_tuned")
        figures.update({f"{key}_us_per_call": u, f"{key}_us_per_action": m, f"{key}_us_per_message": per_message})
    if "bare" in results and "edge" in results:
        figures["edge_vs_bare_per_action"] = figures["edge_us_per_action"] / max(1e-9, figures["bare_us_per_action"])
    print(f"server CPU, median of {args.reps} (an action: 1 Act + {args.watchers} stream messages)")
    print(_report.table(["variant", "us per Act call", "us per action", "us per message"], rows))
    figures |= ERRORS.figures()
    print(ERRORS.line())
    print(f"wrote {_report.write('grpc_edge', figures)}")
    return 1 if ERRORS else 0

if __name__ == "__main__":
    sys.exit(main())
