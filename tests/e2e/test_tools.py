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
from tests.e2e.conftest import free_port

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


@pytest.fixture(scope="module")
def server(module_start_server):
    """One embedded-default server for the tests here: each plays or looks at its own table."""
    return module_start_server()


@pytest.fixture(scope="module")
def played_table(server):
    """A koudian table bots played one hand at, for the tests that only read it."""
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


@pytest.mark.parametrize(("window", "says"), [
    (["--from", "5", "--to", "3"], "--from 5 is after --to 3"),
    (["--from", "0"], "--from 0: event versions start at 1"),
    (["--to", "-2"], "--to -2"),
])
def test_replay_of_an_empty_window_says_why_and_fails(window, says):
    out = run(["replay", "table-0000000000000000", *window], dict(os.environ))
    assert out.returncode == 2 and says in out.stderr and out.stdout == ""


def test_replay_from_past_the_tables_end_says_so(played_table):
    server, table_id = played_table
    out = run(["replay", table_id, "--from", "100000"], server.env)
    assert out.returncode == 1 and "--from 100000 is past its end" in out.stderr


def test_replay_of_one_hand_shows_only_that_hands_events(server):
    async def two_hands() -> str:
        async with channel(server.address) as chan:
            players = [await Player.guest(chan, f"p{i}") for i in range(4)]
            table_id = (await players[0].create_table("koudian")).table_id
            await seat_players(players, table_id, commit=True)
            await asyncio.gather(*(play_seat(p, table_id, "greedy", seed=i, hands=2)
                                   for i, p in enumerate(players)))
            return table_id

    table_id = asyncio.run(two_hands())
    whole = run(["replay", table_id, "--no-hands"], server.env).stdout.splitlines()
    hands = {n: run(["replay", table_id, "--hand", str(n), "--no-hands"], server.env) for n in (1, 2)}
    for out in hands.values():
        assert out.returncode == 0, out.stderr
        kinds = [line[6:].split()[0] for line in out.stdout.splitlines()]  # "#  19  type ..."
        assert kinds[0] == "table.DealCommitted"
        assert kinds.count("koudian.HandStarted") == 1 and kinds.count("koudian.HandEnded") == 1
    first, second = hands[1].stdout.splitlines(), hands[2].stdout.splitlines()
    # The two hands follow each other: the second begins where the first one's events end.
    assert whole.index(second[0]) == whole.index(first[-1]) + 1
    assert "hand=2" in second[0] and "hand=1" in first[0]
    missing = run(["replay", table_id, "--hand", "99"], server.env)
    assert missing.returncode == 1 and f"{table_id} has no hand 99 (hands 1 to " in missing.stderr
    both = run(["replay", table_id, "--hand", "1", "--to", "9"], server.env)
    assert both.returncode == 2 and "give it or --from/--to, not both" in both.stderr


def test_replay_prints_a_wuhan_score_as_a_formula_per_loser(server):
    table_id = play_table(server, "wuhan")
    out = run(["replay", table_id], server.env)
    assert out.returncode == 0, out.stderr
    assert "wuhan.IndicatorTurned" in out.stdout and "wuhan.HandEnded" in out.stdout
    if "settlement: draw" not in out.stdout:  # a won hand: each loser's amount as arithmetic
        assert "winner's multiplier" in out.stdout
        assert len(re.findall(r"seat \d pays \d+ ×.* = \d+", out.stdout)) == 3
    assert run(["verify", table_id], server.env).returncode == 0


def test_play_wuhan_in_the_terminal(server):
    out = run(["play", "--lang", "en", "--ruleset", "wuhan"], server.env, stdin="chow 0x\n1\nquit\n", timeout=60)
    assert out.returncode == 0, out.stderr
    assert "your hand:" in out.stdout and "[1]" in out.stdout and "indicator" in out.stdout
    assert "bad tile '0x'" in out.stdout


def test_play_says_why_the_server_refused_a_room_without_blaming_the_connection(server):
    out = run(["play", "--create-room", "--stake", "-5"], server.env, timeout=60)
    assert out.returncode == 1
    assert "INVALID_ARGUMENT" in out.stderr and "stake" in out.stderr and "-5" in out.stderr
    assert "make run" not in out.stderr


def test_replay_of_a_jj_win_lists_every_fan_with_its_value(server):
    table_id = play_table(server, "jj")
    out = run(["replay", table_id, "--no-hands"], server.env)
    assert out.returncode == 0, out.stderr
    won = out.stdout.split("jj.Won", 1)[1]
    assert "番" in won and "\n        = " in won  # one line per fan (名称 N番), then the total


def test_replay_of_an_unknown_table_says_so(server):
    out = run(["replay", "table-0000000000000000"], server.env)
    assert out.returncode == 1 and "NOT_FOUND" in out.stderr and "Traceback" not in out.stderr


REPRS = ("Meld(", "SeatCards(", "Trumps(", "None", "()", "Traceback")


# Claim windows close once decided: the player's answers come from stdin, not a person, and a
# window nobody is asked in would otherwise wait its minimum at every bot's discard.
NO_PAUSE = ["--option", "claim_window_min_ms=0"]


def test_play_shows_the_table_in_notation_and_explains_a_rejected_move(server):
    answers = "discard 0x\n99\n" + "1\n" * 120 + "quit\n"
    out = run(["play", "--lang", "en", "--ruleset", "koudian", *NO_PAUSE], server.env, stdin=answers, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "your hand:" in out.stdout and "[1] discard " in out.stdout
    assert "bad tile '0x'" in out.stdout and "no such choice: pick 1 to" in out.stdout
    assert "you discard " in out.stdout and re.search(r"seat \d \(bot\d\) discards \w+", out.stdout)
    assert re.search(r"your move \(\d+ s left, then the server plays for you\)>", out.stdout)
    result = out.stdout[out.stdout.index("hand over: "):]
    assert re.search(r"points: \d+ \(face value of \w+\)|a draw", result)
    assert "this hand, in points: you " in result
    for bad in REPRS:
        assert bad not in out.stdout, bad


def test_play_of_daqi_shows_the_deal_the_tricks_and_the_grade(server):
    options = ["--option", "deal_interval_ms=0", "--option", "bid_window_ms=2000"]
    out = run(["play", "--lang", "en", "--ruleset", "daqi", "--bot", "random", *options], server.env,
              stdin="1\n" * 80 + "quit\n", timeout=120)
    assert out.returncode == 0, out.stderr
    assert "dealing… 10/100 cards" in out.stdout and "dealing… 100/100 cards" in out.stdout
    assert re.search(r"your hand \(\d+\): [♠♥♣♦SB]", out.stdout)
    assert re.search(r"trick \d+ to ", out.stdout)
    assert re.search(r"grade [+−]\d \(", out.stdout[out.stdout.index("hand over: 庄家方"):])
    for bad in REPRS:
        assert bad not in out.stdout, bad


def play_until(server, timeout_ms: int, marker: str) -> list[str]:
    """The lines `qipai play` prints, with nobody answering, up to the first holding `marker`."""
    process = subprocess.Popen([QIPAI, "play", "--lang", "en", "--option", f"turn_timeout_ms={timeout_ms}", "--option",
                                f"claim_timeout_ms={timeout_ms}"], env=server.env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            seen.append(line)
            if marker in line:
                break
    finally:
        process.kill()
        process.wait()
    return seen


def test_play_counts_down_and_says_when_the_server_plays_for_you(server):
    text = "".join(play_until(server, 1000, "auto-play (托管) on for you"))
    assert "your move (1 s left, then the server plays for you)>" in text
    assert "you ran out of time: the server played for you" in text
    assert "auto-play (托管) on for you" in text


def test_play_reminds_you_when_a_deadline_is_near(server):
    seen = play_until(server, 7000, "⏱")
    assert "  ⏱ 5 s left before the server plays for you\n" in seen
    assert re.search(r"your move \([5-7] s left, then the server plays for you\)>", "".join(seen))


@pytest.mark.parametrize(("args", "says"), [
    (["--ruleset", "poker"], "unknown ruleset 'poker'"),
    (["--bot", "clever"], "unknown bot 'clever'; choose easy or greedy or normal or random or strong"),
    (["--option", "turn_timeout_ms"], "--option takes KEY=VALUE"),
])
def test_play_refuses_what_it_cannot_play_in_one_line(args, says):
    out = run(["play", *args], dict(os.environ), timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().count("\n") == 0 and says in out.stderr, out.stderr


def test_play_a_jj_table_in_the_terminal(server):
    out = run(["play", "--lang", "en", "--ruleset", "jj"], server.env, stdin="discard 0x\n1\nquit\n", timeout=60)
    assert out.returncode == 0, out.stderr
    assert "your hand:" in out.stdout and "wild:" in out.stdout and "bad tile '0x'" in out.stdout


def test_play_speaks_chinese_with_chinese_tile_names_by_default(server):
    out = run(["play", "--ruleset", "koudian", *NO_PAUSE], server.env, stdin="打 0x\n1\n" + "1\n" * 60 + "quit\n",
              timeout=120)
    assert out.returncode == 0, out.stderr
    assert "你坐 0 号位" in out.stdout and "你的手牌：" in out.stdout and "请出牌（剩 " in out.stdout
    assert re.search(r"\[1\] 打 \d[万筒条]|\[1\] 打 [东南西北中發白]", out.stdout)
    assert "bad tile '0x'" in out.stdout  # a typed move in Chinese words reaches the rules
    hand = re.search(r"你的手牌：(.*)", out.stdout).group(1)
    assert not re.search(r"\b\d+[mps]\b|\b[ESWNCFP]\b", hand), hand  # no notation letters


def test_demo_plays_tables_of_every_ruleset_and_prints_how_to_replay_them(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("QIPAI_")}
    env["QIPAI_DATABASE_URL"] = f"sqlite:///{tmp_path / 'demo.sqlite3'}"
    env["QIPAI_GRPC_ADDR"] = address = f"127.0.0.1:{free_port()}"
    out = run(["demo", "--tables", "1", "--exit"], env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "koudian" in out.stdout and "daqi" in out.stdout
    assert "qipai replay table-" in out.stdout and " NO " not in out.stdout
    assert f"QIPAI_GRPC_ADDR={address} .venv/bin/qipai replay" in out.stdout


def test_play_says_deal_verified_when_a_hand_ends(server):
    out = run(["play", "--lang", "en", "--ruleset", "koudian", *NO_PAUSE], server.env,
              stdin="1\n" * 150 + "quit\n", timeout=120)
    assert out.returncode == 0, out.stderr
    assert "✓ hand 1: deal verified" in out.stdout, out.stdout[-2000:]
