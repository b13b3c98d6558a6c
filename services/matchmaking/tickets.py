"""A ticket: one player's place in one public queue, from searching to matched or cancelled,
and a match: the tickets one atomic formation step took out of a queue together."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

SEARCHING, FORMING, MATCHED, CANCELLED = "searching", "forming", "matched", "cancelled"
LIVE = (SEARCHING, FORMING)  # a player has at most one ticket in these states

# Why a ticket was cancelled (Ticket.cancel_reason).
BY_PLAYER, DISCONNECTED, INSUFFICIENT_CHIPS, SEAT_REFUSED = (
    "cancelled", "disconnected", "insufficient_chips", "seat_refused")


@dataclass(frozen=True, slots=True)
class Ticket:
    ticket_id: str
    player_id: str
    queue: str
    state: str
    created_ms: int
    seq: int = 0            # order of arrival in its queue (FIFO; a returned ticket keeps its own)
    rating: int = 1500
    expires_ms: int = 0     # cancelled as disconnected after this, unless its stream renews it
    match_id: str = ""
    table_id: str = ""
    seat: int = -1
    cancel_reason: str = ""
    cancel_detail: str = ""

    @property
    def live(self) -> bool:
        return self.state in LIVE


@dataclass(frozen=True, slots=True)
class Match:
    """Tickets formed into one table (seat order), and how many seats bots fill after them."""

    match_id: str
    queue: str
    tickets: tuple[str, ...]
    players: tuple[str, ...]
    bots: int = 0
    failed: bool = False  # a player could not sit: the match is being undone


def new_ticket_id(queue: str) -> str:
    """A ticket id naming its queue, so each store finds the ticket's keys from the id alone."""
    return f"{uuid.uuid4().hex[:16]}@{queue}"


def queue_of(ticket_id: str) -> str:
    return ticket_id.partition("@")[2]
