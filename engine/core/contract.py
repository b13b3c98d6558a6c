"""The engine contract every ruleset implements (see docs/design.md, "The engine: one contract for every game").

A ruleset is a module-level object satisfying `Ruleset[State, Command, Event, View]` (the package
layout is docs/rulesets.md). State is an immutable value; the service and the tools only ever:
create a table (`create`), fold events (`evolve`), ask for decisions (`decide`), and read through
`status`, `deadline`, `legal_actions`, `view`, `redact` and the deck commitment methods.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from engine.core.messages import command
from engine.core.payments import Payment


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

    `window` identifies a decision whose askees are hidden (a mahjong claim window): equal while
    the same decision stays open, so a hidden answer does not restart its clock, and a driver
    shows every observer the same deadline for it whoever owes it (docs/hidden-information.md,
    "Claim windows"). None for a decision everybody sees who owes (a turn).

    `min_ms`: a claim window with a minimum (rules revision 3): the clock closes it no sooner
    than `min_ms` after it opened, and at that moment once it is decided (`{None: close}`), so
    that its length tells nobody whether anyone could claim; every observer is still shown
    `timeout_ms` from its opening. Its claimants on auto-play answer by then.
    `private`: a seat's timeout here is told to that seat alone (who is asked is hidden).
    """

    defaults: Mapping[Any, Any]  # seat (int) or None -> command
    timeout_ms: int
    reason: str
    window: Hashable | None = None
    min_ms: int = 0
    private: bool = False


@dataclass(frozen=True, slots=True)
class HandResult:
    """How the last finished hand ended, for summaries and the zero-sum check.

    `outcome` is a short stable label ("self_draw", "discard_win", "draw", "dealer_side_wins"...),
    `points` the hand's game points (a mahjong win's 点, daqi's 抓分方 points), `deltas` the score
    each seat gained or lost (sums to zero). `explanation` is lines a person reads that show how
    the deltas were reached (wuhan: each loser's amount as a formula); replay prints them.
    `payments` are the deltas as who pays whom (`engine.core.payments`): what the table caps by
    积分最小化 and the ledger settles.
    """

    outcome: str
    points: int
    deltas: tuple[int, ...]
    explanation: tuple[str, ...] = ()
    payments: tuple[Payment, ...] = ()


@dataclass(frozen=True, slots=True)
class DeckReveal:
    """A hand's deck order (notation tokens, as committed to) and salt, revealed at its end."""

    order: tuple[str, ...]
    salt: bytes


S = TypeVar("S")  # the ruleset's State (union of its phases)
C = TypeVar("C")  # its Command
E = TypeVar("E")  # its Event
V = TypeVar("V")  # its View

Bot = Callable[[Any, Sequence[Any], random.Random], Any]
"""A bot: given a seat's view and that seat's legal commands, pick one (using only `rng`);
None lets the 托管 default stand (or the deal go on)."""


@runtime_checkable
class Ruleset(Protocol[S, C, E, V]):
    """A game's rules as the service and the tools drive them. `engine.core.package.Package`
    implements it from a package laid out as docs/rulesets.md says."""

    name: str
    bots: Mapping[str, Bot]
    view_type: type[V]
    """The class `view` returns (clients decode views into it)."""

    def options(self, overrides: Mapping[str, Any] | None = None) -> Any:
        """The frozen options object, defaults overridden; bad keys or values raise ValueError."""

    def new_options(self, overrides: Mapping[str, Any] | None = None) -> Any:
        """The options of a table created now: as `options`, but an option whose rule was revised
        takes its current value unless given (`options` alone reads a recorded table, where a
        missing key means the rule of its day; engine.core.options.revised)."""

    def seats(self, options: Any) -> int:
        """How many players sit at a table with these options."""

    def create(self, table_id: str, options: Any) -> list[E]:
        """The table's first event(s), recording the options."""

    def initial(self) -> S:
        """The state before the first event (evolve the creation events onto it)."""

    def decide(self, state: S, cmd: C) -> list[E]:
        """Validate `cmd` against the rules and return the resulting events, or raise RuleViolation."""

    def evolve(self, state: S, ev: E) -> S:
        """Apply one event; total, no validation. Replay is `functools.reduce(evolve, events, initial())`."""

    def status(self, state: S) -> Status: ...

    def deadline(self, state: S) -> Deadline | None: ...

    def follow_up(self, state: S) -> C | None:
        """A command of the table clock due right now, which the driver applies as a step of its
        own, right after the command that made it due (a claim window no seat may answer closes:
        docs/hidden-information.md). The same command is the clock's default in `deadline`, so
        a driver that missed it still gets there, only later."""

    def legal_actions(self, state: S, seat: int) -> list[C]:
        """Every legal command for `seat` now (empty when it is not that seat's decision)."""

    def view(self, state: S, seat: int | None) -> V:
        """What `seat` may see (None: a spectator); never another seat's hidden cards or tiles."""

    def redact(self, ev: E, seat: int | None) -> E | None:
        """The event as `seat` may see it, or None when it reveals nothing to that seat."""

    def command_seat(self, cmd: C) -> int | None:
        """The seat a command acts for (None: the table clock / server)."""

    def parse_command(self, spec: Mapping[str, Any]) -> C:
        """A command from its human form, e.g. `{"seat": 0, "action": "discard", "tile": "5m"}`
        (scenario files, the terminal client); bad specs raise ValueError naming the bad part."""

    def fixed_deal(self, deal: Mapping[str, Any], salt: bytes) -> C:
        """A command that deals the hand described by a scenario `deal` instead of a shuffle."""

    def hand_result(self, state: S) -> HandResult | None:
        """The result of the most recently finished hand, or None before any hand has ended."""

    def check(self, state: S) -> list[str]:
        """Invariant violations of `state` (conservation, zero-sum...): empty when all hold."""

    def deck_commitment(self, ev: E) -> str | None:
        """The deck commitment `ev` publishes (a hand's start), else None."""

    def deck_reveal(self, ev: E) -> DeckReveal | None:
        """The deck order and salt `ev` reveals (a hand's end), else None."""

    def deck_order(self, options: Any, seed: bytes) -> tuple[str, ...]:
        """The deck order (notation tokens) a StartHand with `seed` deals: players recompute
        it from the seed revealed at the hand's end (docs/fairness.md)."""


AnyRuleset = Ruleset[Any, Any, Any, Any]
"""A ruleset of any game (what `engine.rulesets.get` returns)."""
