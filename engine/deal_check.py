"""Checking fair deals from a table's events (docs/fairness.md), as any seat received them.

Feed a seat's Watch events in order (or a whole recorded stream); at each hand's DealRevealed the
checker recomputes the server's commitment, every seat's nonce, the deck seed, the deck order and
the ruleset's deck commitment, and says which of them do not match.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import rulesets
from engine import table as tables
from engine.core import fairness
from engine.core.contract import AnyRuleset, DeckReveal
from engine.core.shuffle import commitment


@dataclass(frozen=True, slots=True)
class HandCheck:
    """The verdict on one hand's deal: `problems` is empty when every check passed."""

    hand: int
    problems: tuple[str, ...]
    server_nonce_seats: tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        if self.ok:
            return f"hand {self.hand}: deal verified"
        return f"hand {self.hand}: DEAL MISMATCH: " + "; ".join(self.problems)


@dataclass
class _Hand:
    committed: tables.DealCommitted
    revealed: dict[int, bytes] = field(default_factory=dict)
    withheld: set[int] = field(default_factory=set)
    deck_commitment: str | None = None
    deck: DeckReveal | None = None


class DealChecker:
    """Follows one table's events; `feed` returns the checks of the hands that just ended.

    `own_nonces` (commitment hex -> nonce) are the nonces this seat committed to: the checker
    then also makes sure the server used the very nonce this seat chose, not only one matching
    the published commitment."""

    def __init__(self, seat: int | None = None, own_nonces: Mapping[str, bytes] | None = None) -> None:
        self.seat, self.own_nonces = seat, own_nonces if own_nonces is not None else {}
        self.rs: AnyRuleset | None = None
        self.options: Any = None
        self._hand: _Hand | None = None

    def awaiting_my_nonce(self) -> bytes | None:
        """The nonce this seat must reveal now (its commitment is out, no reveal yet), else None."""
        hand = self._hand
        if hand is None or self.seat is None or hand.deck_commitment is not None:
            return None
        mine = hand.committed.commitments[self.seat]
        if not mine or self.seat in hand.revealed or self.seat in hand.withheld:
            return None
        return self.own_nonces.get(mine)

    def feed(self, ev: Any) -> list[HandCheck]:
        if isinstance(ev, tables.TableCreated):
            self.rs = rulesets.get(ev.ruleset)
            self.options = self.rs.options(ev.options)
            return []
        hand = self._hand
        if isinstance(ev, tables.DealCommitted):
            self._hand = _Hand(ev)
        elif hand is None or self.rs is None:
            return []
        elif isinstance(ev, tables.NonceRevealed):
            hand.revealed[ev.seat] = ev.nonce
        elif isinstance(ev, tables.NonceWithheld):
            hand.withheld.add(ev.seat)
        elif isinstance(ev, tables.DealAbandoned):
            self._hand = None
        elif isinstance(ev, tables.DealRevealed):
            self._hand = None
            return [self._check(hand, ev)]
        elif (promised := self.rs.deck_commitment(ev)) is not None:
            hand.deck_commitment = promised
        elif (reveal := self.rs.deck_reveal(ev)) is not None:
            hand.deck = reveal
        return []

    def _check(self, hand: _Hand, end: tables.DealRevealed) -> HandCheck:
        assert self.rs is not None
        problems: list[str] = []
        committed = hand.committed
        if end.hand != committed.hand:
            problems.append(f"the reveal is for hand {end.hand}, the commitment for hand {committed.hand}")
        if fairness.server_commitment(end.seed, end.salt) != committed.server_commitment:
            problems.append("the server seed and salt do not match the server's commitment")
        seats = len(committed.commitments)
        if len(end.nonces) != seats:
            problems.append(f"{len(end.nonces)} nonces revealed for {seats} seats")
        for seat, nonce in enumerate(end.nonces[:seats]):
            promised = committed.commitments[seat]
            if promised and seat not in hand.withheld:
                if seat not in hand.revealed:
                    problems.append(f"seat {seat} committed a nonce that was neither revealed nor withheld")
                elif nonce != hand.revealed[seat] or fairness.nonce_commitment(nonce) != promised:
                    problems.append(f"seat {seat}'s nonce is not the one it revealed")
                mine = self.own_nonces.get(promised) if seat == self.seat else None
                if mine is not None and nonce != mine:
                    problems.append("your own nonce was not used")
            elif nonce != fairness.server_nonce(end.seed, seat):
                problems.append(f"seat {seat}'s server nonce is not the one derived from the server seed")
        if tuple(s for s in range(seats) if not committed.commitments[s] or s in hand.withheld) \
                != end.server_nonce_seats:
            problems.append("the seats marked as having server nonces are not those without a reveal")
        order = self.rs.deck_order(self.options, fairness.deck_seed(end.seed, end.nonces))
        if hand.deck is None or hand.deck_commitment is None:
            problems.append("the hand's deck commitment or reveal is missing")
        else:
            if hand.deck.order != order:
                problems.append("the deck dealt is not the one the seeds and nonces give")
            if hand.deck.salt != end.salt or commitment(order, end.salt) != hand.deck_commitment:
                problems.append("the deck does not match the commitment published at the hand's start")
        return HandCheck(committed.hand, tuple(problems), end.server_nonce_seats)
