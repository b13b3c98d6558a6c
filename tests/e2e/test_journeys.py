"""Journeys across the three services as players make them (issue 26), on Postgres and Redis with
every service in its own process: two game nodes, two matchmakers, one ledger.

Room: four players check in, one makes a room with a code, the others join it through the other
matchmaker, everyone says ready once (in the room) and the table deals by itself; the hands are
played and settled while one player drops and comes back and the node holding the table is
killed mid-hand, to the match's end. Queue: a lone player is matched with bots, plays a hand and
leaves; the table the bots play on alone is closed as abandoned. Both end with
every stack cashed out, every table seat account at 0, each balance equal to the welcome grant,
the check-in reward and the chips the hands paid the player, and the ledger's audit ok."""

from __future__ import annotations

import asyncio
import json
import signal
import time
import uuid
from collections import defaultdict
from pathlib import Path

import grpc
import psycopg
import pytest

from clients.client import Player, admin_replay, channel, play_seat
from qipai.v1 import game_pb2, ledger_pb2, ledger_pb2_grpc, matchmaking_pb2_grpc
from qipai.v1 import matchmaking_pb2 as pb
from services import auth
from services.live import open_live_state
from tests.e2e.conftest import Server, wait_healthy

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
WELCOME, STAKE = 1000, 100
# Short decisions, so that a dropped player's seat times out quickly and the test waits little.
FAST = {"turn_timeout_ms": 2000, "claim_timeout_ms": 1000, "claim_window_min_ms": 0}
ABANDON_S = 15  # a table nobody acts at closes this soon (the queue's, once its player left)


def _md(player: str, admin: bool = False) -> tuple[tuple[str, str], ...]:
    token, _ = auth.issue(SECRET, player, auth.ADMIN if admin else auth.PLAYER)
    return (("authorization", f"Bearer {token}"),)


def _player(chan: grpc.aio.Channel, player_id: str) -> Player:
    return Player(chan, auth.issue(SECRET, player_id, auth.PLAYER)[0], player_id)


def _queues(tmp_path: Path) -> str:
    path = tmp_path / "queues.toml"
    options = ", ".join(f"{k} = {v}" for k, v in FAST.items())
    path.write_text(f"""
[defaults]
bot_fill_after_s = 0.5
grace_s = 5
[rulesets.koudian.presets]
quick = {{ rounds_per_match = 1, {options} }}
[rulesets.koudian.tiers]
bronze = {{ stake = 1 }}
""")
    return str(path)


@pytest.fixture
def deployment(start_server, production_env, tmp_path):
    """Two game nodes, a matchmaker in front of each, and the ledger: each its own process."""
    env = {**production_env, "QIPAI_QUEUES_FILE": _queues(tmp_path),
           "QIPAI_LEDGER_WELCOME_CHIPS": str(WELCOME), "QIPAI_ABANDON_AFTER_S": str(ABANDON_S)}
    a = start_server({**env, "QIPAI_NODE_ID": "node-a"}, service="game", wait=False)
    b = start_server({**env, "QIPAI_NODE_ID": "node-b"}, service="game", wait=False)
    ledger = start_server({**env, "QIPAI_NODE_ID": "ledger"}, service="ledger", wait=False)
    mm1 = start_server({**env, "QIPAI_NODE_ID": "mm-1", "QIPAI_GAME_ADDR": a.address},
                       service="matchmaking", wait=False)
    mm2 = start_server({**env, "QIPAI_NODE_ID": "mm-2", "QIPAI_GAME_ADDR": b.address},
                       service="matchmaking", wait=False)
    for server in (a, b, ledger, mm1, mm2):
        wait_healthy(server.address, timeout=180)
    return {"a": a, "b": b, "ledger": ledger, "mm1": mm1, "mm2": mm2, "env": env}


async def _holder(env: dict[str, str], table_id: str) -> str | None:
    live = open_live_state(env["QIPAI_REDIS_URL"], namespace=env["QIPAI_LIVE_NAMESPACE"])
    try:
        holder = await live.lease_holder(table_id)
        return holder.node_id if holder else None
    finally:
        await live.close()


async def _check_in(ledger: ledger_pb2_grpc.LedgerStub, player: str) -> int:
    reply = await ledger.CheckIn(ledger_pb2.CheckInRequest(), metadata=_md(player), timeout=30)
    return int(reply.transfer.amount)


async def _paid(game_chan: grpc.aio.Channel, table_id: str) -> tuple[dict[str, int], list[str]]:
    """Chips each player's stack won or lost by the hands (from the table's log), and the
    table's events in order."""
    admin = Player(game_chan, auth.issue(SECRET, "operator", auth.ADMIN)[0], "operator")
    paid: dict[str, int] = defaultdict(int)
    types = []
    for step in await admin_replay(admin, table_id):
        types.append(step.type)
        if step.type == "table.HandSettled":
            for payment in json.loads(step.data_json)["payments"]:
                assert payment["payee_player"] and payment["payer_player"], payment
                paid[payment["payer_player"]] -= payment["chips"]
                paid[payment["payee_player"]] += payment["chips"]
    assert sum(paid.values()) == 0
    return paid, types


def _accounts(env: dict[str, str], pattern: str) -> dict[str, int]:
    base, _, schema = env["QIPAI_DATABASE_URL"].partition("?schema=")
    with psycopg.connect(base) as conn:
        rows = conn.execute(f'SELECT account, balance FROM "{schema}".ledger_accounts '
                            "WHERE account LIKE %s", (pattern,)).fetchall()
    return {a: int(b) for a, b in rows}


async def _settled(d: dict, table_id: str, expected: dict[str, int]) -> None:
    """The ledger has followed the table to its end: every seat account at 0, every player's
    balance as expected, the audit ok."""
    short = table_id.removeprefix("table-")
    deadline = time.monotonic() + 90
    while True:
        players = {a.removeprefix("player/"): b for a, b in _accounts(d["env"], "player/%").items()}
        seats = {a: b for a, b in _accounts(d["env"], "table/%").items() if short in a}
        got = {p: players.get(p) for p in expected}
        if (got == expected and seats and not any(seats.values())) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.3)
    assert seats and not any(seats.values()), f"chips left on the table: {seats}"
    assert got == expected
    async with channel(d["ledger"].address) as chan:
        report = await ledger_pb2_grpc.LedgerStub(chan).Audit(
            ledger_pb2.AuditRequest(), metadata=_md("operator", admin=True), timeout=60)
    assert report.ok, report


async def _room_journey(d: dict) -> None:
    a, b = d["a"], d["b"]
    names = [f"r{uuid.uuid4().hex[:6]}-{i}" for i in range(4)]
    async with channel(d["ledger"].address) as lchan, channel(d["mm1"].address) as m1, \
            channel(d["mm2"].address) as m2:
        ledger = ledger_pb2_grpc.LedgerStub(lchan)
        rewards = {p: await _check_in(ledger, p) for p in names}
        mm = [matchmaking_pb2_grpc.MatchmakingStub(m1), matchmaking_pb2_grpc.MatchmakingStub(m2)]
        options = pb.CreateRoomRequest().options
        options.update(FAST)
        room = await mm[0].CreateRoom(pb.CreateRoomRequest(ruleset="koudian", stake=STAKE, rounds=2,
                                                           options=options),
                                      metadata=_md(names[0]), timeout=30)
        for p in names[1:]:
            await mm[1].JoinRoom(pb.JoinRoomRequest(code=room.code), metadata=_md(p), timeout=30)
        for i, p in enumerate(names):
            await mm[i % 2].SetReady(pb.SetReadyRequest(code=room.code, ready=True),
                                     metadata=_md(p), timeout=30)
        watch = mm[1].WatchRoom(pb.RoomRequest(code=room.code), metadata=_md(names[1]), timeout=60)
        async for state in watch:
            if state.state == pb.ROOM_STATE_STARTED:
                table_id = state.table_id
                watch.cancel()
                break

    game_addrs = f"{a.address},{b.address}"
    async with channel(game_addrs) as gchan:
        players = [_player(gchan, p) for p in names]
        # One ready in the room is enough: the table deals its first hand by itself.
        deadline = time.monotonic() + 30
        while (await players[0].view(table_id)).status != "in_hand":
            assert time.monotonic() < deadline, "the room's table never dealt"
            await asyncio.sleep(0.1)

        acks: list[str] = []
        dropped, killed = asyncio.Event(), asyncio.Event()

        def on_ack(action_id: str, *_: object) -> None:
            acks.append(action_id)
            if len(acks) >= 6:
                dropped.set()

        async def drops_and_comes_back() -> None:
            await play_seat(players[3], table_id, seed=3, hands=1000, on_ack=on_ack, stop=dropped)
            await asyncio.sleep(3)  # away long enough for the server to play the seat
            async with channel(game_addrs) as again:
                await play_seat(_player(again, names[3]), table_id, seed=33, hands=1000)

        async def kills_the_holder() -> None:
            while len(acks) < 20:
                await asyncio.sleep(0.05)
            holder = await _holder(d["env"], table_id)
            victim: Server = a if holder == "node-a" else b
            victim.process.send_signal(signal.SIGKILL)
            victim.process.wait()
            killed.set()

        killing = asyncio.create_task(kills_the_holder())
        await asyncio.wait_for(asyncio.gather(
            *(play_seat(p, table_id, seed=i, hands=1000, on_ack=on_ack) for i, p in enumerate(players[:3])),
            drops_and_comes_back()), timeout=300)
        assert killed.is_set(), "the match ended before a node was killed"
        await killing
        assert (await players[0].view(table_id)).status == "match_over"
        paid, types = await _paid(gchan, table_id)
    # Every stack left is cashed out (one emptied by the hands has nothing to cash), then the
    # match's end is recorded (table.Closed); _settled checks that no chips stay on any seat.
    assert types.count("table.HandSettled") >= 1 and "table.Closed" in types
    await _settled(d, table_id, {p: WELCOME + rewards[p] + paid.get(p, 0) for p in names})


async def _queue_journey(d: dict) -> None:
    me = f"q{uuid.uuid4().hex[:6]}"
    async with channel(d["ledger"].address) as lchan, channel(d["mm2"].address) as mchan:
        reward = await _check_in(ledger_pb2_grpc.LedgerStub(lchan), me)
        stub = matchmaking_pb2_grpc.MatchmakingStub(mchan)
        tickets = [t async for t in stub.Queue(pb.QueueRequest(ruleset="koudian", preset="quick"),
                                               metadata=_md(me), timeout=60)]
    matched = tickets[-1]
    assert matched.state == pb.TICKET_STATE_MATCHED, matched
    table_id = matched.table_id
    async with channel(f"{d['a'].address},{d['b'].address}") as gchan:
        player = _player(gchan, me)
        await asyncio.wait_for(play_seat(player, table_id, hands=1), timeout=180)
        # The player leaves after a hand: the bots play on until the abandon policy closes the
        # table nobody acts at any more, and that end cashes every stack out too.
        await player.game.Leave(game_pb2.TableRequest(table_id=table_id), metadata=player.metadata)
        deadline = time.monotonic() + 120
        while "table.Closed" not in (types := (await _paid(gchan, table_id))[1]):
            assert time.monotonic() < deadline, "the table nobody acts at was never closed"
            await asyncio.sleep(1)
        paid, types = await _paid(gchan, table_id)
    assert types.count("table.HandSettled") >= 1 and "table.Closed" in types
    await _settled(d, table_id, {me: WELCOME + reward + paid.get(me, 0)})


def test_a_room_journey_checks_in_plays_through_a_drop_and_a_node_kill_and_cashes_out(deployment):
    asyncio.run(_room_journey(deployment))


def test_a_queue_journey_with_bots_deals_settles_and_cashes_out_when_the_table_is_abandoned(deployment):
    asyncio.run(_queue_journey(deployment))
