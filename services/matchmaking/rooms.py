"""Private rooms with 6-digit invite codes (一键建房邀请熟人): create, join, lobby stream,
ready/kick/options, start, expiry. Owned by the mm-rooms branch; the servicer delegates every
room RPC here. A started room seats its table with `Seating.seat_match` (seating.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from qipai.v1 import matchmaking_pb2 as pb
from services.auth import Identity
from services.config import Settings
from services.errors import NotImplementedYet

from .seating import Seating


def _unimplemented(what: str) -> NotImplementedYet:
    return NotImplementedYet(f"{what}: private rooms are not implemented yet")


class Rooms:
    """Every room RPC, for the caller `me` (`peer`: the caller's address, for rate limits)."""

    def __init__(self, seating: Seating, settings: Settings, clock_ms: Callable[[], int]) -> None:
        self.seating, self.settings, self.clock_ms = seating, settings, clock_ms

    async def run(self, stop: asyncio.Event) -> None:
        """Background work (expiring rooms) until `stop` is set."""
        await stop.wait()

    async def close(self) -> None:
        pass

    async def create_room(self, me: Identity, request: pb.CreateRoomRequest, peer: str) -> pb.Room:
        raise _unimplemented("CreateRoom")

    async def join_room(self, me: Identity, request: pb.JoinRoomRequest, peer: str) -> pb.Room:
        raise _unimplemented("JoinRoom")

    async def watch_room(self, me: Identity, request: pb.RoomRequest) -> AsyncIterator[pb.Room]:
        raise _unimplemented("WatchRoom")
        yield pb.Room()  # pragma: no cover - makes this an async generator

    async def set_ready(self, me: Identity, request: pb.SetReadyRequest) -> pb.Room:
        raise _unimplemented("SetReady")

    async def kick(self, me: Identity, request: pb.KickRequest) -> pb.Room:
        raise _unimplemented("Kick")

    async def change_room(self, me: Identity, request: pb.ChangeRoomRequest) -> pb.Room:
        raise _unimplemented("ChangeRoom")

    async def start_room(self, me: Identity, request: pb.RoomRequest) -> pb.Room:
        raise _unimplemented("StartRoom")

    async def leave_room(self, me: Identity, request: pb.RoomRequest) -> pb.Room:
        raise _unimplemented("LeaveRoom")
