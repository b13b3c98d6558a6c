"""Private rooms at their edges, over gRPC against `qipai serve` (embedded default): stake 0 is
a free room (练习场) where no chips move, the stake's range named when it is wrong, and a kick
that names nobody or a stranger."""

from __future__ import annotations

import grpc
import pytest

from clients import rooms
from clients.client import Player, channel
from qipai.v1 import ledger_pb2, ledger_pb2_grpc, matchmaking_pb2, matchmaking_pb2_grpc

pytestmark = pytest.mark.e2e


async def _balance(player: Player) -> int:
    reply = await ledger_pb2_grpc.LedgerStub(player.chan).GetBalance(
        ledger_pb2.GetBalanceRequest(), metadata=player.metadata)
    return int(reply.balance)


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


async def test_a_free_room_starts_its_table_and_moves_no_chips(start_server):
    server = start_server()
    async with channel(server.address) as chan:
        players = [await Player.guest(chan, name) for name in ("ann", "bob", "cy", "dee")]
        before = [await _balance(p) for p in players]
        room = await rooms.create_room(players[0], "koudian", stake=0)
        assert room.stake == 0
        for p in players[1:]:
            await rooms.join_room(p, room.code)
        for p in players:
            room = await rooms.set_ready(p, room.code)
        assert room.state == matchmaking_pb2.ROOM_STATE_STARTED and room.table_id
        assert [await _balance(p) for p in players] == before  # nobody bought in

        chips = await refused(rooms.create_room(players[0], "koudian", {"stake": 5}, stake=0))
        assert chips.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "free room (stake 0) moves no chips" in chips.details()
        negative = await refused(rooms.create_room(players[0], "koudian", stake=-5))
        assert negative.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "from 0 (a free room: no chips move) to" in negative.details()


async def test_a_kick_must_name_a_member(start_server):
    server = start_server()
    async with channel(server.address) as chan:
        ann, bob = Player.guest(chan, "ann"), Player.guest(chan, "bob")
        ann, bob = await ann, await bob
        room = await rooms.create_room(ann, "wuhan", stake=10)
        await rooms.join_room(bob, room.code)
        nobody = await refused(rooms.kick(ann, room.code, ""))
        assert nobody.code() == grpc.StatusCode.INVALID_ARGUMENT and "name the member" in nobody.details()
        long = await refused(rooms.kick(ann, room.code, "z" * 1000))
        assert long.code() == grpc.StatusCode.INVALID_ARGUMENT and "at most 64" in long.details()
        stranger = await refused(rooms.kick(ann, room.code, "zed"))
        assert stranger.code() == grpc.StatusCode.NOT_FOUND and "nobody to kick" in stranger.details()
        assert [m.player_id for m in (await rooms.kick(ann, room.code, bob.player_id)).members] == [
            ann.player_id]


async def test_a_member_seated_at_a_rooms_table_cannot_queue_for_a_public_one(start_server):
    server = start_server()
    async with channel(server.address) as chan:
        players = [await Player.guest(chan, name) for name in ("ann", "bob", "cy", "dee")]
        room = await rooms.create_room(players[0], "koudian", stake=10)
        for p in players[1:]:
            await rooms.join_room(p, room.code)
        for p in players:
            room = await rooms.set_ready(p, room.code)
        assert room.state == matchmaking_pb2.ROOM_STATE_STARTED
        stub = matchmaking_pb2_grpc.MatchmakingStub(chan)
        stream = stub.Queue(matchmaking_pb2.QueueRequest(ruleset="koudian"), metadata=players[1].metadata)
        seated = await refused(stream.read())
        assert seated.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert f"you sit at table {room.table_id}" in seated.details()
