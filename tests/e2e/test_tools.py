"""The operator and player tools against a running server: replay, verify, play, demo."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from clients.client import Player, channel, play_seat, seat_players

pytestmark = pytest.mark.e2e

QIPAI = str(Path(sys.executable).with_name("qipai"))


def run(args: list[str], env: dict[str, str], stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([QIPAI, *args], env=env, input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def play_table(server, ruleset: str = "koudian") -> str:
    """Bots play one hand of `ruleset` at a new table; its id."""

    async def play() -> str:
        async with channel(server.address) as chan:
            players = [await Player.guest(chan, f"p{i}") for i in range(4)]
            table_id = (await players[0].create_table(ruleset)).table_id
            await seat_players(players, table_id)
            await asyncio.gather(*(play_seat(p, table_id, "greedy", seed=i) for i, p in enumerate(players)))
            return table_id

    return asyncio.run(play())


@pytest.fixture
def played_table(start_server):
    server = start_server()
    return server, play_table(server)


def test_verify_reports_that_every_command_and_deck_checks_out(played_table):
    server, table_id = played_table
    out = run(["verify", table_id], server.env)
    assert out.returncode == 0, out.stderr
    assert "OK" in out.stdout and "match their commitments" in out.stdout


def test_replay_prints_who_did_what_the_hands_and_the_settlement(played_table):
    server, table_id = played_table
    out = run(["replay", table_id], server.env)
    assert out.returncode == 0, out.stderr
    assert "koudian.HandStarted" in out.stdout and "koudian.HandEnded" in out.stdout
    assert "seat 0 (" in out.stdout and "settlement:" in out.stdout
    first_three = run(["replay", table_id, "--to", "3", "--no-hands"], server.env)
    assert len([line for line in first_three.stdout.splitlines() if line.startswith("#")]) == 3


def test_replay_prints_a_wuhan_score_as_a_formula_per_loser(start_server):
    server = start_server()
    table_id = play_table(server, "wuhan")
    out = run(["replay", table_id], server.env)
    assert out.returncode == 0, out.stderr
    assert "wuhan.IndicatorTurned" in out.stdout and "wuhan.HandEnded" in out.stdout
    if "settlement: draw" not in out.stdout:  # a won hand: each loser's amount as arithmetic
        assert "winner's multiplier" in out.stdout
        assert len(re.findall(r"seat \d pays \d+ ×.* = \d+", out.stdout)) == 3
    assert run(["verify", table_id], server.env).returncode == 0


def test_play_wuhan_in_the_terminal(start_server):
    server = start_server()
    out = run(["play", "--ruleset", "wuhan"], server.env, stdin="chow 0x\n1\nquit\n", timeout=60)
    assert out.returncode == 0, out.stderr
    assert "your hand:" in out.stdout and "[1]" in out.stdout and "indicator" in out.stdout
    assert "bad tile '0x'" in out.stdout


def test_replay_of_a_jj_win_lists_every_fan_with_its_value(start_server):
    server = start_server()
    table_id = play_table(server, "jj")
    out = run(["replay", table_id, "--no-hands"], server.env)
    assert out.returncode == 0, out.stderr
    won = out.stdout.split("jj.Won", 1)[1]
    assert "番" in won and "\n        = " in won  # one line per fan (名称 N番), then the total


def test_replay_of_an_unknown_table_says_so(start_server):
    server = start_server()
    out = run(["replay", "table-0000000000000000"], server.env)
    assert out.returncode == 1 and "NOT_FOUND" in out.stderr and "Traceback" not in out.stderr


def test_play_shows_the_hand_and_legal_actions_and_explains_a_rejected_move(start_server):
    server = start_server()
    out = run(["play", "--ruleset", "koudian"], server.env, stdin="discard 0x\n99\n1\nquit\n", timeout=60)
    assert out.returncode == 0, out.stderr
    assert "your hand:" in out.stdout and "[1]" in out.stdout
    assert "bad tile '0x'" in out.stdout
    assert "no such choice" in out.stdout


def test_play_a_jj_table_in_the_terminal(start_server):
    server = start_server()
    out = run(["play", "--ruleset", "jj"], server.env, stdin="discard 0x\n1\nquit\n", timeout=60)
    assert out.returncode == 0, out.stderr
    assert "your hand:" in out.stdout and "wild:" in out.stdout and "bad tile '0x'" in out.stdout


def test_demo_plays_tables_of_every_ruleset_and_prints_how_to_replay_them(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("QIPAI_")}
    env["QIPAI_DATABASE_URL"] = f"sqlite:///{tmp_path / 'demo.sqlite3'}"
    out = run(["demo", "--tables", "1", "--exit"], env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "koudian" in out.stdout and "daqi" in out.stdout
    assert "qipai replay table-" in out.stdout and " NO " not in out.stdout
