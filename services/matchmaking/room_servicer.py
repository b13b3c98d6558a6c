"""The room RPCs of the Matchmaking servicer: protobuf in and out, the room service does the work.

`RoomRpcs` is a mixin: the Matchmaking servicer (services/matchmaking/servicer.py) inherits it
and sets `self.rooms`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from google.protobuf import struct_pb2

from protocol import wire
from qipai.v1 import matchmaking_pb2
from services import auth
from services.matchmaking.room import Room, RoomState
from services.matchmaking.room_codes import share
from services.matchmaking.rooms import RoomService
from services.status import streaming, unary

STATES = {RoomState.OPEN: matchmaking_pb2.ROOM_STATE_OPEN,
          RoomState.STARTED: matchmaking_pb2.ROOM_STATE_STARTED,
          RoomState.CLOSED: matchmaking_pb2.ROOM_STATE_CLOSED}


def room_message(room: Room) -> matchmaking_pb2.Room:
    """The room as the API shows it (a room being made into a table is still open)."""
    options = struct_pb2.Struct()
    options.update(dict(room.settings.options))
    return matchmaking_pb2.Room(
        code=room.code, share=share(room.code), ruleset=room.settings.ruleset, options=options,
        stake=room.settings.stake, rounds=room.settings.rounds, seats=room.settings.seats,
        members=[matchmaking_pb2.RoomMember(player_id=m.player_id, seat=m.seat, ready=m.ready,
                                            host=m.player_id == room.host)
                 for m in sorted(room.members, key=lambda m: m.seat)],
        state=STATES[room.state], table_id=room.table_id, expires_at_ms=room.expires_at_ms,
        closed_reason=room.closed_reason, version=room.version, auto_start=room.auto_start)


def peer_address(context: Any) -> str:
    """The caller's address without its port (`ipv4:1.2.3.4:5678` -> `ipv4:1.2.3.4`)."""
    peer = str(context.peer() or "unknown")
    return peer.rpartition(":")[0] if peer.count(":") > 1 else peer


def _options(request: Any) -> dict[str, Any]:
    return wire.options_from_struct(request.options) if request.HasField("options") else {}


class RoomRpcs:
    """CreateRoom, JoinRoom, WatchRoom, SetReady, Kick, ChangeRoom, StartRoom, LeaveRoom."""

    rooms: RoomService

    @unary
    async def CreateRoom(self, request: matchmaking_pb2.CreateRoomRequest, context: Any) -> matchmaking_pb2.Room:
        me = auth.current()
        auto_start = request.auto_start if request.HasField("auto_start") else True
        room = await self.rooms.create(me.player_id, request.ruleset, _options(request), request.stake,
                                       request.rounds, auto_start, request.request_id)
        return room_message(room)

    @unary
    async def JoinRoom(self, request: matchmaking_pb2.JoinRoomRequest, context: Any) -> matchmaking_pb2.Room:
        room = await self.rooms.join(auth.current().player_id, request.code, peer_address(context))
        return room_message(room)

    @streaming
    async def WatchRoom(self, request: matchmaking_pb2.RoomRequest, context: Any) -> AsyncIterator[matchmaking_pb2.Room]:
        async for room in self.rooms.watch(auth.current().player_id, request.code, peer_address(context)):
            yield room_message(room)

    @unary
    async def SetReady(self, request: matchmaking_pb2.SetReadyRequest, context: Any) -> matchmaking_pb2.Room:
        return room_message(await self.rooms.set_ready(auth.current().player_id, request.code, request.ready))

    @unary
    async def Kick(self, request: matchmaking_pb2.KickRequest, context: Any) -> matchmaking_pb2.Room:
        return room_message(await self.rooms.kick(auth.current().player_id, request.code, request.player_id))

    @unary
    async def ChangeRoom(self, request: matchmaking_pb2.ChangeRoomRequest, context: Any) -> matchmaking_pb2.Room:
        room = await self.rooms.change(
            auth.current().player_id, request.code,
            _options(request) if request.HasField("options") else None,
            request.stake if request.HasField("stake") else None,
            request.rounds if request.HasField("rounds") else None)
        return room_message(room)

    @unary
    async def StartRoom(self, request: matchmaking_pb2.RoomRequest, context: Any) -> matchmaking_pb2.Room:
        return room_message(await self.rooms.start(auth.current().player_id, request.code))

    @unary
    async def LeaveRoom(self, request: matchmaking_pb2.RoomRequest, context: Any) -> matchmaking_pb2.Room:
        return room_message(await self.rooms.leave(auth.current().player_id, request.code))
