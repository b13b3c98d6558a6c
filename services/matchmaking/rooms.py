"""Private rooms with 6-digit invite codes (一键建房邀请熟人): create, join, lobby stream,
ready/kick/options, start, expiry. The servicer delegates every room RPC here; this module
translates protobuf to the room service (room_service.py) and back. A started room seats its
table with `Seating.seat_match` (seating.py); its members buy in through the ledger as at any
table.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from google.protobuf import struct_pb2

from engine.bots.levels import DEFAULT_LEVEL
from engine.chips import Stakes, split_options
from protocol import wire
from qipai.v1 import matchmaking_pb2 as pb
from services.auth import Identity
from services.config import Settings
from services.live import LiveState, open_live_state
from services.observability import log

from .game import PausedGame, SeatRefused
from .room import Room, RoomState
from .room_codes import share
from .room_config import room_settings
from .room_service import CannotSit, RoomService
from .room_store import open_room_store
from .seating import Seating

STATES = {RoomState.OPEN: pb.ROOM_STATE_OPEN, RoomState.STARTED: pb.ROOM_STATE_STARTED,
          RoomState.CLOSED: pb.ROOM_STATE_CLOSED}


def room_message(room: Room) -> pb.Room:
    """The room as the API shows it (a room whose table is being made is still open)."""
    options = struct_pb2.Struct()
    options.update(dict(room.settings.options))
    return pb.Room(
        code=room.code, share=share(room.code), ruleset=room.settings.ruleset, options=options,
        stake=room.settings.stake, rounds=room.settings.rounds, seats=room.settings.seats,
        members=[pb.RoomMember(player_id=m.player_id, seat=m.seat, ready=m.ready,
                               host=m.player_id == room.host)
                 for m in sorted(room.members, key=lambda m: m.seat)],
        state=STATES[room.state], table_id=room.table_id, expires_at_ms=room.expires_at_ms,
        closed_reason=room.closed_reason, version=room.version, auto_start=room.auto_start,
        starting=room.starting, bots=room.settings.bots)


def _options(request: Any) -> dict[str, Any]:
    return wire.options_from_struct(request.options) if request.HasField("options") else {}


class Rooms:
    """Every room RPC, for the caller `me` (`peer`: the caller's address, for rate limits)."""

    def __init__(self, seating: Seating, settings: Settings, clock_ms: Callable[[], int]) -> None:
        self.seating, self.settings, self.clock_ms = seating, settings, clock_ms
        # The rooms' own connections: rate limits in the live state, rooms in their store.
        self.live: LiveState = open_live_state(settings.redis_url, namespace=settings.live_namespace)
        store = open_room_store(settings.redis_url, settings.live_namespace, **(
            {} if settings.redis_url.startswith("memory://") else {"clock": clock_ms}))
        chosen = room_settings()
        if chosen.start_pause_ms:  # crash drills: see RoomSettings.start_pause_ms
            self.seating = Seating(PausedGame(seating.game, chosen.start_pause_ms / 1000))
        self.service = RoomService(store, self.live, self._seat, chosen, clock_ms)

    async def _seat(self, match_id: str, ruleset: str, options: Mapping[str, Any], stake: int,
                    players: Sequence[str | None], bots: str) -> str:
        """The room's table: its options, and each member buying in with the room's stake
        (0: a free table, where nobody buys in and no hand moves chips); bots of level `bots`
        in the seats nobody holds."""
        chips, rest = split_options(options)
        if stake:
            stakes = dataclasses.replace(chips, buy_in=stake)
        else:
            stakes = Stakes(stake=0, buy_in=0, score_minimisation=chips.score_minimisation)
        try:
            seated = await self.seating.seat_match(match_id, ruleset, rest, stakes, list(players),
                                                   bot_level=bots or DEFAULT_LEVEL)
        except SeatRefused as exc:
            raise CannotSit(f"{exc.player_id} cannot sit: {exc.detail}", exc.player_id) from None
        return seated.table_id

    async def run(self, stop: asyncio.Event) -> None:
        """Finish the starts whose matchmaker died, now and then, until `stop` is set. Nothing
        else runs in the background: a room expires when it is next read (a watcher reads it at
        its expiry), a new room may take an expired room's code, and the stores forget abandoned
        rooms by themselves (Redis key expiry; memory when rooms are created)."""
        every = min(1.0, self.service.lease_ms / 2000)
        while not stop.is_set():
            try:
                await self.service.recover_starts()
            except Exception as exc:  # the store away: try again next time
                log.warning("room_recovery_paused", error=repr(exc))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(every):
                    await stop.wait()

    async def close(self) -> None:
        await self.service.store.close()
        await self.live.close()

    async def create_room(self, me: Identity, request: pb.CreateRoomRequest, peer: str) -> pb.Room:
        auto_start = request.auto_start if request.HasField("auto_start") else True
        return room_message(await self.service.create(
            me.player_id, request.ruleset, _options(request), request.stake, request.rounds,
            auto_start, request.request_id, request.bots))

    async def join_room(self, me: Identity, request: pb.JoinRoomRequest, peer: str) -> pb.Room:
        return room_message(await self.service.join(me.player_id, request.code, peer))

    async def watch_room(self, me: Identity, request: pb.RoomRequest, peer: str) -> AsyncIterator[pb.Room]:
        async for room in self.service.watch(me.player_id, request.code, peer):
            yield room_message(room)

    async def set_ready(self, me: Identity, request: pb.SetReadyRequest) -> pb.Room:
        return room_message(await self.service.set_ready(me.player_id, request.code, request.ready))

    async def kick(self, me: Identity, request: pb.KickRequest) -> pb.Room:
        return room_message(await self.service.kick(me.player_id, request.code, request.player_id))

    async def change_room(self, me: Identity, request: pb.ChangeRoomRequest) -> pb.Room:
        return room_message(await self.service.change(
            me.player_id, request.code,
            _options(request) if request.HasField("options") else None,
            request.stake if request.HasField("stake") else None,
            request.rounds if request.HasField("rounds") else None,
            request.bots if request.HasField("bots") else None))

    async def start_room(self, me: Identity, request: pb.RoomRequest) -> pb.Room:
        return room_message(await self.service.start(me.player_id, request.code))

    async def leave_room(self, me: Identity, request: pb.RoomRequest) -> pb.Room:
        return room_message(await self.service.leave(me.player_id, request.code))
