"""A ruleset assembled from its package: each file of the template (docs/rulesets.md) is a module
protocol below, so mypy checks that a game's files hold what the template says, and the wiring is
written once for every game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, Protocol, TypeVar

from engine.core import options as core_options
from engine.core.contract import Bot, Deadline, DeckReveal, HandResult, Ruleset, Status
from engine.core.errors import RuleViolation
from engine.core.memo import ByIdentity

# How many recent states a ruleset remembers the deadline of (engine.core.memo): the tables a
# server plays at once each need their latest state's.
MEMO_LIMIT = 4096

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")
V = TypeVar("V")
S_in = TypeVar("S_in", contravariant=True)
C_in = TypeVar("C_in", contravariant=True)
E_in = TypeVar("E_in", contravariant=True)
S_out = TypeVar("S_out", covariant=True)
C_out = TypeVar("C_out", covariant=True)
V_out = TypeVar("V_out", covariant=True)


class OptionsFile(Protocol):
    """options.py"""

    def make_options(self, overrides: Mapping[str, Any] | None = None) -> Any: ...


class StateFile(Protocol[S]):
    """state.py: the phases, the table size, and where a table stands."""

    @property
    def SEATS(self) -> int: ...  # noqa: N802 (a module constant)

    def initial(self) -> S: ...

    def status(self, state: S) -> Status: ...

    def hand_result(self, state: S) -> HandResult | None: ...


class CommandsFile(Protocol[C_in]):
    """commands.py"""

    def command_seat(self, cmd: C_in) -> int | None: ...


class EventsFile(Protocol[E_in]):
    """events.py: besides the events, what a hand's start commits to and its end reveals."""

    def deck_commitment(self, ev: E_in) -> str | None: ...

    def deck_reveal(self, ev: E_in) -> DeckReveal | None: ...


class GameFile(Protocol[S, C_in, E]):
    """game.py"""

    def create(self, table_id: str, options: Any) -> list[E]: ...

    def decide(self, state: S, cmd: C_in) -> list[E]: ...

    def evolve(self, state: S, ev: E) -> S: ...

    def deck_order(self, options: Any, seed: bytes) -> tuple[str, ...]: ...


class ChoicesFile(Protocol[S_in, C]):
    """choices.py"""

    def legal_actions(self, state: S_in, seat: int) -> list[C]: ...

    def deadline(self, state: S_in) -> Deadline | None: ...

    def follow_up(self, state: S_in) -> C | None: ...


class ViewFile(Protocol[S_in, E, V_out]):
    """view.py"""

    @property
    def View(self) -> type[V_out]: ...  # noqa: N802 (the module's class)

    def view(self, state: S_in, seat: int | None) -> V_out: ...

    def redact(self, ev: E, seat: int | None) -> E | None: ...


class NotationFile(Protocol[C_out]):
    """notation.py"""

    def parse_command(self, spec: Mapping[str, Any]) -> C_out: ...

    def fixed_deal(self, deal: Mapping[str, Any], salt: bytes) -> C_out: ...


class BotsFile(Protocol):
    """bots.py"""

    @property
    def BOTS(self) -> Mapping[str, Bot]: ...  # noqa: N802 (a module constant)


class InvariantsFile(Protocol[S_in]):
    """invariants.py"""

    def check(self, state: S_in) -> list[str]: ...


class Package(Ruleset[S, C, E, V], Generic[S, C, E, V]):
    """The `Ruleset` of a game package: `Package(name, options, state, commands, events, game,
    choices, view, notation, bots, invariants)`, each argument the module of that name."""

    def __init__(
        self,
        name: str,
        options: OptionsFile,
        state: StateFile[S],
        commands: CommandsFile[C],
        events: EventsFile[E],
        game: GameFile[S, C, E],
        choices: ChoicesFile[S, C],
        view: ViewFile[S, E, V],
        notation: NotationFile[C],
        bots: BotsFile,
        invariants: InvariantsFile[S],
    ) -> None:
        self.name = name
        self.bots = bots.BOTS
        self.view_type = view.View
        self._options, self._state, self._commands, self._events = options, state, commands, events
        self._game, self._choices, self._view = game, choices, view
        self._notation, self._invariants = notation, invariants
        self._deadlines = ByIdentity(MEMO_LIMIT)
        # The calls made for every event and every question are the package's own functions,
        # not a method that calls them.
        self.decide = game.decide  # type: ignore[method-assign]
        self.evolve = game.evolve  # type: ignore[method-assign]
        self.status = state.status  # type: ignore[method-assign]
        self.command_seat = commands.command_seat  # type: ignore[method-assign]
        self.follow_up = choices.follow_up  # type: ignore[method-assign]

    def options(self, overrides: Mapping[str, Any] | None = None) -> Any:
        return self._options.make_options(overrides)

    def new_options(self, overrides: Mapping[str, Any] | None = None) -> Any:
        cls = type(self._options.make_options())
        return self._options.make_options(core_options.for_new_table(cls, overrides))

    def seats(self, options: Any) -> int:
        return self._state.SEATS

    def create(self, table_id: str, options: Any) -> list[E]:
        return self._game.create(table_id, options)

    def initial(self) -> S:
        return self._state.initial()

    def decide(self, state: S, cmd: C) -> list[E]:
        return self._game.decide(state, cmd)

    def evolve(self, state: S, ev: E) -> S:
        return self._game.evolve(state, ev)

    def status(self, state: S) -> Status:
        return self._state.status(state)

    def deadline(self, state: S) -> Deadline | None:
        return self._deadlines.get(state, self._choices.deadline)  # type: ignore[no-any-return]

    def follow_up(self, state: S) -> C | None:
        return self._choices.follow_up(state)

    def legal_actions(self, state: S, seat: int) -> list[C]:
        return self._choices.legal_actions(state, seat)

    def is_legal(self, state: S, cmd: C) -> bool:
        """Whether `decide` accepts `cmd` (for UIs and bots checking a move of their own)."""
        try:
            self._game.decide(state, cmd)
        except RuleViolation:
            return False
        return True

    def view(self, state: S, seat: int | None) -> V:
        return self._view.view(state, seat)

    def redact(self, ev: E, seat: int | None) -> E | None:
        return self._view.redact(ev, seat)

    def command_seat(self, cmd: C) -> int | None:
        return self._commands.command_seat(cmd)

    def parse_command(self, spec: Mapping[str, Any]) -> C:
        return self._notation.parse_command(spec)

    def fixed_deal(self, deal: Mapping[str, Any], salt: bytes) -> C:
        return self._notation.fixed_deal(deal, salt)

    def hand_result(self, state: S) -> HandResult | None:
        return self._state.hand_result(state)

    def check(self, state: S) -> list[str]:
        return self._invariants.check(state)

    def deck_commitment(self, ev: E) -> str | None:
        return self._events.deck_commitment(ev)

    def deck_reveal(self, ev: E) -> DeckReveal | None:
        return self._events.deck_reveal(ev)

    def deck_order(self, options: Any, seed: bytes) -> tuple[str, ...]:
        return self._game.deck_order(options, seed)

