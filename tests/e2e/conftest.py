"""Real `qipai serve` processes for end-to-end tests, on the embedded and the production backends."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

QIPAI = Path(sys.executable).with_name("qipai")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    address: str
    process: subprocess.Popen
    log_path: Path
    env: dict[str, str]

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, sig: int = signal.SIGINT, timeout: float = 15) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def wait_healthy(address: str, timeout: float = 20, service: str = "") -> None:
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{address} did not become healthy")
            time.sleep(0.1)


StartServer = Callable[..., Server]


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[StartServer]:
    """Starts `qipai serve` processes with the given QIPAI_ variables; stops them after the test."""
    with server_starter(tmp_path) as start:
        yield start


@contextlib.contextmanager
def server_starter(tmp_path: Path) -> Iterator[StartServer]:
    """`start_server` for any scope: the servers it started stop when the block ends."""
    started: list[Server] = []

    def start(env: dict[str, str] | None = None, service: str = "all", wait: bool = True,
              workers: int = 1) -> Server:
        port = free_port()
        full = {k: v for k, v in os.environ.items() if not k.startswith("QIPAI_")}
        full.update({"QIPAI_GRPC_ADDR": f"127.0.0.1:{port}", "QIPAI_LOG_LEVEL": "info",
                     "QIPAI_DATABASE_URL": f"sqlite:///{tmp_path / 'events.sqlite3'}",
                     "QIPAI_REDIS_URL": "memory://", "QIPAI_TOKEN_SECRET": "e2e-secret",
                     # the tests log in hundreds of guests from one address
                     "QIPAI_GUEST_LOGINS_PER_MINUTE": "100000"})
        full.update(env or {})
        log_path = tmp_path / f"server-{len(started)}.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen([str(QIPAI), "serve", "--service", service,
                                        *(["--workers", str(workers)] if workers != 1 else [])],
                                       env=full, stdout=log, stderr=subprocess.STDOUT)
        server = Server(f"127.0.0.1:{port}", process, log_path, full)
        started.append(server)
        if wait:
            try:
                wait_healthy(server.address)
            except TimeoutError:
                server.stop()
                raise AssertionError(f"server did not start:\n{server.log()}") from None
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


@pytest.fixture
def production_env(postgres_url: str, redis_url: str, pg_schema: str, redis_prefix: str) -> dict[str, str]:
    """QIPAI_ variables pointing a server at real Postgres (own schema) and Redis (own keys)."""
    return _production_env(postgres_url, redis_url, pg_schema, redis_prefix)


def _production_env(postgres_url: str, redis_url: str, schema: str, prefix: str) -> dict[str, str]:
    sep = "&" if "?" in postgres_url else "?"
    return {"QIPAI_DATABASE_URL": f"{postgres_url}{sep}schema={schema}",
            "QIPAI_REDIS_URL": redis_url, "QIPAI_LIVE_NAMESPACE": prefix.rstrip(":"),
            "QIPAI_NODE_ID": f"e2e-{uuid.uuid4().hex[:6]}"}


# For a module whose tests each make their own tables and players, so that they can share one
# server: started once, not once a test.


@pytest.fixture(scope="module")
def module_start_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StartServer]:
    """`start_server` whose servers stop when the module's tests are done."""
    with server_starter(tmp_path_factory.mktemp("module")) as start:
        yield start


@pytest.fixture(scope="module")
def module_production_env(postgres_url: str, redis_url: str) -> Iterator[dict[str, str]]:
    """`production_env` for a whole module (its own schema and key prefix, dropped after it)."""
    from tests.conftest import drop_keys, drop_schema

    schema, prefix = f"m_{uuid.uuid4().hex[:16]}", f"test:{uuid.uuid4().hex[:12]}:"
    try:
        yield _production_env(postgres_url, redis_url, schema, prefix)
    finally:
        drop_schema(postgres_url, schema)
        drop_keys(redis_url, prefix)


@pytest.fixture(scope="session")
def twenty_tables(tmp_path_factory: pytest.TempPathFactory, postgres_url: str,
                  redis_url: str) -> Iterator[object]:
    """20 tables of each ruleset played once for the session, with nonces and stakes
    (tests/e2e/twenty_tables.py): the record of the run, its server still up."""
    from tests.e2e.twenty_tables import shared_run

    yield from shared_run(tmp_path_factory, postgres_url, redis_url)
