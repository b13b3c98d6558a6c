"""`qipai serve --workers N`: what each worker is told, and how the supervisor treats them."""

import signal
import socket
import subprocess
import sys

import pytest

from services import workers
from services.config import Settings


def test_each_worker_is_a_node_of_its_own_on_a_port_of_its_own_sharing_the_address() -> None:
    settings = Settings(grpc_addr="0.0.0.0:50051", advertise_addr="10.0.0.7:50051", node_id="vm1",
                        metrics_port=9100)
    envs = [workers.worker_env(settings, i, 40000 + i, "vm1") for i in range(3)]
    assert [e["QIPAI_NODE_ID"] for e in envs] == ["vm1-0", "vm1-1", "vm1-2"]
    assert [e["QIPAI_NODE_ADDR"] for e in envs] == ["0.0.0.0:40000", "0.0.0.0:40001", "0.0.0.0:40002"]
    assert [e["QIPAI_ADVERTISE_ADDR"] for e in envs] == ["10.0.0.7:40000", "10.0.0.7:40001",
                                                          "10.0.0.7:40002"]
    assert [e["QIPAI_METRICS_PORT"] for e in envs] == ["9100", "9101", "9102"]


def test_metrics_stay_off_for_every_worker_when_they_are_off() -> None:
    env = workers.worker_env(Settings(metrics_port=0), 2, 40002, "n")
    assert env["QIPAI_METRICS_PORT"] == "0"


def _free_addr() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def _listening(reuse_port: bool) -> socket.socket:
    """A server's listening socket on a free loopback port (gRPC's sets SO_REUSEPORT)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s


@pytest.mark.parametrize("reuse_port", [True, False])
def test_a_port_another_server_listens_on_is_taken_even_when_it_allows_sharing(reuse_port: bool) -> None:
    from services.server import port_taken

    with _listening(reuse_port) as other:
        address = f"127.0.0.1:{other.getsockname()[1]}"
        assert port_taken(address) == (f"{address} is already in use (another `qipai serve`?): "
                                       "stop it, or set QIPAI_GRPC_ADDR to a free port")
    assert port_taken(address) is None


def test_workers_refuse_to_start_on_a_port_another_server_holds(capsys) -> None:
    spawn, started = _fake("import time; time.sleep(60)")
    with _listening(reuse_port=True) as other:
        address = f"127.0.0.1:{other.getsockname()[1]}"
        assert workers.supervise(Settings(grpc_addr=address), 2, spawn) == workers.STARTUP_FAILED
    assert started == []
    assert capsys.readouterr().err == f"qipai: {address} is already in use (another `qipai serve`?): " \
        "stop it, or set QIPAI_GRPC_ADDR to a free port\n"


def _fake(script: str):
    """Workers that run `script` (Python) instead of `qipai serve`."""
    started: list[subprocess.Popen] = []

    def spawn(env: dict[str, str]) -> subprocess.Popen:
        started.append(subprocess.Popen([sys.executable, "-c", script], env=env))
        return started[-1]

    return spawn, started


def test_a_worker_that_cannot_start_stops_them_all_with_its_exit_code() -> None:
    spawn, started = _fake("import os, sys, time\n"
                           "sys.exit(2) if os.environ['QIPAI_NODE_ID'].endswith('-1') else time.sleep(60)")
    assert workers.supervise(Settings(grpc_addr=_free_addr()), 2, spawn) == 2
    assert all(p.poll() is not None for p in started)


def test_a_worker_that_dies_is_started_again_with_the_same_identity(monkeypatch) -> None:
    spawn, started = _fake("import os, signal, sys, time\n"
                           "signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))\n"
                           "sys.exit(9) if os.environ['QIPAI_NODE_ID'] == 'vm-0' and "
                           "not os.environ.get('AGAIN') else time.sleep(60)")
    envs: list[dict[str, str]] = []

    def spawn_then_stop_after_the_restart(env: dict[str, str]) -> subprocess.Popen:
        envs.append(env)
        proc = spawn({**env, "AGAIN": "1"} if len(envs) == 3 else env)
        if len(envs) == 3:  # both workers, then the first one again: enough
            signal.raise_signal(signal.SIGTERM)
        return proc

    monkeypatch.setattr(workers, "RESTART_AFTER_S", 0.01)
    previous = signal.getsignal(signal.SIGTERM)
    try:
        code = workers.supervise(Settings(grpc_addr=_free_addr(), node_id="vm"), 2, spawn_then_stop_after_the_restart)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert [e["QIPAI_NODE_ID"] for e in envs] == ["vm-0", "vm-1", "vm-0"]
    assert envs[2]["QIPAI_NODE_ADDR"] == envs[0]["QIPAI_NODE_ADDR"]
    # Every worker was stopped (one just started may die of the signal before it handles it).
    assert code in (0, -signal.SIGTERM) and all(p.poll() is not None for p in started)


@pytest.mark.parametrize("workers_arg", ["0", "-1"])
def test_workers_must_be_at_least_one(workers_arg: str, capsys) -> None:
    from cli.main import main

    assert main(["serve", "--service", "game", "--workers", workers_arg]) == 2
    assert "--workers" in capsys.readouterr().err
