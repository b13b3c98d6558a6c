"""One live table at a time, over gRPC in real `qipai serve` processes: a player the matchmaker
seated (a public match, a room's start) cannot create or join another room, nor be seated by
another room's start, until they leave that table (or its match ends). On the embedded default
(one process) and on Postgres + Redis with two matchmaker processes: the player is seated
through one and refused by the other."""

from __future__ import annotations

import uuid
from pathlib import Path

import grpc
import pytest

from clients import rooms
from clients.client import Player, channel
from qipai.v1 import game_pb2, matchmaking_pb2, matchmaking_pb2_grpc
from tests.e2e.conftest import wait_healthy
from tests.e2e.test_matchmaking import queues_file

pytestmark = pytest.mark.e2e

OPEN, STARTED = matchmaking_pb2.ROOM_STATE_OPEN, matchmaking_pb2.ROOM_STATE_STARTED


@pytest.fixture(params=["embedded", "production"])
def addresses(request: pytest.FixtureRequest, start_server, tmp_path: Path) -> tuple[str, str]:
    """Two matchmaker addresses of one deployment (embedded: one process is the deployment).
    Queues seat a lone player with bots at once."""
    env = {"QIPAI_QUEUES_FILE": queues_file(tmp_path, bot_fill_after_s=0.2, grace_s=600)}
    if request.param == "embedded":
        server = start_server(env)
        return server.address, server.address
    env.update(request.getfixturevalue("production_env"))
    servers = [start_server({**env, "QIPAI_NODE_ID": f"node{n}-{uuid.uuid4().hex[:4]}"}, wait=False)
               for n in range(2)]
    for server in servers:
        wait_healthy(server.address, timeout=120)
    return servers[0].address, servers[1].address


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


def on(player: Player, chan: grpc.aio.Channel) -> Player:
    """The same player, calling another matchmaker process."""
    return Player(chan, player.token, player.player_id)


async def matched(player: Player) -> str:
    """Queue `player` for koudian; the table the matchmaker seats them at (with bots)."""
    stream = matchmaking_pb2_grpc.MatchmakingStub(player.chan).Queue(
        matchmaking_pb2.QueueRequest(ruleset="koudian"), metadata=player.metadata, timeout=30)
    async for ticket in stream:
        if ticket.state == matchmaking_pb2.TICKET_STATE_MATCHED:
            return str(ticket.table_id)
    raise AssertionError("the ticket was not matched")


async def leave_table(player: Player, table_id: str) -> None:
    await player.game.Leave(game_pb2.TableRequest(table_id=table_id, request_id=uuid.uuid4().hex),
                            metadata=player.metadata)


async def started_room(players: list[Player]) -> matchmaking_pb2.Room:
    room = await rooms.create_room(players[0], "koudian", stake=10)
    for p in players[1:]:
        await rooms.join_room(p, room.code)
    for p in players:
        room = await rooms.set_ready(p, room.code)
    assert room.state == STARTED
    return room


async def test_a_player_matched_by_a_public_queue_cannot_create_or_join_a_room_till_they_leave(addresses):
    a, b = addresses
    async with channel(a) as chan_a, channel(b) as chan_b:
        ann = await Player.guest(chan_a, "ann")
        eve = await Player.guest(chan_b, "eve")
        table_id = await matched(ann)
        room = await rooms.create_room(eve, "koudian", stake=10)
        create = await refused(rooms.create_room(on(ann, chan_b), "koudian", stake=10))
        assert create.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert create.details() == (f"you sit at table {table_id}, whose match is not over: "
                                    f"finish it or leave it before creating a room")
        join = await refused(rooms.join_room(on(ann, chan_b), room.code))
        assert join.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert join.details().endswith("finish it or leave it before joining a room")
        await leave_table(ann, table_id)
        joined = await rooms.join_room(on(ann, chan_b), room.code)
        assert [m.player_id for m in joined.members] == [eve.player_id, ann.player_id]


async def test_a_member_at_a_rooms_table_cannot_create_or_join_another_room(addresses):
    a, b = addresses
    async with channel(a) as chan_a, channel(b) as chan_b:
        players = [await Player.guest(chan_a, name) for name in ("ann", "bob", "cy", "dee")]
        room = await started_room(players)
        eve = await Player.guest(chan_b, "eve")
        other = await rooms.create_room(eve, "koudian", stake=10)
        create = await refused(rooms.create_room(on(players[2], chan_b), "koudian", stake=10))
        assert create.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert f"you sit at table {room.table_id}, whose match is not over" in create.details()
        join = await refused(rooms.join_room(on(players[3], chan_b), other.code))
        assert join.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "before joining a room" in join.details()
        # Their own room again is no second table.
        again = await rooms.join_room(on(players[3], chan_b), room.code)
        assert (again.state, again.table_id) == (STARTED, room.table_id)


async def test_a_room_does_not_start_while_a_member_sits_at_a_public_table(addresses):
    a, b = addresses
    async with channel(a) as chan_a, channel(b) as chan_b:
        players = [await Player.guest(chan_a, name) for name in ("ann", "bob", "cy", "dee")]
        room = await rooms.create_room(players[0], "koudian", stake=10)
        for p in players[1:]:
            await rooms.join_room(p, room.code)
        for p in players[:3]:
            await rooms.set_ready(p, room.code)
        dee = on(players[3], chan_b)
        table_id = await matched(dee)  # a lobby is no table: dee may queue meanwhile
        start = await refused(rooms.set_ready(players[3], room.code))
        assert start.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert start.details() == (f"{dee.player_id} sits at table {table_id}, whose match is not "
                                   f"over: room {room.code} starts once they finish it or leave "
                                   f"it and are ready again")
        lobby = rooms.watch_room(players[0], room.code)
        held = await anext(lobby)
        await lobby.aclose()
        assert held.state == OPEN and not held.starting
        assert [(m.player_id, m.ready) for m in held.members if not m.ready] == [(dee.player_id, False)]
        await leave_table(dee, table_id)
        started = await rooms.set_ready(players[3], room.code)
        assert started.state == STARTED
