"""The Matchmaking gRPC servicer: translation and checks only. Queues, tickets and profiles go
to the matchmaker (queues.py) and the ratings; every room RPC goes to rooms.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import structlog

from protocol import wire
from qipai.v1 import matchmaking_pb2 as pb
from qipai.v1 import matchmaking_pb2_grpc
from services import auth
from services.client_address import ClientAddress
from services.errors import Forbidden, TooManyRequests
from services.ratelimit import RateLimiter
from services.status import streaming, unary

from .queues import Matchmaker
from .ratings import Ratings
from .rooms import Rooms
from .tickets import CANCELLED, MATCHED, SEARCHING, Ticket

RATE_LIMIT = 20  # calls per player per second
MAX_NAME = 64

STATES = {SEARCHING: pb.TICKET_STATE_SEARCHING, MATCHED: pb.TICKET_STATE_MATCHED,
          CANCELLED: pb.TICKET_STATE_CANCELLED}


def ticket_message(ticket: Ticket, position: int = 0, estimated_wait_ms: int = 0) -> pb.Ticket:
    """A ticket as the API shows it (a ticket being seated is still searching)."""
    return pb.Ticket(
        ticket_id=ticket.ticket_id, player_id=ticket.player_id, queue=ticket.queue,
        state=STATES.get(ticket.state, pb.TICKET_STATE_SEARCHING), created_at_ms=ticket.created_ms,
        position=position, estimated_wait_ms=estimated_wait_ms, match_id=ticket.match_id,
        table_id=ticket.table_id, seat=ticket.seat if ticket.state == MATCHED else 0,
        cancel_reason=ticket.cancel_reason, cancel_detail=ticket.cancel_detail)


def _name(value: str, what: str) -> str:
    if len(value) > MAX_NAME or not value.isprintable():
        raise wire.BadRequest(f"{what} is at most {MAX_NAME} printable characters")
    return value


class MatchmakingServicer(matchmaking_pb2_grpc.MatchmakingServicer):
    def __init__(self, matchmaker: Matchmaker, rooms: Rooms, ratings: Ratings,
                 client_address: ClientAddress | None = None) -> None:
        self.matchmaker, self.rooms, self.ratings = matchmaker, rooms, ratings
        self.client_address = client_address or ClientAddress()
        self.limiter = RateLimiter(RATE_LIMIT, RATE_LIMIT)

    def _caller(self) -> auth.Identity:
        me = auth.current()
        structlog.contextvars.bind_contextvars(player_id=me.player_id)
        if not self.limiter.allow(me.player_id):
            raise TooManyRequests("too many requests: slow down")
        return me

    # -- public queues -------------------------------------------------------------------

    @streaming
    async def Queue(self, request: pb.QueueRequest, context: Any) -> AsyncIterator[pb.Ticket]:
        me = self._caller()
        if me.is_admin:
            raise Forbidden("operators do not queue; log in as a player")
        ticket = await self.matchmaker.queue(
            me.player_id, _name(request.ruleset, "ruleset"), _name(request.preset, "preset"),
            _name(request.tier, "tier"))
        async for current, position, wait_ms in self.matchmaker.follow(ticket):
            yield ticket_message(current, position, wait_ms)

    @unary
    async def Cancel(self, request: pb.CancelRequest, context: Any) -> pb.Ticket:
        me = self._caller()
        ticket = await self.matchmaker.cancel(me.player_id, _name(request.ticket_id, "ticket_id"))
        return ticket_message(ticket) if ticket is not None else pb.Ticket(
            player_id=me.player_id, state=pb.TICKET_STATE_CANCELLED, cancel_reason="no_ticket")

    @unary
    async def GetTicket(self, request: pb.GetTicketRequest, context: Any) -> pb.Ticket:
        me = self._caller()
        ticket = await self.matchmaker.own(me.player_id, _name(request.ticket_id, "ticket_id"),
                                           admin=me.is_admin)
        position = await self.matchmaker.store.position(ticket)
        return ticket_message(ticket, position,
                              await self.matchmaker.estimated_wait_ms(ticket, self.matchmaker.clock_ms()))

    @unary
    async def ListQueues(self, request: pb.ListQueuesRequest, context: Any) -> pb.ListQueuesResponse:
        me = self._caller()
        if not me.is_admin:
            raise Forbidden("ListQueues is for operators")
        return pb.ListQueuesResponse(queues=[
            pb.QueueInfo(queue=name, searching=searching, oldest_wait_ms=oldest, matches=matches,
                         median_wait_ms=median)
            for name, searching, oldest, matches, median in await self.matchmaker.list_queues()])

    @unary
    async def GetProfile(self, request: pb.GetProfileRequest, context: Any) -> pb.Profile:
        me = self._caller()
        player_id = _name(request.player_id, "player_id") or me.player_id
        return pb.Profile(player_id=player_id, ratings=[
            pb.Rating(ruleset=ruleset, rating=rating, hands=hands)
            for ruleset, rating, hands in await self.ratings.profile(player_id)])

    # -- private rooms (rooms.py) --------------------------------------------------------

    @unary
    async def CreateRoom(self, request: pb.CreateRoomRequest, context: Any) -> pb.Room:
        return await self.rooms.create_room(self._caller(), request, self.client_address.of(context))

    @unary
    async def JoinRoom(self, request: pb.JoinRoomRequest, context: Any) -> pb.Room:
        return await self.rooms.join_room(self._caller(), request, self.client_address.of(context))

    @streaming
    async def WatchRoom(self, request: pb.RoomRequest, context: Any) -> AsyncIterator[pb.Room]:
        # Counted per address too: a room code's answer (NOT_FOUND or PERMISSION_DENIED) tells
        # a live code from a free one, as a join's does.
        async for room in self.rooms.watch_room(self._caller(), request, self.client_address.of(context)):
            yield room

    @unary
    async def SetReady(self, request: pb.SetReadyRequest, context: Any) -> pb.Room:
        return await self.rooms.set_ready(self._caller(), request)

    @unary
    async def Kick(self, request: pb.KickRequest, context: Any) -> pb.Room:
        me = self._caller()
        if not _name(request.player_id, "player_id"):
            raise wire.BadRequest("player_id: name the member to kick")
        return await self.rooms.kick(me, request)

    @unary
    async def ChangeRoom(self, request: pb.ChangeRoomRequest, context: Any) -> pb.Room:
        return await self.rooms.change_room(self._caller(), request)

    @unary
    async def StartRoom(self, request: pb.RoomRequest, context: Any) -> pb.Room:
        return await self.rooms.start_room(self._caller(), request)

    @unary
    async def LeaveRoom(self, request: pb.RoomRequest, context: Any) -> pb.Room:
        return await self.rooms.leave_room(self._caller(), request)


def register(server: grpc.aio.Server, servicer: MatchmakingServicer) -> None:
    matchmaking_pb2_grpc.add_MatchmakingServicer_to_server(servicer, server)
