"""What a table records about chips, in its own stream; the settlement consumer posts them.

Each event carries everything its transfers need (players, ruleset, amounts), so the consumer
keeps no state of its own beyond its checkpoint, and each transfer id is derived from the event:
replaying the log can never pay twice.
"""

from __future__ import annotations

from engine.core.messages import event, value


@event("table.StackBoughtIn")
class StackBoughtIn:
    """`player_id` sat down at `seat` with `chips` from their account (their `n`th buy-in at
    this table). The table posts the buy-in before recording it, so a player short of chips
    never sits; the consumer re-posts it from the log, which only finds it posted."""

    seat: int
    player_id: str
    chips: int
    n: int


@value("table.SeatPayment")
class SeatPayment:
    payer: int
    payee: int
    chips: int
    reason: str
    payer_player: str
    payee_player: str


@event("table.HandSettled")
class HandSettled:
    """Hand `hand` ended; each payment moves chips between two seats' stacks (already capped by
    积分最小化, so no stack goes below zero)."""

    hand: int
    ruleset: str
    payments: tuple[SeatPayment, ...]


@event("table.StackCashedOut")
class StackCashedOut:
    """The stack of `seat` (`chips`) went back to `player_id`'s account: they left, or the match ended."""

    seat: int
    player_id: str
    chips: int
    n: int
