"""The gRPC server process: the chosen services, health checking, reflection, graceful shutdown."""

from __future__ import annotations

import asyncio
import errno
import gc
import signal
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from services.config import SERVICES, Settings
from services.observability import log, setup_logging, start_metrics

FULL_NAMES = {"game": "qipai.v1.Game", "matchmaking": "qipai.v1.Matchmaking", "ledger": "qipai.v1.Ledger"}


class StartupError(Exception):
    """The server cannot start; the message says why and what to change."""


@dataclass
class Running:
    server: grpc.aio.Server
    health: health.aio.HealthServicer
    port: int
    resources: list[Any]


async def start(settings: Settings, services: Sequence[str]) -> Running:
    """Open the backends, register `services`, bind and start; raises StartupError on failure."""
    from services.bootstrap import open_backends, register_services

    unknown = [s for s in services if s not in SERVICES]
    if unknown:
        raise StartupError(f"unknown service(s) {unknown}; choose from {', '.join(SERVICES)} or all")
    from services.auth import AuthInterceptor
    from services.eventstore import EventStoreError
    from services.signing_key import exposure_problem, signing_key

    try:
        key = signing_key(settings.token_secret)
    except OSError as exc:
        raise StartupError(f"cannot read or create the token key: {exc}") from None
    for address in listening(settings):
        problem = exposure_problem(address, key)
        if problem:
            raise StartupError(problem)
    settings = settings.model_copy(update={"token_secret": key})
    # A worker of `--workers` shares its port with its siblings (QIPAI_NODE_ADDR marks one); any
    # other server must have the port alone, or two processes would serve one database and fence
    # each other's tables out. Checked before the backends open: a refused start touches nothing.
    shared = bool(settings.node_addr)
    if not shared:
        taken = port_taken(settings.grpc_addr)
        if taken:
            raise StartupError(taken)
    try:
        backends = await open_backends(settings)
    except (ConnectionError, OSError, EventStoreError) as exc:
        raise StartupError(f"cannot open the backends: {exc}") from None
    server = grpc.aio.server(
        interceptors=[AuthInterceptor(settings.token_secret)],
        options=[("grpc.max_receive_message_length", 1 << 20), ("grpc.so_reuseport", int(shared))],
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    register_services(server, services, backends, settings)
    names = [FULL_NAMES[s] for s in services]
    if "game" in services:
        names += ["qipai.v1.Auth", "qipai.v1.Admin"]
    reflection.enable_server_reflection(
        [*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    try:
        port = server.add_insecure_port(settings.grpc_addr)
    except RuntimeError as exc:
        await backends.close()
        raise StartupError(f"cannot listen on {settings.grpc_addr}: {exc}") from None
    if port == 0:
        await backends.close()
        raise StartupError(f"cannot listen on {settings.grpc_addr} (address in use?)")
    if settings.node_addr and not _listen(server, settings.node_addr):
        await backends.close()
        raise StartupError(f"cannot listen on {settings.node_addr} (QIPAI_NODE_ADDR; in use?)")
    resources: list[Any] = []
    if "ledger" in services:
        from services.ledger.serving import start_ledger

        try:
            resources.append(await start_ledger(server, backends, settings))
        except Exception as exc:  # a database or Redis that does not answer, a bad setting
            await backends.close()
            raise StartupError(f"cannot open the ledger: {exc}") from None
    if "matchmaking" in services:
        from services.matchmaking.ratings import open_ratings
        from services.matchmaking.serving import start_matchmaking

        try:
            ratings = await open_ratings(backends.store)
            resources.append(await start_matchmaking(server, backends, settings, "game" in services,
                                                     ratings))
        except Exception as exc:  # a queues file that is wrong, no game to seat tables at
            for resource in resources:
                await resource.close()
            await backends.close()
            raise StartupError(f"cannot start matchmaking: {exc}") from None
    if "game" in services:
        await backends.tables.rebuild_deadlines()
        backends.start_clock()
    await server.start()
    for name in names:
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    return Running(server, health_servicer, port, [*resources, backends])


def listening(settings: Settings) -> list[str]:
    """Every host:port the process listens on: a weak key is refused if any is beyond loopback."""
    addresses = [settings.grpc_addr, *([settings.node_addr] if settings.node_addr else [])]
    if settings.metrics_port:
        addresses.append(f"{metrics_host(settings)}:{settings.metrics_port}")
    return addresses


def metrics_host(settings: Settings) -> str:
    """The metrics endpoint listens on the host of QIPAI_GRPC_ADDR."""
    return settings.grpc_addr.rpartition(":")[0]


async def stop(running: Running, grace: float = 5.0) -> None:
    """Stop answering health checks, finish in-flight calls within `grace` seconds, close backends."""
    await running.health.enter_graceful_shutdown()
    for resource in running.resources:
        await resource.drain()  # hand tables over first: their next calls go to other nodes
    await running.server.stop(grace)
    for resource in running.resources:
        await resource.close()


async def serve(settings: Settings, services: Sequence[str]) -> int:
    """Run until SIGINT or SIGTERM; returns the process exit code."""
    setup_logging(settings.log_level, settings.log_format)
    try:
        running = await start(settings, services)
    except StartupError as exc:
        print(f"qipai: {exc}", file=sys.stderr)
        return 2
    host = metrics_host(settings)
    start_metrics(host, settings.metrics_port)
    address = f"{host}:{running.port}"
    log.info("serving", address=address, services=list(services), database=_safe(settings.database_url),
             live_state=_safe(settings.redis_url))
    print(f"qipai: serving {', '.join(services)} on {address} (Ctrl-C to stop)", file=sys.stderr, flush=True)
    steady_gc()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    print("qipai: shutting down", file=sys.stderr, flush=True)
    await stop(running)
    log.info("stopped")
    return 0


def steady_gc() -> None:
    """Fewer, shorter garbage-collection pauses for a long-running server: what start-up built
    (modules, rule tables) is never scanned again, and young collections run less often.
    Full collections of a large heap otherwise stall every table on the node for 50-100 ms."""
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 50, 100)


GC_YOUNG_THRESHOLD = 20_000


def port_taken(address: str) -> str | None:
    """Why `address` (host:port) cannot be this server's alone, in one line; None when it is free.
    A plain bind (no SO_REUSEPORT) fails on a port another server listens on, even one that
    shares it with SO_REUSEPORT as gRPC does by default."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    if port == "0":
        return None
    try:
        infos = socket.getaddrinfo(host or None, int(port), type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return None  # gRPC's own bind names the problem
    for family, kind, proto, _, sockaddr in infos:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed server's TIME_WAITs do not count
            try:
                s.bind(sockaddr)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    return (f"{address} is already in use (another `qipai serve`?): stop it, or "
                            f"set QIPAI_GRPC_ADDR to a free port")
    return None


def _listen(server: grpc.aio.Server, address: str) -> bool:
    """Whether `server` could bind `address` too (this worker's own, under --workers)."""
    try:
        port: int = server.add_insecure_port(address)
    except RuntimeError:
        return False
    return port != 0


def _safe(url: str) -> str:
    """A URL without its password, for logs."""
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        creds, _, host = rest.rpartition("@")
        user = creds.split(":", 1)[0]
        return f"{scheme}{sep}{user}:***@{host}"
    return url
