"""One live table at a time: a player the matchmaker seated (a public match, a private room's
start) may not queue, create a room, join another room, or be seated by another room's start,
until that table is over for them.

The matchmaker keeps no "seated" flag of its own that someone would have to clear: it remembers
the table it last seated each player at (their last matched ticket, in the ticket store; their
last started room's table, in the room store — both shared by every matchmaker process) and
asks the game whether the player still sits there and that table's match is not over
(`GameGateway.seated`). So the rule lifts the moment the match ends or the player stands up
(`Leave`), whatever became of the matchmaker process that seated them.

These checks look, then act: they refuse early, with a clear message, what would fail anyway.
What holds under concurrency (two starts at once, a start racing a queue match, on any number
of matchmakers) is the game's seat reservation, taken with the buy-in in one transaction
(services/game/reservations.py): the second seating of a player is refused there
(`seated_elsewhere`) and undone like a player short of chips."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from services.errors import Refused

from .store import TicketStore
from .tickets import MATCHED


class AlreadySeated(Refused):
    """The player sits at a table whose match is not over (FAILED_PRECONDITION)."""


class SeatedAt(Protocol):
    async def seated(self, table_id: str, player_id: str) -> bool:
        """Whether `player_id` sits at `table_id` and its match is not over."""
        ...


class OneTable:
    """Where a player sits through matchmaking, and the refusal when they already do.

    `tickets` is the ticket store; `room_table` the table of the player's last started room
    (RoomService.table_of), None where rooms are not served."""

    def __init__(self, game: SeatedAt, tickets: TicketStore,
                 room_table: Callable[[str], Awaitable[str | None]] | None = None) -> None:
        self.game, self.tickets, self.room_table = game, tickets, room_table

    async def live_table(self, player_id: str) -> str | None:
        """The table the matchmaker seated `player_id` at that they still sit at, its match not
        over; None when there is none."""
        tables: list[str] = []
        latest = await self.tickets.latest(player_id)
        if latest is not None and latest.state == MATCHED:
            tables.append(latest.table_id)
        if self.room_table is not None and (room_table := await self.room_table(player_id)):
            tables.append(room_table)
        for table_id in tables:
            if table_id and await self.game.seated(table_id, player_id):
                return table_id
        return None

    async def refuse_if_seated(self, player_id: str, before: str) -> None:
        """AlreadySeated when `player_id` sits at a live table; `before` says what they tried
        ("queueing again", "joining a room")."""
        table_id = await self.live_table(player_id)
        if table_id is not None:
            raise AlreadySeated(f"you sit at table {table_id}, whose match is not over: "
                                f"finish it or leave it before {before}")
