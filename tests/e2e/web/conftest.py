"""The reference web table behind Envoy, for tests that drive it in headless Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import unavailable
from tests.e2e.conftest import Server, free_port

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM = os.environ.get("QIPAI_CHROMIUM", "/usr/bin/chromium")
RESULTS = ROOT / "web" / "test-results"


@pytest.fixture(scope="session")
def built_page() -> Path:
    """web/dist, built once per run by `make web-build` (npm ci on first use, codegen, bundle)."""
    if not shutil.which("node") or not shutil.which("npm"):
        unavailable("Node.js 20+ (node, npm) is not installed; the web table is built with it")
    version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 20:
        unavailable(f"the web table's tools need Node.js 20+, found {version}")
    if not os.access(CHROMIUM, os.X_OK):
        unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    done = subprocess.run(["make", "-s", "web-build"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, f"make web-build failed:\n{done.stdout}\n{done.stderr}"
    RESULTS.mkdir(exist_ok=True)
    return ROOT / "web" / "dist"


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _serve(args: list[str], env: dict[str, str], listen: str, log: Path) -> subprocess.Popen:
    with open(log, "ab") as out:
        process = subprocess.Popen([sys.executable, str(ROOT / "web" / "serve.py"), "--listen", listen, *args],
                                   env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while "the table is at http://" + listen not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            _stop(process)
            raise AssertionError("web/serve.py did not come up:\n" + log.read_text(errors="replace"))
        time.sleep(0.1)
    return process


@dataclass
class Web:
    """The page at `url`, qipai's gRPC at `address` (for bots and operators)."""

    url: str
    address: str
    listen: str
    log: Path
    args: list[str]
    env: dict[str, str]
    process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = _serve(self.args, self.env, self.listen, self.log)

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)

    def restart_envoy(self) -> None:
        """Stop Envoy (every stream through it drops) and start it again on the same port."""
        assert "--upstream" in self.args, "only Envoy in front of a qipai of its own restarts alone"
        self.stop()
        self.start()


def _site(tmp_path: Path, address: str, args: list[str], env: dict[str, str]) -> Web:
    listen = f"127.0.0.1:{free_port()}"
    site = Web(f"http://{listen}/", address, listen, tmp_path / "web.log", args, env)
    site.start()
    return site


@pytest.fixture
def web(built_page: Path, start_server, production_env, tmp_path: Path) -> Iterator[Web]:
    """qipai on real Postgres and Redis, and Envoy (web/serve.py --upstream) in front of it."""
    server = start_server(production_env)
    site = _site(tmp_path, server.address, ["--upstream", server.address], dict(os.environ))
    yield site
    site.stop()


@pytest.fixture
def made_web(built_page: Path, tmp_path: Path) -> Iterator[Web]:
    """What `make web` runs: web/serve.py starting its own qipai on the embedded default."""
    address = f"127.0.0.1:{free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("QIPAI_")}
    env.update({"QIPAI_GRPC_ADDR": address, "QIPAI_DATABASE_URL": f"sqlite:///{tmp_path / 'web.sqlite3'}",
                "QIPAI_TOKEN_SECRET": "e2e-secret"})
    site = _site(tmp_path, address, [], env)
    yield site
    site.stop()


@pytest.fixture
def two_node_web(built_page: Path, start_server, production_env, tmp_path: Path) -> Iterator[tuple[Web, dict[str, Server]]]:
    """Two game nodes on Postgres and Redis, Envoy spreading the page's calls over both; the
    nodes by node id."""
    nodes = {name: start_server({**production_env, "QIPAI_NODE_ID": name}, service="game")
             for name in ("web-node-a", "web-node-b")}
    upstream = ",".join(n.address for n in nodes.values())
    site = _site(tmp_path, upstream, ["--upstream", upstream], dict(os.environ))
    yield site, nodes
    site.stop()
