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


def _serve(listen: str, upstream: str, log: Path) -> subprocess.Popen:
    with open(log, "ab") as out:
        process = subprocess.Popen([sys.executable, str(ROOT / "web" / "serve.py"), "--listen", listen,
                                    "--upstream", upstream], stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while "the table is at http://" + listen not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            _stop(process)
            raise AssertionError("web/serve.py did not come up:\n" + log.read_text(errors="replace"))
        time.sleep(0.1)
    return process


@dataclass
class Web:
    url: str
    server: Server
    listen: str
    log: Path
    process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = _serve(self.listen, self.server.address, self.log)

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)

    def restart_envoy(self) -> None:
        """Stop Envoy (every stream through it drops) and start it again on the same port."""
        self.stop()
        self.start()


@pytest.fixture
def web(built_page: Path, start_server, production_env, tmp_path: Path) -> Iterator[Web]:
    """qipai on real Postgres and Redis, and Envoy (web/serve.py) in front of it."""
    server = start_server(production_env)
    listen = f"127.0.0.1:{free_port()}"
    site = Web(f"http://{listen}/", server, listen, tmp_path / "web.log")
    site.start()
    yield site
    site.stop()
