"""`qipai play` driven as a person at a terminal drives it (a pseudo-terminal): it comes back
after the server restarts, takes a seat back after the client itself ended, and leaves at once
on `quit` or Ctrl-D, even while the table waits for its first hand."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import re
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from clients.client import Player, channel
from tests.e2e.conftest import QIPAI

pytestmark = pytest.mark.e2e

LONG_TURNS = ["--option", "turn_timeout_ms=600000"]  # the server never plays for the person


class Terminal:
    """`qipai ARGS` on a pseudo-terminal: what it printed, and keys typed at it."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        master, slave = pty.openpty()
        self.process = subprocess.Popen([str(QIPAI), *args], stdin=slave, stdout=slave,
                                        stderr=slave, env=env, cwd=cwd, close_fds=True)
        os.close(slave)
        self.master, self.output, self.read_to = master, "", 0

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # the process closed the terminal
            return False
        self.output += chunk.decode(errors="replace")
        return bool(chunk)

    def expect(self, pattern: str, timeout: float = 90) -> re.Match[str]:
        """Wait for `pattern` (a regular expression) in what was printed since the last match."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.compile(pattern).search(self.output, self.read_to)
            if found:
                self.read_to = found.end()
                return found
            if time.monotonic() > deadline or not self._read(0.5):
                raise AssertionError(f"no {pattern!r} in:\n{self.output[-4000:]}")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def exit_code(self, timeout: float = 20) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.2)
        return self.process.wait(1)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


@pytest.fixture
def terminals():
    opened: list[Terminal] = []

    def open_(args: list[str], env: dict[str, str], cwd: Path) -> Terminal:
        opened.append(Terminal(args, env, cwd))
        return opened[-1]

    yield open_
    for terminal in opened:
        terminal.close()


async def a_table_waiting_for_its_first_hand(address: str) -> tuple[str, str]:
    """A koudian table whose four players sit but only the first... never says ready: its id
    and the first player's token."""
    async with channel(address) as chan:
        players = [await Player.guest(chan, f"p{i}") for i in range(4)]
        table_id = (await players[0].create_table("koudian")).table_id
        for i, p in enumerate(players):
            await p.join(table_id, i)
        return table_id, players[0].token


@pytest.mark.parametrize("leave", ["quit\n", "\x04"], ids=["quit", "ctrl-d"])
def test_quit_or_ctrl_d_leaves_at_once_while_the_table_waits_for_its_first_hand(
        start_server, terminals, tmp_path, leave):
    server = start_server()
    table_id, token = asyncio.run(a_table_waiting_for_its_first_hand(server.address))
    term = terminals(["play", "--table", table_id, "--token", token], server.env, tmp_path)
    # In Chinese, as it speaks by default.
    term.expect(f"牌桌 {table_id}：回到 0 号位")
    term.expect("已准备下一局")  # the other three never are
    term.type(leave)
    term.expect(f"你离开了牌桌 {table_id}：`qipai play --table {table_id}` 可回到座位")
    assert term.exit_code() == 0


def test_play_comes_back_after_the_server_restarts(start_server, terminals, tmp_path):
    server = start_server()
    term = terminals(["play", "--lang", "en", *LONG_TURNS], server.env, tmp_path)
    table_id = term.expect(r"table (table-\w+): you are seat 0").group(1)
    term.expect(r"your move \(\d+ s left")
    assert server.stop() == 0
    term.expect(r"connection lost \((CANCELLED|UNAVAILABLE)\): reconnecting")
    # The same database, the same address; the client's own reconnection says it is up.
    start_server({"QIPAI_GRPC_ADDR": server.address}, wait=False)
    term.expect("reconnected: back at the table", timeout=120)
    term.type("1\n")  # the decision on screen still stands: the first legal move
    term.expect(r"\n(you discard|you pong|you declare|you win|you pass|hand over)")
    term.expect(r"your move \(\d+ s left")  # and the game goes on
    term.type("quit\n")
    term.expect(f"you left table {table_id}")
    assert term.exit_code() == 0


def test_a_seat_is_taken_back_by_table_or_by_token_after_the_client_ended(start_server, terminals,
                                                                          tmp_path):
    server = start_server()
    first = terminals(["play", "--lang", "en", *LONG_TURNS], server.env, tmp_path)
    table_id = first.expect(r"table (table-\w+): you are seat 0").group(1)
    first.expect(r"your move \(\d+ s left")
    first.process.send_signal(signal.SIGKILL)  # a crash: nothing said goodbye
    kept = json.loads((tmp_path / "var" / "play" / f"{table_id}.json").read_text())
    assert len(kept["bots"]) == 3

    again = terminals(["play", "--lang", "en", "--table", table_id], server.env, tmp_path)
    again.expect(f"table {table_id}: back at seat 0")
    again.expect(r"your move \(\d+ s left")
    again.type("1\n")
    again.expect(r"your move \(\d+ s left")  # the bots of the first client play on, in this one
    again.type("\x04")
    assert again.exit_code() == 0

    # Elsewhere (nothing kept there): the server's list of tables finds the player's.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    by_token = terminals(["play", "--lang", "en", "--token", kept["token"]], server.env, elsewhere)
    by_token.expect(f"table {table_id}: back at seat 0")
    by_token.type("quit\n")
    assert by_token.exit_code() == 0
