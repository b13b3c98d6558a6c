"""Seating a match: its table, created once (keyed by the match id), a bot in every empty seat,
then each player, who buys in through the ledger as any player sitting down does, then each
player's Ready: they said ready in the room, or by queueing, so the first hand deals at once
with no second ready from anyone (a player who is not there is played by the table's timeouts,
then on auto-play, as any seat whose player is away).

Every step is idempotent (the ids derive from the match), so seating a match again after a
crash finishes it without a second table or a second buy-in. When a player cannot sit (not
enough chips), the players already seated stand up again (their stacks go back) and
`SeatRefused` names the player, so the caller cancels that ticket and puts the others back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.bots import levels
from engine.bots.levels import DEFAULT_LEVEL
from engine.chips import Stakes
from engine.table import BOT_PREFIX

from .game import GameGateway, SeatRefused

__all__ = ["SeatRefused", "Seated", "Seating", "bot_id"]


@dataclass(frozen=True, slots=True)
class Seated:
    table_id: str
    seats: tuple[str, ...]  # who sits in each seat: the players, and bot ids where bots sit


def bot_id(match_id: str, seat: int, level: str = DEFAULT_LEVEL) -> str:
    """The bot seated in `seat` of a match (distinct per table, so never a player's). A level
    above the 托管 default is part of the id (engine.bots.levels.bot_id), which the table records."""
    return levels.bot_id(f"{BOT_PREFIX}{match_id[-12:]}-{seat}", level)


def table_options(options: Mapping[str, Any], stakes: Stakes, bots: bool = True) -> dict[str, Any]:
    """A match table's options: the ruleset's and the chip options. With bots, score
    minimisation is always on: a bot's stack is empty, and it caps every payment to and from a
    bot at nothing; a table of players only (a private room) plays as its host chose."""
    chips = dataclasses.replace(stakes, score_minimisation=True) if bots else stakes
    return {**options, "stake": chips.stake, "buy_in": chips.buy_in,
            "score_minimisation": chips.score_minimisation}


class Seating:
    """Seats matches through a game gateway (in-process or gRPC)."""

    def __init__(self, game: GameGateway) -> None:
        self.game = game

    async def seat_match(self, match_id: str, ruleset: str, options: Mapping[str, Any],
                         stakes: Stakes, players: Sequence[str | None], *,
                         before_rollback: Callable[[SeatRefused], Awaitable[None]] | None = None,
                         bot_level: str = DEFAULT_LEVEL) -> Seated:
        """Create the match's table and seat `players` in order (None: a bot of `bot_level`); raises
        SeatRefused (after standing the seated players up again) when one cannot sit.
        `before_rollback` runs first then, so a caller can record that the match failed."""
        table_id = await self.game.create_table(match_id, ruleset, table_options(options, stakes, bots=None in players))
        occupants = tuple(p if p is not None else bot_id(match_id, s, bot_level) for s, p in enumerate(players))
        # Bots first: each is ready on sitting, and the last player's Ready deals the first hand.
        # A player's sit takes their seat reservation (one live matchmade table each, taken by
        # the game with the buy-in): a player already seated elsewhere is refused here.
        for seat, player in enumerate(players):
            if player is None:
                await self.game.sit(table_id, occupants[seat], seat, f"{match_id}:sit:{seat}", bot=True)
        seated: list[str] = []
        for seat, player in enumerate(players):
            if player is None:
                continue
            try:
                await self.game.sit(table_id, player, seat, f"{match_id}:sit:{seat}")
            except SeatRefused as refused:
                if before_rollback is not None:
                    await before_rollback(refused)
                await self.unseat(match_id, table_id, [p for p in players if p is not None])
                raise
            seated.append(player)
        for seat, player in enumerate(players):
            if player is not None:
                await self.game.ready(table_id, player, f"{match_id}:ready:{seat}")
        return Seated(table_id, occupants)

    async def unseat(self, match_id: str, table_id: str, players: Sequence[str]) -> None:
        """Stand `players` up at the match's table (those not seated are skipped)."""
        for player in players:
            await self.game.leave(table_id, player, f"{match_id}:unseat")
