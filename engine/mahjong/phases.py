"""The table's phases every mahjong ruleset goes through, and what follows from the phase alone.

A table is `NoTable` before its creation event, `BetweenHands` while the driver must deal,
`Playing` during a hand and `MatchOver` at the end. Each ruleset declares its own four classes
(their type names are its own, stored forever) and builds one `TablePhases` of them in its
state.py; from it come where the table stands for its driver, the last hand's result, and the
refusals a phase gives before any rule of the game is read, with the shared codes of
engine.core.errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from engine.core import errors
from engine.core.contract import HandResult, Status
from engine.core.errors import RuleViolation


class _Table(Protocol):
    @property
    def result(self) -> HandResult | None: ...


class _AtTable(Protocol):
    """A phase of a created table."""

    @property
    def table(self) -> _Table: ...


B = TypeVar("B", bound=_AtTable)  # BetweenHands
P = TypeVar("P", bound=_AtTable)  # Playing
M = TypeVar("M", bound=_AtTable)  # MatchOver


@dataclass(frozen=True, slots=True)
class TablePhases(Generic[B, P, M]):
    """A ruleset's four table phases: `NoTable`, `BetweenHands`, `Playing`, `MatchOver`."""

    no_table: type
    between_hands: type[B]
    playing: type[P]
    match_over: type[M]

    def status(self, state: object) -> Status:
        """Where the table stands for its driver."""
        if isinstance(state, self.playing):
            return Status.IN_HAND
        if isinstance(state, self.match_over):
            return Status.MATCH_OVER
        return Status.WAITING_FOR_HAND

    def hand_result(self, state: object) -> HandResult | None:
        """How the last finished hand ended (None before any)."""
        if isinstance(state, (self.between_hands, self.playing, self.match_over)):
            return state.table.result
        return None

    def to_deal(self, state: object) -> B:
        """The table a deal (StartHand, a fixed deal) acts on, or the phase's refusal."""
        if isinstance(state, self.playing):
            raise RuleViolation(errors.HAND_IN_PROGRESS, "A hand is already being played.")
        if isinstance(state, self.match_over):
            raise RuleViolation(errors.MATCH_OVER, "The match is over.")
        if not isinstance(state, self.between_hands):
            raise RuleViolation(errors.NO_TABLE, "This table has not been created yet.")
        return state

    def to_move(self, state: object) -> P:
        """The hand a move (any command but a deal) acts on, or the phase's refusal."""
        if isinstance(state, self.no_table):
            raise RuleViolation(errors.NO_TABLE, "This table has not been created yet.")
        if isinstance(state, self.match_over):
            raise RuleViolation(errors.MATCH_OVER, "The match is over.")
        if not isinstance(state, self.playing):
            raise RuleViolation(errors.NO_HAND_IN_PROGRESS, "No hand is being played; wait for the deal.")
        return state


class _Turn(Protocol):
    @property
    def seat(self) -> int: ...


T = TypeVar("T", bound=_Turn)


def turn_of(phase: object, seat: int, turn: type[T] | tuple[type[T], ...], waiting: str = "a discard") -> T:
    """The turn (of the type or types `turn`) that `seat` acts in; RuleViolation NOT_YOUR_TURN
    when it is another seat's turn, or nobody's (the others are deciding on `waiting`)."""
    if not isinstance(phase, turn):
        raise RuleViolation(errors.NOT_YOUR_TURN, f"The others are deciding on {waiting}; wait for them.")
    if phase.seat != seat:
        raise RuleViolation(errors.NOT_YOUR_TURN, f"It is seat {phase.seat}'s turn, not yours.")
    return phase
