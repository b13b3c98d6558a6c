"""The game service as the matchmaker sees it: create a table, seat a player or a bot, stand a
player up, and whether a player still sits at an unfinished table.

Two ways to reach it, one interface. `InProcessGame` calls the table service of this process
(`make run`, `--service all`). `GrpcGame` calls a game service elsewhere (QIPAI_GAME_ADDR): the
matchmaker signs, with the shared token key, an operator token for itself (it creates tables
and seats bots) and short-lived player tokens to seat each player, so a seat's buy-in goes
through the game's own Join exactly as if the player had sat down. Every call carries an id
derived from the match, so a retry (or another matchmaker re-running a match whose process
died) applies it once.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

import grpc
from google.protobuf import struct_pb2

from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.table import Leave, Sit
from services import auth
from services.errors import Refused, Unavailable
from services.game.repository import requested_table_id
from services.game.reservations import MATCHMAKER
from services.game.tables import TableService

__all__ = ["MATCHMAKER", "GameGateway", "GameUnavailable", "GrpcGame", "InProcessGame", "PausedGame",
           "SeatRefused", "match_table_id"]

PLAYER_TOKEN_TTL_S = 300
SEATED_ELSEWHERE = "seated_elsewhere"  # the game's refusal: the player holds another live table


class SeatRefused(Refused):
    """The game would not seat a player (`reason`: insufficient_chips, or the rule's code)."""

    def __init__(self, player_id: str, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.player_id, self.reason, self.detail = player_id, reason, detail


class GameUnavailable(Unavailable):
    """The game service did not answer; the match is retried."""


def match_table_id(key: str, match_id: str) -> str:
    """The table of a match: the id the game derives from the matchmaker's request id (with
    the token key both share)."""
    return requested_table_id(key, MATCHMAKER, match_id)


class GameGateway(Protocol):
    def table_id(self, match_id: str) -> str:
        """The match's table's id, whether or not it was made yet."""
        ...

    async def create_table(self, match_id: str, ruleset: str, options: dict[str, Any]) -> str:
        """The match's table (created once, whatever the retries), private: only its players
        and operators may look at it; returns its id."""
        ...

    async def sit(self, table_id: str, player_id: str, seat: int, request_id: str, *,
                  bot: bool = False) -> None:
        """Seat `player_id` at `seat` (a human buys in; SeatRefused when they cannot)."""
        ...

    async def ready(self, table_id: str, player_id: str, request_id: str) -> None:
        """`player_id` is ready for the first hand (they said so in the room, or by queueing);
        nothing when they no longer sit there."""
        ...

    async def leave(self, table_id: str, player_id: str, request_id: str) -> None:
        """Stand `player_id` up (their stack goes back); nothing when not seated."""
        ...

    async def seated(self, table_id: str, player_id: str) -> bool:
        """Whether `player_id` sits at `table_id` and its match is not over."""
        ...


class InProcessGame:
    """The table service of this very process."""

    def __init__(self, tables: TableService) -> None:
        self.tables = tables

    def table_id(self, match_id: str) -> str:
        return match_table_id(self.tables.id_key, match_id)

    async def create_table(self, match_id: str, ruleset: str, options: dict[str, Any]) -> str:
        table_id = self.table_id(match_id)
        await self.tables.create(ruleset, options, MATCHMAKER, private=True,
                                 command_id=f"{MATCHMAKER}:{match_id}", table_id=table_id)
        return table_id

    async def sit(self, table_id: str, player_id: str, seat: int, request_id: str, *,
                  bot: bool = False) -> None:
        actor = MATCHMAKER if bot else player_id
        try:
            await self.tables.execute(table_id, Sit(player_id, seat, bot=bot),
                                      command_id=f"{actor}:{request_id}", actor=actor)
        except RuleViolation as exc:
            raise SeatRefused(player_id, exc.code, exc.message) from None
        except Refused as exc:  # the ledger: not enough chips
            raise SeatRefused(player_id, "insufficient_chips", str(exc)) from None

    async def ready(self, table_id: str, player_id: str, request_id: str) -> None:
        try:
            await self.tables.ready(table_id, player_id, command_id=f"{player_id}:{request_id}")
        except RuleViolation:
            pass  # stood up meanwhile: nothing to be ready for

    async def leave(self, table_id: str, player_id: str, request_id: str) -> None:
        try:
            await self.tables.execute(table_id, Leave(player_id),
                                      command_id=f"{player_id}:{request_id}", actor=player_id)
        except RuleViolation:
            pass  # not seated (any more): nothing to give back

    async def seated(self, table_id: str, player_id: str) -> bool:
        table = self.tables.repository.cached(table_id)
        if table is None or table_id not in self.tables.leases.held:
            # Another node may serve it (and have written since this node last looked): only
            # the store is current then. Read, not loaded, so this node caches no copy that
            # would go stale (a player who stood up there would stay "seated" here).
            table = await self.tables.repository.read(table_id)
        if not table.exists:
            return False
        return table.status is not Status.MATCH_OVER and table.seat_of(player_id) is not None


class PausedGame:
    """Another gateway, with a pause before and after every call: crash drills kill the
    matchmaker between two steps of a start (QIPAI_ROOM_START_PAUSE_MS; never in production)."""

    def __init__(self, game: GameGateway, pause_s: float) -> None:
        self.game, self.pause_s = game, pause_s

    def table_id(self, match_id: str) -> str:
        return self.game.table_id(match_id)

    async def create_table(self, match_id: str, ruleset: str, options: dict[str, Any]) -> str:
        await asyncio.sleep(self.pause_s)
        table_id = await self.game.create_table(match_id, ruleset, options)
        await asyncio.sleep(self.pause_s)
        return table_id

    async def sit(self, table_id: str, player_id: str, seat: int, request_id: str, *,
                  bot: bool = False) -> None:
        await asyncio.sleep(self.pause_s)
        await self.game.sit(table_id, player_id, seat, request_id, bot=bot)
        await asyncio.sleep(self.pause_s)

    async def ready(self, table_id: str, player_id: str, request_id: str) -> None:
        await self.game.ready(table_id, player_id, request_id)

    async def leave(self, table_id: str, player_id: str, request_id: str) -> None:
        await self.game.leave(table_id, player_id, request_id)

    async def seated(self, table_id: str, player_id: str) -> bool:
        return await self.game.seated(table_id, player_id)


class GrpcGame:
    """A game service reached over gRPC at `address`, with tokens signed by `secret`."""

    def __init__(self, address: str, secret: str) -> None:
        from qipai.v1 import game_pb2_grpc

        self.address, self.secret = address, secret
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = game_pb2_grpc.GameStub(self.channel)
        self._admin: tuple[str, int] | None = None

    def table_id(self, match_id: str) -> str:
        return match_table_id(self.secret, match_id)

    def _token(self, player_id: str, role: str = auth.PLAYER) -> list[tuple[str, str]]:
        token, _ = auth.issue(self.secret, player_id, role, ttl_s=PLAYER_TOKEN_TTL_S)
        return [("authorization", f"Bearer {token}")]

    async def create_table(self, match_id: str, ruleset: str, options: dict[str, Any]) -> str:
        from qipai.v1 import game_pb2

        struct = struct_pb2.Struct()
        struct.update(options)
        reply = await self._call(self.stub.CreateTable, game_pb2.CreateTableRequest(
            ruleset=ruleset, options=struct, request_id=match_id), self._token(MATCHMAKER, auth.ADMIN))
        return str(reply.table_id)

    async def sit(self, table_id: str, player_id: str, seat: int, request_id: str, *,
                  bot: bool = False) -> None:
        from qipai.v1 import game_pb2

        if bot:
            request = game_pb2.JoinRequest(table_id=table_id, seat=seat, request_id=request_id,
                                           bot_id=player_id)
            metadata = self._token(MATCHMAKER, auth.ADMIN)
        else:
            request = game_pb2.JoinRequest(table_id=table_id, seat=seat, request_id=request_id)
            metadata = self._token(player_id)
        try:
            await self._call(self.stub.Join, request, metadata)
        except grpc.aio.AioRpcError as exc:
            if exc.code() is grpc.StatusCode.FAILED_PRECONDITION:
                details = exc.details() or ""
                if details.startswith(SEATED_ELSEWHERE + ":"):
                    reason = SEATED_ELSEWHERE
                else:
                    reason = "insufficient_chips" if "chips" in details else "seat_refused"
                raise SeatRefused(player_id, reason, details) from None
            raise

    async def ready(self, table_id: str, player_id: str, request_id: str) -> None:
        from qipai.v1 import game_pb2

        try:
            await self._call(self.stub.Ready, game_pb2.TableRequest(
                table_id=table_id, request_id=request_id), self._token(player_id))
        except grpc.aio.AioRpcError as exc:
            if exc.code() is not grpc.StatusCode.FAILED_PRECONDITION:
                raise

    async def leave(self, table_id: str, player_id: str, request_id: str) -> None:
        from qipai.v1 import game_pb2

        try:
            await self._call(self.stub.Leave, game_pb2.TableRequest(
                table_id=table_id, request_id=request_id), self._token(player_id))
        except grpc.aio.AioRpcError as exc:
            if exc.code() is not grpc.StatusCode.FAILED_PRECONDITION:
                raise

    async def seated(self, table_id: str, player_id: str) -> bool:
        from qipai.v1 import game_pb2

        try:
            view = await self._call(self.stub.GetView, game_pb2.TableRequest(table_id=table_id),
                                    self._token(player_id))
        except grpc.aio.AioRpcError as exc:
            # No such table, or one the player never sat at (a private table's view).
            if exc.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED):
                return False
            raise
        return bool(view.seat >= 0 and view.status != Status.MATCH_OVER.value)

    async def _call(self, method: Any, request: Any, metadata: list[tuple[str, str]]) -> Any:
        try:
            return await method(request, metadata=metadata, timeout=10)
        except grpc.aio.AioRpcError as exc:
            if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                              grpc.StatusCode.ABORTED):
                raise GameUnavailable(f"game service at {self.address}: {exc.details()}") from None
            raise

    async def close(self) -> None:
        await self.channel.close()
