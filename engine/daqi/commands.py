"""The orders a 打七 table accepts (their human form is notation.py).

`StartHand` (engine.core) deals a shuffled hand; `FixedDeal` deals a scripted one.
"""

from __future__ import annotations

from engine.core.contract import StartHand
from engine.core.messages import command
from engine.daqi.cards import Card


@command("daqi.DealFixedHand")
class FixedDeal:
    """Deal `deck` (108 cards: the 100 dealt in order, then the bottom) from `dealer`, the card
    at `flip_index` (0..99) face up. Scenario files and tests; the service shuffles."""

    deck: tuple[Card, ...]
    flip_index: int
    dealer: int
    salt: bytes


@command("daqi.DealNext")
class DealNext:
    """The table clock deals the next card (every `deal_interval_ms`)."""


@command("daqi.Bid")
class Bid:
    """Show a single 7, a pair of 7s or a joker pair to bid (叫主) or overcall (反主)."""

    seat: int
    cards: tuple[Card, ...]


@command("daqi.Pass")
class Pass:
    """Decline to bid: in the final window after the deal, or in the one overcall after burying."""

    seat: int


@command("daqi.Bury")
class Bury:
    """The 庄家 buries 8 cards face down (埋底)."""

    seat: int
    cards: tuple[Card, ...]


@command("daqi.PlayCards")
class PlayCards:
    """Lead or follow in the current trick."""

    seat: int
    cards: tuple[Card, ...]


Command = StartHand | FixedDeal | DealNext | Bid | Pass | Bury | PlayCards


def command_seat(cmd: Command) -> int | None:
    """The seat a command acts for (None: a deal or the table clock)."""
    return None if isinstance(cmd, StartHand | FixedDeal | DealNext) else cmd.seat
