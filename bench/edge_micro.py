"""The Python part of the gRPC edge per call and per stream message, old against new, in one process.

Drives the edge as grpc.aio does, without sockets: the auth interceptor, then the `unary` (Act)
or `streaming` (Watch) wrapper around a handler doing what the servicer's do around the table
(`auth.current`, the rate limit, its log fields, `Forwarder.routed`), with a stand-in context.
A stream message costs one wake-up of the handler (as the feed's) and one write.

    .venv/bin/python bench/edge_micro.py [--old 4f3d563] [--calls 20000] [--reps 5]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import _report  # noqa: E402

SECRET = "bench-secret-bench-secret-bench-secret"


def _version(rev: str | None, path: str, name: str) -> types.ModuleType:
    """Module `path` as of git `rev` (None: the working tree), under a name of its own."""
    source = (ROOT / path).read_text() if rev is None else subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    module = types.ModuleType(name)
    module.__file__ = str(ROOT / path)
    sys.modules[name] = module
    exec(compile(source, f"{rev}:{path}", "exec"), module.__dict__)
    return module


class Context:
    """What the edge asks of grpc.aio's ServicerContext."""

    def __init__(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self.metadata = metadata
        self.written = 0

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self.metadata

    async def write(self, message: Any) -> None:
        self.written += 1


class Details:
    def __init__(self, method: str, metadata: tuple[tuple[str, str], ...]) -> None:
        self.method, self.invocation_metadata = method, metadata


def build(rev: str | None, tag: str) -> dict[str, Any]:
    import structlog

    from qipai.v1 import game_pb2
    from services.ratelimit import RateLimiter

    status = _version(rev, "services/status.py", f"status_{tag}")
    auth = _version(rev, "services/auth.py", f"auth_{tag}")
    forwarding = _version(rev, "services/game/forwarding.py", f"forwarding_{tag}")

    class Leases:
        draining, address = False, "127.0.0.1:1"

    class Tables:
        node_id, leases = "bench", Leases()

    update = game_pb2.TableUpdate(version=7)
    response = game_pb2.TableResponse(table_id="t1", version=7, seat=1)

    class Servicer:
        def __init__(self) -> None:
            self.tables, self.limiter = Tables(), RateLimiter(1e9, 1e9)
            self.forwarder = forwarding.Forwarder(Tables.leases)
            self.messages = 0

        async def _caller(self) -> Any:  # as services/game/servicer.py's _Limited._caller
            me = auth.current()
            structlog.contextvars.bind_contextvars(player_id=me.player_id)
            if not self.limiter.allow(me.player_id):
                raise RuntimeError("limited")
            return me

        @status.unary
        async def Act(self, request: Any, context: Any) -> Any:
            await self._caller()

            async def local() -> Any:
                structlog.contextvars.bind_contextvars(seat=1)
                return response

            return await self.forwarder.routed("Act", request, context, local)

        @status.streaming
        async def Watch(self, request: Any, context: Any) -> Any:
            await self._caller()
            structlog.contextvars.bind_contextvars(seat=1)
            for _ in range(self.messages):
                await asyncio.sleep(0)  # the feed's wake-up
                yield update

    from protocol.tokens import issue

    return {"servicer": Servicer(), "interceptor": auth.AuthInterceptor(SECRET),
            "token": issue(SECRET, "p1")[0]}


async def per_call(edge: dict[str, Any], calls: int) -> float:
    """CPU microseconds per Act through the edge."""
    import contextvars

    from qipai.v1 import game_pb2

    servicer, interceptor = edge["servicer"], edge["interceptor"]
    metadata = (("authorization", "Bearer " + edge["token"]), ("user-agent", "grpc-python/1.85"))
    request = game_pb2.ActRequest(table_id="t1", action_id="a1")

    async def continuation(details: Any) -> Any:
        return servicer.Act

    async def one() -> None:
        # A task per call, as grpc.aio's
        details = Details("/qipai.v1.Game/Act", metadata)
        handler = await interceptor.intercept_service(continuation, details)
        await handler(request, Context(metadata))

    base = contextvars.copy_context()
    loop = asyncio.get_running_loop()
    t = time.process_time()
    for _ in range(calls):
        await loop.create_task(one(), context=base.copy())
    return 1e6 * (time.process_time() - t) / calls


async def per_message(edge: dict[str, Any], messages: int) -> float:
    """CPU microseconds per Watch message through the edge (one long stream)."""
    from qipai.v1 import game_pb2

    servicer, interceptor = edge["servicer"], edge["interceptor"]
    servicer.messages = messages
    metadata = (("authorization", "Bearer " + edge["token"]),)
    request = game_pb2.WatchRequest(table_id="t1")
    context = Context(metadata)

    async def continuation(details: Any) -> Any:
        return servicer.Watch

    t = time.process_time()
    handler = await interceptor.intercept_service(continuation, Details("/qipai.v1.Game/Watch", metadata))
    if inspect.iscoroutinefunction(handler):  # grpc.aio's two ways of serving a stream
        await handler(request, context)
    else:
        async for item in handler(request, context):
            await context.write(item)
    assert context.written == messages
    return 1e6 * (time.process_time() - t) / messages


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", default="4f3d563")
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="3 reps of 5,000 calls")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.calls = 3, 5000
    edges = {"old": build(args.old, "old"), "new": build(None, "new")}
    figures: dict[str, list[tuple[float, float]]] = {k: [] for k in edges}
    for _ in range(args.reps):
        for name, edge in edges.items():
            figures[name].append((await per_call(edge, args.calls), await per_message(edge, args.calls)))
    rows, flat = [], {}
    for name, runs in figures.items():
        calls = sorted(r[0] for r in runs)[len(runs) // 2]
        msgs = sorted(r[1] for r in runs)[len(runs) // 2]
        rows.append([name, calls, msgs])
        flat.update({f"{name}_us_per_call": calls, f"{name}_us_per_message": msgs})
    flat["new_vs_old_per_call"] = flat["new_us_per_call"] / max(1e-9, flat["old_us_per_call"])
    print(f"the edge's Python, CPU per call and per stream message, median of {args.reps} (old: {args.old})")
    print(_report.table(["edge", "us per Act call", "us per Watch message"], rows))
    print(f"wrote {_report.write('edge_micro', flat)}")

if __name__ == "__main__":
    import uvloop

    uvloop.run(main())
