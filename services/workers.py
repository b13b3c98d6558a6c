"""`qipai serve --service game --workers N`: N game processes on one machine, one per core.

One Python process uses about one core, so a machine with several runs several game nodes.
Each worker is an ordinary node (its own node id, leases on the tables it serves) and listens
twice: on the shared QIPAI_GRPC_ADDR, where the kernel spreads client connections over the
workers (gRPC sets SO_REUSEPORT), and on an address of its own (QIPAI_NODE_ADDR), which it
advertises, so that calls forwarded to a table's node reach that worker and not whichever one
the kernel picks. A table stays with the worker its first call reached, and the calls of a
connection all reach one worker, so a client's tables mostly need no forwarding.

The supervisor passes SIGINT and SIGTERM on (each worker drains as a lone node does) and starts
a worker again when one dies; one that cannot start stops them all.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable

from services.config import Settings

RESTART_AFTER_S = 1.0
STARTUP_FAILED = 2  # `qipai serve`'s exit code when it cannot start (a configuration problem)


def worker_env(settings: Settings, index: int, port: int, base_id: str) -> dict[str, str]:
    """The environment of worker `index`, whose own port is `port`."""
    host = settings.grpc_addr.rpartition(":")[0]
    advertised_host = settings.advertised_addr.rpartition(":")[0]
    env = dict(os.environ)
    env.update({
        "QIPAI_NODE_ID": f"{base_id}-{index}",
        "QIPAI_NODE_ADDR": f"{host}:{port}",
        "QIPAI_ADVERTISE_ADDR": f"{advertised_host}:{port}",
        # One metrics endpoint per process: worker i serves QIPAI_METRICS_PORT + i.
        "QIPAI_METRICS_PORT": str(settings.metrics_port + index if settings.metrics_port else 0),
    })
    return env


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host if host not in ("", "[::]") else "0.0.0.0", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:
    """In the child: a SIGTERM when the supervisor dies, however it dies (Linux)."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def supervise(settings: Settings, workers: int,
              spawn: Callable[[dict[str, str]], subprocess.Popen[bytes]] | None = None) -> int:
    """Run `workers` game nodes until SIGINT or SIGTERM; the exit code of the whole."""
    from services.server import port_taken

    taken = port_taken(settings.grpc_addr)  # the workers share it with each other only
    if taken:
        print(f"qipai: {taken}", file=sys.stderr, flush=True)
        return STARTUP_FAILED
    spawn = spawn or _spawn
    base_id = settings.node_id or f"node-{uuid.uuid4().hex[:6]}"
    host = settings.grpc_addr.rpartition(":")[0]
    envs = [worker_env(settings, i, _free_port(host), base_id) for i in range(workers)]
    procs: list[subprocess.Popen[bytes]] = []
    stopping: list[int] = []

    def forward(sig: int, _frame: object) -> None:
        stopping.append(sig)
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(sig)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, forward)
    for env in envs:
        procs.append(spawn(env))
        if stopping:  # the signal came while this one started
            procs[-1].send_signal(stopping[0])
    print(f"qipai: supervising {workers} game workers on {settings.grpc_addr} "
          f"({', '.join(env['QIPAI_NODE_ID'] for env in envs)})", file=sys.stderr, flush=True)
    while True:
        if stopping:
            codes = [proc.wait() for proc in procs]
            return max(codes, key=abs, default=0)
        for i, proc in enumerate(procs):
            code = proc.poll()
            if code is None:
                continue
            if code == STARTUP_FAILED:
                forward(signal.SIGTERM, None)
                for other in procs:
                    other.wait()
                return STARTUP_FAILED
            print(f"qipai: worker {envs[i]['QIPAI_NODE_ID']} exited ({code}); starting it again",
                  file=sys.stderr, flush=True)
            time.sleep(RESTART_AFTER_S)
            if not stopping:
                procs[i] = spawn(envs[i])
                if stopping:
                    procs[i].send_signal(stopping[0])
        time.sleep(0.2)


def _spawn(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "cli", "serve", "--service", "game"],
                            env=env, preexec_fn=_die_with_parent)
