"""Matchmaking inside `qipai serve`: the ticket store the live-state URL names (memory or
Redis), the game it seats tables at (this process's, or QIPAI_GAME_ADDR over gRPC), the
servicer, and the formation loop in the background."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

import grpc

from services.client_address import ClientAddress
from services.config import Settings

from .config import load_queues
from .game import GameGateway, GrpcGame, InProcessGame
from .one_table import OneTable
from .queues import Matchmaker, wall_ms
from .ratings import LogRatings
from .rooms import Rooms
from .servicer import MatchmakingServicer, register
from .store import MemoryTicketStore, TicketStore


def open_ticket_store(url: str, namespace: str) -> TicketStore:
    """Tickets in memory (memory://) or in the Redis (or Redis Cluster) of `url`."""
    if url.startswith("memory://"):
        return MemoryTicketStore()
    from .redis_store import RedisTicketStore

    return RedisTicketStore(url, namespace)


@dataclass
class MatchmakingResource:
    matchmaker: Matchmaker
    rooms: Rooms
    game: GameGateway
    ratings: LogRatings
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def start(self) -> None:
        self._tasks += [asyncio.create_task(self.matchmaker.run(self._stop), name="matchmaking"),
                        asyncio.create_task(self.rooms.run(self._stop), name="rooms"),
                        asyncio.create_task(self.ratings.run(self._stop), name="ratings")]

    async def drain(self) -> None:
        """Stop forming matches (the matches being seated finish; others are taken over)."""
        self._stop.set()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()

    async def close(self) -> None:
        await self.drain()
        await self.rooms.close()
        await self.matchmaker.store.close()
        if isinstance(self.game, GrpcGame):
            await self.game.close()


async def start_matchmaking(server: grpc.aio.Server, backends: Any, settings: Settings,
                            with_game: bool, ratings: LogRatings) -> MatchmakingResource:
    """Open the matchmaker, add its servicer to `server` and start forming matches."""
    config = load_queues(settings.queues_file or None)
    game: GameGateway
    if settings.game_addr:
        game = GrpcGame(settings.game_addr, settings.token_secret)
    elif with_game:
        game = InProcessGame(backends.tables)
    else:
        raise ValueError("QIPAI_GAME_ADDR must name the game service (host:port) when "
                         "matchmaking runs without it")
    store = open_ticket_store(settings.redis_url, settings.live_namespace)
    matchmaker = Matchmaker(config, store, game, ratings)
    rooms = Rooms(matchmaker.seating, settings, wall_ms)
    # One live table at a time, whichever way the player was seated (a queue, a room).
    one_table = OneTable(game, store, rooms.service.table_of)
    matchmaker.one_table = rooms.service.one_table = one_table
    register(server, MatchmakingServicer(matchmaker, rooms, ratings, ClientAddress.trusting(settings.trusted_proxies)))
    resource = MatchmakingResource(matchmaker, rooms, game, ratings)
    resource.start()
    return resource
