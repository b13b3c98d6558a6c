"""Taking a seat back from auto-play (托管) over gRPC, in a real `qipai serve` on Postgres and
Redis: the race a client sending `expected_version` used to lose on every move (issue 11)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
import time

import grpc
import pytest

from clients.client import Player, admin_replay, channel, seat_players
from qipai.v1 import game_pb2
from services import auth
from tests.e2e.conftest import QIPAI

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
TURN_MS = 1_500  # short, so that seats go on auto-play soon; long enough to answer in
OPTIONS = {"turn_timeout_ms": TURN_MS, "claim_timeout_ms": TURN_MS}
POLL_S = 0.02
WAIT_S = 120


@pytest.fixture(scope="module")
def server(module_production_env, module_start_server):
    """One server for the tests here that each make their own tables."""
    return module_start_server(module_production_env)


async def silent_table(chan: grpc.aio.Channel, options: dict[str, int]) -> tuple[str, list[Player]]:
    """A koudian table whose four players sit, get ready and then never act."""
    players = [await Player.guest(chan, f"p{i}") for i in range(4)]
    table_id = (await players[0].create_table("koudian", options)).table_id
    await seat_players(players, table_id)
    return table_id, players


async def first_on_auto_play(table_id: str, players: list[Player]) -> Player:
    """The first player whose seat the server plays after two timeouts in a row."""
    async with asyncio.timeout(WAIT_S):
        while True:
            for p in players:
                view = await p.view(table_id)
                if view.seat in view.auto_play:
                    return p
            await asyncio.sleep(POLL_S)


async def next_decision(player: Player, table_id: str) -> game_pb2.ViewResponse:
    """The player's view as soon as it has a decision to make."""
    async with asyncio.timeout(WAIT_S):
        while True:
            view = await player.view(table_id)
            if view.legal_actions:
                return view
            await asyncio.sleep(POLL_S)


async def whose_decision(players: list[Player], table_id: str) -> tuple[game_pb2.ViewResponse, Player]:
    """The view of the player who has the table's first decision (the dealer, chosen by dice)."""
    async with asyncio.timeout(WAIT_S):
        while True:
            for p in players:
                view = await p.view(table_id)
                if view.legal_actions:
                    return view, p
            await asyncio.sleep(POLL_S)


async def moved_on(player: Player, table_id: str, version: int) -> game_pb2.ViewResponse:
    async with asyncio.timeout(WAIT_S):
        while True:
            view = await player.view(table_id)
            if view.version > version:
                return view
            await asyncio.sleep(POLL_S)


async def test_a_seat_on_auto_play_acting_on_the_version_it_saw_gets_its_seat_back_after_one_refusal(server):
    async with channel(server.address) as chan:
        table_id, players = await silent_table(chan, OPTIONS)
        me = await first_on_auto_play(table_id, players)
        seen = await next_decision(me, table_id)
        assert seen.seat in seen.auto_play
        await moved_on(me, table_id, seen.version)  # the server's auto move, 300 ms later
        refused = 0
        view = seen
        for _attempt in range(3):  # like the terminal client: act on what you saw, refresh, retry
            try:
                await me.act(table_id, view.legal_actions[0], expected_version=view.version)
                break
            except grpc.aio.AioRpcError as err:
                assert err.code() == grpc.StatusCode.ABORTED, err.details()
                refused += 1
            view = await me.view(table_id)
            assert view.seat not in view.auto_play  # the refusal took the seat back
            view = await next_decision(me, table_id)
        else:
            raise AssertionError("three attempts in a row were refused")
        assert refused == 1
        assert seen.seat not in (await me.view(table_id)).auto_play


async def test_a_seat_taken_back_with_take_back_acts_without_a_refusal(server):
    async with channel(server.address) as chan:
        table_id, players = await silent_table(chan, OPTIONS)
        me = await first_on_auto_play(table_id, players)
        taken = await me.take_back(table_id)
        await me.take_back(table_id)  # idempotent: nothing more to take back
        view = await next_decision(me, table_id)
        assert view.seat not in view.auto_play
        await me.act(table_id, view.legal_actions[0], expected_version=view.version)
        admin = Player(chan, auth.issue(SECRET, "operator", auth.ADMIN)[0], "operator")
        steps = await admin_replay(admin, table_id)
    (step,) = [s for s in steps if "command" in json.loads(s.metadata_json)
               and json.loads(s.metadata_json)["command"]["type"] == "table.TakeBack"]
    assert step.version == taken.version
    assert step.type == "table.AutoPlaySet" and json.loads(step.data_json) == {"seat": view.seat, "on": False}


async def test_only_a_seated_player_can_take_a_seat_back(server):
    async with channel(server.address) as chan:
        table_id, _ = await silent_table(chan, {"turn_timeout_ms": 60_000, "claim_timeout_ms": 60_000})
        stranger = await Player.guest(chan, "stranger")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stranger.take_back(table_id)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "not_seated" in (refused.value.details() or "")


async def test_the_view_tells_when_the_deadline_falls_as_one_absolute_instant(server):
    async with channel(server.address) as chan:
        table_id, players = await silent_table(chan, {"turn_timeout_ms": 60_000, "claim_timeout_ms": 60_000})
        asked_ms = int(time.time() * 1000)
        first, me = await whose_decision(players, table_id)
        await asyncio.sleep(0.3)
        second = await me.view(table_id)  # a client reconnecting later
        assert second.version == first.version
        assert second.deadline_at_ms == first.deadline_at_ms  # not the full timeout again
        assert first.deadline_ms == 60_000
        # Unix milliseconds, 60 s after the table last moved (before the first view was asked).
        assert asked_ms - 5_000 + 60_000 <= first.deadline_at_ms <= int(time.time() * 1000) + 60_000
        other = next(p for p in players if p is not me)  # the table is private: a member
        assert (await other.view(table_id)).deadline_at_ms == first.deadline_at_ms
        async with asyncio.timeout(WAIT_S):  # a client resuming its stream: the first update has a view
            async for update in me.watch(table_id, 0, with_views=True):
                if update.HasField("view"):
                    assert update.view.version == first.version
                    assert update.view.deadline_at_ms == first.deadline_at_ms
                    break


def test_the_terminal_client_says_auto_play_is_on_and_t_takes_the_seat_back(start_server):
    server = start_server()
    process = subprocess.Popen([str(QIPAI), "play", "--lang", "en", "--option", f"turn_timeout_ms={TURN_MS}",
                                "--option", f"claim_timeout_ms={TURN_MS}"], env=server.env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    watchdog = threading.Timer(WAIT_S, process.kill)  # a line that never comes ends the test
    watchdog.start()
    seen: list[str] = []
    try:
        assert process.stdin is not None and process.stdout is not None
        for line in process.stdout:
            seen.append(line)
            if "auto-play (托管) on for you — press t" in line:
                process.stdin.write("t\n")
                process.stdin.flush()
            if "auto-play (托管) off for you: your seat is yours again" in line:
                break
    finally:
        watchdog.cancel()
        process.kill()
        process.wait()
    text = "".join(seen)
    assert "auto-play (托管) off for you: your seat is yours again" in text, text[-2000:]


async def test_every_node_reports_the_same_deadline_instant(start_server, production_env):
    a = start_server({**production_env, "QIPAI_NODE_ID": "node-a"}, service="game")
    b = start_server({**production_env, "QIPAI_NODE_ID": "node-b"}, service="game")
    async with channel(a.address) as chan_a, channel(b.address) as chan_b:
        table_id, players = await silent_table(chan_a, {"turn_timeout_ms": 60_000, "claim_timeout_ms": 60_000})
        first, me = await whose_decision(players, table_id)
        elsewhere = Player(chan_b, me.token, me.player_id)
        await asyncio.sleep(0.3)
        there = await elsewhere.view(table_id)  # answered by the table's node, whichever is asked
        assert first.deadline_at_ms > 0
        assert there.version == first.version and there.deadline_at_ms == first.deadline_at_ms
