"""Sitting down buys in through the ledger: the table's `StackBoughtIn` events are paid before
they are stored, so a player short of chips never sits (FAILED_PRECONDITION with the balance
and the need) and nothing moves. Settlement later finds each buy-in already posted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.chips import StackBoughtIn

from .service import LedgerService
from .settlement import buy_in_transfer


class BuyIns:
    """Called by the game's command pipeline with a command's events, before they are stored."""

    def __init__(self, service: LedgerService) -> None:
        self.service = service

    async def __call__(self, table_id: str, events: Sequence[Any]) -> None:
        for ev in events:
            if isinstance(ev, StackBoughtIn) and ev.chips > 0:
                await self.service.welcome(ev.player_id)  # a new player's first chips
                await self.service.store.post(
                    buy_in_transfer(table_id, ev.seat, ev.player_id, ev.chips, ev.n), open_credit=True)
