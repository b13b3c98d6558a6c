"""A private room whose matchmaker is killed (-9) in the middle of its start, on Postgres and
Redis with the game in its own process: another matchmaker finishes the start with the same
table, every member seated once and bought in once. Killed at each step: the start claimed
(no table yet), the table made (nobody seated), half the seats taken, every seat taken (the
room not yet marked started)."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable

import grpc
import psycopg
import pytest

from qipai.v1 import admin_pb2, admin_pb2_grpc, matchmaking_pb2_grpc
from qipai.v1 import matchmaking_pb2 as pb
from services import auth
from tests.e2e.conftest import Server, wait_healthy

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
WELCOME, STAKE = 1000, 100
PAUSE_MS = 800  # the victim's pause around each game call: the window the test kills it in


def _md(player: str, admin: bool = False) -> list[tuple[str, str]]:
    token, _ = auth.issue(SECRET, player, auth.ADMIN if admin else auth.PLAYER)
    return [("authorization", f"Bearer {token}")]


def _tables(game: Server) -> dict[str, list[str]]:
    with grpc.insecure_channel(game.address) as channel:
        tables = admin_pb2_grpc.AdminStub(channel).ListTables(
            admin_pb2.ListTablesRequest(), metadata=_md("op", admin=True), timeout=30).tables
    return {t.table_id: list(t.players) for t in tables}


def _new_table(game: Server, known: set[str], seated: int) -> Callable[[], str | None]:
    def check() -> str | None:
        fresh = {t: p for t, p in _tables(game).items() if t not in known}
        return next((t for t, p in fresh.items() if sum(bool(x) for x in p) >= seated), None)
    return check


async def _until(check: Callable[[], str | None], timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while (found := await asyncio.to_thread(check)) is None:
        assert time.monotonic() < deadline, "the start did not get there"
        await asyncio.sleep(0.05)
    return found


async def _ready_room(address: str, players: list[str]) -> str:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = matchmaking_pb2_grpc.MatchmakingStub(channel)
        room = await stub.CreateRoom(pb.CreateRoomRequest(ruleset="koudian", stake=STAKE, auto_start=False),
                                     metadata=_md(players[0]), timeout=30)
        for p in players[1:]:
            await stub.JoinRoom(pb.JoinRoomRequest(code=room.code), metadata=_md(p), timeout=30)
        for p in players:
            await stub.SetReady(pb.SetReadyRequest(code=room.code, ready=True), metadata=_md(p), timeout=30)
        return str(room.code)


async def _start_and_kill(victim: Server, survivor: Server, game: Server, players: list[str],
                          point: str) -> tuple[pb.Room, str | None]:
    """Start the room on the victim, kill it at `point`; the room as the survivor finishes it,
    and the table seen before the kill (None: none was made yet)."""
    code = await _ready_room(victim.address, players)
    known = set(_tables(game))
    async with grpc.aio.insecure_channel(survivor.address) as s_chan, \
            grpc.aio.insecure_channel(victim.address) as v_chan:
        watch = matchmaking_pb2_grpc.MatchmakingStub(s_chan).WatchRoom(
            pb.RoomRequest(code=code), metadata=_md(players[1]), timeout=120)
        start = asyncio.ensure_future(matchmaking_pb2_grpc.MatchmakingStub(v_chan).StartRoom(
            pb.RoomRequest(code=code), metadata=_md(players[0]), timeout=60))
        seen: str | None = None
        if point == "claimed":
            async for room in watch:
                if room.starting:
                    break
        else:
            seen = await _until(_new_table(game, known, {"table": 0, "half": 2, "all": 4}[point]))
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait()
        with pytest.raises(grpc.aio.AioRpcError):
            await start
        async for room in watch:
            if room.state == pb.ROOM_STATE_STARTED:
                watch.cancel()
                return room, seen
    raise AssertionError("the watch ended before the room started")


def test_a_room_whose_matchmaker_is_killed_mid_start_is_finished_by_another(
        start_server, production_env):
    game = start_server({**production_env, "QIPAI_NODE_ID": "game"}, service="game", wait=False)
    env = {**production_env, "QIPAI_GAME_ADDR": game.address, "QIPAI_ROOM_START_LEASE_S": "1"}
    victim_env = {**env, "QIPAI_ROOM_START_PAUSE_MS": str(PAUSE_MS)}
    points = ["claimed", "table", "half", "all"]
    survivor = start_server({**env, "QIPAI_NODE_ID": "survivor"}, service="matchmaking", wait=False)
    victim = start_server({**victim_env, "QIPAI_NODE_ID": "victim-0"}, service="matchmaking", wait=False)
    for server in (game, survivor, victim):
        wait_healthy(server.address, timeout=180)

    everyone: list[str] = []
    for n, point in enumerate(points):
        wait_healthy(victim.address, timeout=180)
        players = [f"{point}-{i}" for i in range(4)]
        everyone += players
        known = set(_tables(game))
        room, seen = asyncio.run(_start_and_kill(victim, survivor, game, players, point))
        if n + 1 < len(points):  # the next victim loads while this room is checked
            victim = start_server({**victim_env, "QIPAI_NODE_ID": f"victim-{n + 1}"},
                                  service="matchmaking", wait=False)
        made = {t: p for t, p in _tables(game).items() if t not in known}
        assert list(made) == [room.table_id], f"{point}: one table, the room's"
        assert seen in (None, room.table_id)
        assert made[room.table_id] == players, f"{point}: each member in their seat, once"

    base, _, schema = production_env["QIPAI_DATABASE_URL"].partition("?schema=")
    with psycopg.connect(base) as conn:
        buyins = conn.execute(f'SELECT debit, count(*), sum(amount) FROM "{schema}".ledger_transfers '
                              "WHERE kind = 'buyin' GROUP BY debit").fetchall()
        balances = dict(conn.execute(f'SELECT account, balance FROM "{schema}".ledger_accounts '
                                     "WHERE account LIKE 'player/%%'").fetchall())
    assert {d.removeprefix("player/"): (n, a) for d, n, a in buyins} == dict.fromkeys(everyone, (1, STAKE))
    assert {a.removeprefix("player/"): b for a, b in balances.items()} == dict.fromkeys(everyone, WELCOME - STAKE)
