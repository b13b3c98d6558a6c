"""A player's calls to private rooms (the Matchmaking service's room RPCs)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from google.protobuf import struct_pb2

from clients.client import Player
from qipai.v1 import matchmaking_pb2, matchmaking_pb2_grpc


def _stub(player: Player) -> matchmaking_pb2_grpc.MatchmakingStub:
    return matchmaking_pb2_grpc.MatchmakingStub(player.chan)


async def create_room(player: Player, ruleset: str, options: dict[str, Any] | None = None,
                      stake: int = 0, rounds: int = 0, auto_start: bool = True,
                      bots: str = "") -> matchmaking_pb2.Room:
    """A new room with `player` as host in the first seat; `bots`, a level, fills the seats
    nobody holds at the start with bots (a practice room)."""
    struct = struct_pb2.Struct()
    struct.update(options or {})
    request = matchmaking_pb2.CreateRoomRequest(ruleset=ruleset, options=struct, stake=stake, rounds=rounds,
                                                request_id=uuid.uuid4().hex, auto_start=auto_start,
                                                bots=bots)
    reply: matchmaking_pb2.Room = await _stub(player).CreateRoom(request, metadata=player.metadata)
    return reply


async def join_room(player: Player, code: str) -> matchmaking_pb2.Room:
    """Take a seat in the room with this code (or share string)."""
    reply: matchmaking_pb2.Room = await _stub(player).JoinRoom(
        matchmaking_pb2.JoinRoomRequest(code=code), metadata=player.metadata)
    return reply


async def set_ready(player: Player, code: str, ready: bool = True) -> matchmaking_pb2.Room:
    reply: matchmaking_pb2.Room = await _stub(player).SetReady(
        matchmaking_pb2.SetReadyRequest(code=code, ready=ready), metadata=player.metadata)
    return reply


async def start_room(player: Player, code: str) -> matchmaking_pb2.Room:
    reply: matchmaking_pb2.Room = await _stub(player).StartRoom(
        matchmaking_pb2.RoomRequest(code=code), metadata=player.metadata)
    return reply


async def leave_room(player: Player, code: str) -> matchmaking_pb2.Room:
    reply: matchmaking_pb2.Room = await _stub(player).LeaveRoom(
        matchmaking_pb2.RoomRequest(code=code), metadata=player.metadata)
    return reply


async def kick(player: Player, code: str, player_id: str) -> matchmaking_pb2.Room:
    reply: matchmaking_pb2.Room = await _stub(player).Kick(
        matchmaking_pb2.KickRequest(code=code, player_id=player_id), metadata=player.metadata)
    return reply


async def change_room(player: Player, code: str, options: dict[str, Any] | None = None,
                      stake: int | None = None, rounds: int | None = None) -> matchmaking_pb2.Room:
    request = matchmaking_pb2.ChangeRoomRequest(code=code, stake=stake, rounds=rounds)
    if options is not None:
        request.options.update(options)
    reply: matchmaking_pb2.Room = await _stub(player).ChangeRoom(request, metadata=player.metadata)
    return reply


async def watch_room(player: Player, code: str) -> AsyncIterator[matchmaking_pb2.Room]:
    """The room, then every change, until it starts or closes (or the player is kicked)."""
    async for room in _stub(player).WatchRoom(matchmaking_pb2.RoomRequest(code=code),
                                              metadata=player.metadata):
        yield room


def describe(room: matchmaking_pb2.Room, lang: str = "en") -> str:
    """One line for the terminal: the code, who sits where and who is ready (`lang` zh: in
    Chinese)."""
    seats = {m.seat: m for m in room.members}
    shown = []
    for seat in range(room.seats):
        m = seats.get(seat)
        shown.append("-" if m is None else f"{m.player_id}{'*' if m.host else ''}{' ✓' if m.ready else ''}")
    if lang == "zh":
        return f"房间 {room.code}（{room.ruleset}，买入 {room.stake} 筹码）：" + " | ".join(shown)
    return f"room {room.code} ({room.ruleset}, stake {room.stake}): " + " | ".join(shown)
