"""The README's ledger walkthrough ("The ledger"), run as written against a `make run`-style
server, in a shell whose PATH has grpcurl but not the venv's `qipai`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_readme import ROOT, _grpcurl_path, walkthrough_blocks

pytestmark = pytest.mark.e2e


def test_the_readme_ledger_walkthrough_runs_as_written_without_the_venv_on_path(start_server, tmp_path):
    grpcurl = shutil.which("grpcurl", path=_grpcurl_path())
    assert grpcurl is not None
    only_grpcurl = tmp_path / "bin"
    only_grpcurl.mkdir()
    (only_grpcurl / "grpcurl").symlink_to(grpcurl)
    server = start_server()
    grpc_block, cli_block = walkthrough_blocks("## The ledger")
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                           if Path(p).resolve() != Path(venv_bin).resolve())
    env = {**server.env, "PATH": f"{only_grpcurl}{os.pathsep}{path}"}
    # Not `set -e`: the second CheckIn is refused on purpose.
    script = (grpc_block + cli_block).replace("127.0.0.1:50051", server.address)
    out = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and "command not found" not in out.stderr, out.stdout + out.stderr
    assert '"id": "grant/prize-42"' in out.stdout  # the grpcurl Grant, as olga
    # The same grant from the command line is the one already posted, not a conflict.
    assert "already granted (same request id): 500 chips to player/ann as grant/prize-42" in out.stdout
    assert "player/ann  1,510 chips" in out.stdout and "audit ok" in out.stdout
