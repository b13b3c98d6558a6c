"""The engine contract every ruleset implements (see DESIGN.md, "The engine").

A ruleset is a module-level object satisfying `Ruleset`. State is an immutable value; the service
and the tools only ever: create a table (`create`), fold events (`evolve`), ask for decisions
(`decide`), and read through `status`, `deadline`, `legal_actions`, `view` and `redact`.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from engine.core.messages import command


class Status(enum.Enum):
    """Where a table stands, as far as the driver (service, selfplay) must know."""

    WAITING_FOR_HAND = "waiting_for_hand"  # the driver must send StartHand with a fresh seed
    IN_HAND = "in_hand"  # players (or the table clock) act; see `deadline`
    MATCH_OVER = "match_over"  # nothing more will happen at this table


@command("core.StartHand")
class StartHand:
    """Deal the next hand. `seed` fixes the deck order; `salt` hides it in the public commitment.

    Both are server-side secrets until the hand ends, when the engine reveals deck and salt.
    """

    seed: bytes
    salt: bytes


@dataclass(frozen=True, slots=True)
class Deadline:
    """Who must act next and what happens if they do not act in time (托管).

    `defaults` maps each seat that owes a decision to the command auto-play sends for it; seat
    `None` is the table's own clock (dealing pace, bid windows), which acts only by timing out.
    `timeout_ms` comes from the table's options; the engine never reads a clock.
    """

    defaults: Mapping[Any, Any]  # seat (int) or None -> command
    timeout_ms: int
    reason: str


@dataclass(frozen=True, slots=True)
class HandResult:
    """How the last finished hand ended, for summaries and the zero-sum check.

    `outcome` is a short stable label ("self_draw", "discard_win", "draw", "dealer_side_wins"...),
    `points` the hand's game points (a mahjong win's 点, daqi's 抓分方 points), `deltas` the score
    each seat gained or lost (sums to zero). `explanation` is lines a person reads that show how
    the deltas were reached (wuhan: each loser's amount as a formula); replay prints them.
    """

    outcome: str
    points: int
    deltas: tuple[int, ...]
    explanation: tuple[str, ...] = ()


Bot = Callable[[Any, Sequence[Any], random.Random], Any]
"""A bot: given a seat's view and that seat's legal commands, pick one (using only `rng`)."""


@runtime_checkable
class Ruleset(Protocol):
    name: str
    bots: Mapping[str, Bot]

    def options(self, overrides: Mapping[str, Any] | None = None) -> Any:
        """The frozen options object, defaults overridden; bad keys or values raise ValueError."""

    def seats(self, options: Any) -> int:
        """How many players sit at a table with these options."""

    def create(self, table_id: str, options: Any) -> list[Any]:
        """The table's first event(s), recording the options."""

    def initial(self) -> Any:
        """The state before the first event (evolve the creation events onto it)."""

    def decide(self, state: Any, cmd: Any) -> list[Any]:
        """Validate `cmd` against the rules and return the resulting events, or raise RuleViolation."""

    def evolve(self, state: Any, ev: Any) -> Any:
        """Apply one event; total, no validation. Replay is `functools.reduce(evolve, events, initial())`."""

    def status(self, state: Any) -> Status: ...

    def deadline(self, state: Any) -> Deadline | None: ...

    def legal_actions(self, state: Any, seat: int) -> list[Any]:
        """Every legal command for `seat` now (empty when it is not that seat's decision)."""

    def view(self, state: Any, seat: int | None) -> Any:
        """What `seat` may see (None: a spectator); never another seat's hidden cards or tiles."""

    def redact(self, ev: Any, seat: int | None) -> Any | None:
        """The event as `seat` may see it, or None when it reveals nothing to that seat."""

    def command_seat(self, cmd: Any) -> int | None:
        """The seat a command acts for (None: the table clock / server)."""

    def parse_command(self, spec: Mapping[str, Any]) -> Any:
        """A command from its human form, e.g. `{"seat": 0, "action": "discard", "tile": "5m"}`
        (scenario files, the terminal client); bad specs raise ValueError naming the bad part."""

    def fixed_deal(self, deal: Mapping[str, Any], salt: bytes) -> Any:
        """A command that deals the hand described by a scenario `deal` instead of a shuffle."""

    def hand_result(self, state: Any) -> HandResult | None:
        """The result of the most recently finished hand, or None before any hand has ended."""

    def check(self, state: Any) -> list[str]:
        """Invariant violations of `state` (conservation, zero-sum...): empty when all hold."""
