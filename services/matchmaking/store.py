"""Where tickets and queues live: one interface, two backends — in memory (`make run`, the
embedded default) and Redis (`services/matchmaking/redis_store.py`, shared by every matchmaker
process).

The step that matters is `form`: it takes tickets out of a queue into matches in one atomic
step, so a ticket is in at most one match, ever. A formed match is *pending* under a lease
until it is seated (`matched`) or undone (`requeue`); a pending match whose lease ran out (its
process died) is claimed by another process with `claim_stale`, which seats it again
(seating is idempotent), so no ticket is lost.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from typing import Protocol

from .config import QueueSpec
from .tickets import CANCELLED, DISCONNECTED, FORMING, LIVE, MATCHED, SEARCHING, Match, Ticket


class TicketStore(Protocol):
    async def enqueue(self, ticket: Ticket) -> Ticket:
        """`ticket`, queued; or the player's live ticket when they have one (returned as is)."""
        ...

    async def get(self, ticket_id: str) -> Ticket | None: ...

    async def latest(self, player_id: str) -> Ticket | None:
        """The player's live ticket, else their last one."""
        ...

    async def hold(self, ticket_id: str, expires_ms: int) -> Ticket | None:
        """Keep a searching ticket until `expires_ms` (its stream is open); the ticket."""
        ...

    async def cancel(self, ticket_id: str, reason: str, detail: str) -> Ticket | None:
        """Cancel a searching ticket; a forming, matched or cancelled one is returned as is."""
        ...

    async def form(self, spec: QueueSpec, now_ms: int, lease_ms: int, limit: int) -> list[Match]:
        """Atomically take up to `limit` matches out of the queue (FIFO, within the rating band
        of the oldest ticket; bots fill the rest once it waited `spec.bot_fill_after_ms`).
        Searching tickets past their hold are cancelled as disconnected on the way."""
        ...

    async def claim_stale(self, queue: str, now_ms: int, lease_ms: int) -> list[Match]:
        """Pending matches whose lease ran out, now leased to the caller."""
        ...

    async def mark_failed(self, match_id: str, queue: str) -> None:
        """A player of the match could not sit: whoever finishes it undoes it."""
        ...

    async def matched(self, match_id: str, queue: str, table_id: str,
                      seats: Mapping[str, int], waits_ms: Sequence[int] = ()) -> bool:
        """Finish a pending match: its tickets matched at `table_id`, counted in the queue's
        matches with their waits (`waits_ms`); False when another process finished it first."""
        ...

    async def match_stats(self, queue: str) -> tuple[int, list[int]]:
        """The queue's matches so far and the waits of its latest RECENT_WAITS tickets matched,
        whichever process seated them (what ListQueues and estimated waits show)."""
        ...

    async def requeue(self, match_id: str, queue: str, cancel: Mapping[str, tuple[str, str]],
                      hold_until_ms: int) -> bool:
        """Undo a pending match: the tickets in `cancel` (ticket -> reason, detail) are
        cancelled, the others go back to the front of the queue (their own place)."""
        ...

    async def stats(self, queue: str) -> tuple[int, int]:
        """Searching tickets in the queue and the oldest one's creation time (0: none)."""
        ...

    async def position(self, ticket: Ticket) -> int:
        """1 for the first searching ticket of its queue; 0 when not searching."""
        ...

    async def close(self) -> None: ...


def pick(spec: QueueSpec, searching: Sequence[Ticket], now_ms: int, limit: int
         ) -> list[list[Ticket]]:
    """The groups to form from the searching tickets (in arrival order): each oldest ticket
    not yet taken anchors a group of those after it within its band (the wider of both
    tickets' bands); a group is formed when full, or when the anchor has waited long enough for
    bots to fill it. The Redis script does the same (redis_store.FORM)."""
    groups: list[list[Ticket]] = []
    used: set[str] = set()
    for i, anchor in enumerate(searching):
        if len(groups) >= limit:
            break
        if anchor.ticket_id in used:
            continue
        waited = now_ms - anchor.created_ms
        band = spec.band(waited)
        group = [anchor]
        for cand in searching[i + 1:]:
            if len(group) == spec.seats:
                break
            if cand.ticket_id in used:
                continue
            if abs(cand.rating - anchor.rating) <= max(band, spec.band(now_ms - cand.created_ms)):
                group.append(cand)
        bots_due = spec.bot_fill_after_ms > 0 and waited >= spec.bot_fill_after_ms
        if len(group) == spec.seats or bots_due:
            groups.append(group)
            used.update(t.ticket_id for t in group)
    return groups


RECENT_WAITS = 200
"""Waits kept per queue for its median."""


class MemoryTicketStore:
    """Tickets in this process's memory (one matchmaker process: `make run`). Every method
    runs without awaiting, so each is atomic under asyncio."""

    def __init__(self) -> None:
        self.tickets: dict[str, Ticket] = {}
        self.players: dict[str, str] = {}
        self.queues: dict[str, dict[str, None]] = {}  # ticket ids in arrival order
        self.pending: dict[str, tuple[Match, int]] = {}  # match id -> (match, lease until)
        self._seq = itertools.count(1)
        self._matches = itertools.count(1)
        self.matches: dict[str, int] = {}
        self.waits: dict[str, collections.deque[int]] = {}

    async def enqueue(self, ticket: Ticket) -> Ticket:
        current = self.tickets.get(self.players.get(ticket.player_id, ""))
        if current is not None and current.live:
            return current
        ticket = dataclasses.replace(ticket, seq=next(self._seq), state=SEARCHING)
        self.tickets[ticket.ticket_id] = ticket
        self.players[ticket.player_id] = ticket.ticket_id
        self._insert(ticket)
        return ticket

    def _insert(self, ticket: Ticket) -> None:
        queue = self.queues.setdefault(ticket.queue, {})
        last = next(reversed(queue), None)
        queue[ticket.ticket_id] = None
        if last is None or self.tickets[last].seq < ticket.seq:
            return
        # A returned ticket goes back to its own place (the front, usually).
        ordered = sorted(queue, key=lambda t: self.tickets[t].seq)
        self.queues[ticket.queue] = dict.fromkeys(ordered)

    async def get(self, ticket_id: str) -> Ticket | None:
        return self.tickets.get(ticket_id)

    async def latest(self, player_id: str) -> Ticket | None:
        return self.tickets.get(self.players.get(player_id, ""))

    async def hold(self, ticket_id: str, expires_ms: int) -> Ticket | None:
        ticket = self.tickets.get(ticket_id)
        if ticket is not None and ticket.state == SEARCHING:
            ticket = self.tickets[ticket_id] = dataclasses.replace(ticket, expires_ms=expires_ms)
        return ticket

    async def cancel(self, ticket_id: str, reason: str, detail: str) -> Ticket | None:
        ticket = self.tickets.get(ticket_id)
        if ticket is None or ticket.state != SEARCHING:
            return ticket
        self.queues.get(ticket.queue, {}).pop(ticket_id, None)
        ticket = self.tickets[ticket_id] = dataclasses.replace(
            ticket, state=CANCELLED, cancel_reason=reason, cancel_detail=detail)
        return ticket

    async def form(self, spec: QueueSpec, now_ms: int, lease_ms: int, limit: int) -> list[Match]:
        queue = self.queues.get(spec.name, {})
        searching = []
        for ticket_id in list(queue):
            ticket = self.tickets[ticket_id]
            if ticket.expires_ms and ticket.expires_ms < now_ms:
                await self.cancel(ticket_id, DISCONNECTED, "the Queue stream dropped and no "
                                  "reconnect came within the grace period")
            else:
                searching.append(ticket)
        matches = []
        for group in pick(spec, searching, now_ms, limit):
            match_id = f"m{next(self._matches)}-{group[0].ticket_id[:16]}"
            for ticket in group:
                queue.pop(ticket.ticket_id, None)
                self.tickets[ticket.ticket_id] = dataclasses.replace(ticket, state=FORMING, match_id=match_id)
            match = Match(match_id, spec.name, tuple(t.ticket_id for t in group),
                          tuple(t.player_id for t in group), spec.seats - len(group),
                          created_ms=tuple(t.created_ms for t in group))
            self.pending[match_id] = (match, now_ms + lease_ms)
            matches.append(match)
        return matches

    async def claim_stale(self, queue: str, now_ms: int, lease_ms: int) -> list[Match]:
        stale = []
        for match_id, (match, until) in list(self.pending.items()):
            if match.queue == queue and until <= now_ms:
                self.pending[match_id] = (match, now_ms + lease_ms)
                stale.append(match)
        return stale

    async def mark_failed(self, match_id: str, queue: str) -> None:
        if match_id in self.pending:
            match, until = self.pending[match_id]
            self.pending[match_id] = (dataclasses.replace(match, failed=True), until)

    async def matched(self, match_id: str, queue: str, table_id: str,
                      seats: Mapping[str, int], waits_ms: Sequence[int] = ()) -> bool:
        if self.pending.pop(match_id, None) is None:
            return False
        self.matches[queue] = self.matches.get(queue, 0) + 1
        self.waits.setdefault(queue, collections.deque(maxlen=RECENT_WAITS)).extendleft(waits_ms)
        for ticket_id, seat in seats.items():
            self.tickets[ticket_id] = dataclasses.replace(
                self.tickets[ticket_id], state=MATCHED, table_id=table_id, seat=seat)
        return True

    async def requeue(self, match_id: str, queue: str, cancel: Mapping[str, tuple[str, str]],
                      hold_until_ms: int) -> bool:
        pending = self.pending.pop(match_id, None)
        if pending is None:
            return False
        for ticket_id in pending[0].tickets:
            ticket = self.tickets[ticket_id]
            if ticket_id in cancel:
                reason, detail = cancel[ticket_id]
                self.tickets[ticket_id] = dataclasses.replace(
                    ticket, state=CANCELLED, cancel_reason=reason, cancel_detail=detail)
            else:
                self.tickets[ticket_id] = dataclasses.replace(
                    ticket, state=SEARCHING, match_id="", expires_ms=max(ticket.expires_ms, hold_until_ms))
                self._insert(self.tickets[ticket_id])
        return True

    async def match_stats(self, queue: str) -> tuple[int, list[int]]:
        return self.matches.get(queue, 0), list(self.waits.get(queue, ()))

    async def stats(self, queue: str) -> tuple[int, int]:
        ids = self.queues.get(queue, {})
        first = next(iter(ids), None)
        return len(ids), self.tickets[first].created_ms if first else 0

    async def position(self, ticket: Ticket) -> int:
        if ticket.state != SEARCHING:
            return 0
        for n, ticket_id in enumerate(self.queues.get(ticket.queue, {}), 1):
            if ticket_id == ticket.ticket_id:
                return n
        return 0

    async def close(self) -> None:
        pass


__all__ = ["LIVE", "MATCHED", "RECENT_WAITS", "MemoryTicketStore", "TicketStore", "pick"]
