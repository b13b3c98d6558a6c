"""Sitting down buys in through the ledger: the table's `StackBoughtIn` events are paid before
they are stored, so a player short of chips never sits (FAILED_PRECONDITION with the balance
and the need) and nothing moves. Settlement later finds each buy-in already posted.

The game posts them inside its own transaction (services/game/reservations.py), the one that
takes the player's seat reservation: a buy-in is escrowed at most once per reservation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.chips import StackBoughtIn

from .service import LedgerService
from .settlement import buy_in_transfer


class BuyIns:
    """Posts a command's buy-ins, before its events are stored."""

    def __init__(self, service: LedgerService) -> None:
        self.service = service

    @staticmethod
    def of(events: Sequence[Any]) -> list[StackBoughtIn]:
        """The buy-ins among `events` that move chips."""
        return [ev for ev in events if isinstance(ev, StackBoughtIn) and ev.chips > 0]

    async def welcome(self, events: Sequence[Any]) -> None:
        """Open the accounts of new players among the buyers (their welcome grant), before the
        transaction that posts the buy-ins (on SQLite a grant inside it would wait for it)."""
        for ev in self.of(events):
            await self.service.welcome(ev.player_id)

    async def post_in(self, tx: Any, table_id: str, events: Sequence[Any]) -> None:
        """Post the buy-ins of `events` inside `tx` (an event-store transaction on the
        ledger's database): they commit or roll back with it."""
        if bought := self.of(events):
            await self.service.store.post_in(
                tx, [buy_in_transfer(table_id, ev.seat, ev.player_id, ev.chips, ev.n) for ev in bought],
                open_credit=True)
