"""The 吕梁打七 ruleset object: the engine contract (engine.core.contract.Ruleset) for `daqi`.

A daqi table never reaches MATCH_OVER: every hand is played at 7 and the 庄家 is won anew, so a
table simply deals hand after hand (scores accumulate) until the service closes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.contract import DeckReveal, HandResult, Ruleset, Status
from engine.daqi import choices, game, invariants, notation
from engine.daqi import view as seat_view
from engine.daqi.bots import BOTS
from engine.daqi.commands import Command
from engine.daqi.events import Event, HandEnded, HandStarted
from engine.daqi.options import Options, make_options
from engine.daqi.state import SEATS, NoTable, State, Waiting
from engine.daqi.view import View


class DaqiRuleset(Ruleset[State, Command, Event, View]):
    """吕梁打七 on the engine contract: wiring only, the rules live in the modules it names."""

    name = "daqi"
    bots = BOTS
    view_type = View

    def options(self, overrides: Mapping[str, Any] | None = None) -> Options:
        return make_options(overrides)

    def seats(self, options: Options) -> int:
        return SEATS

    def initial(self) -> State:
        return NoTable()

    create = staticmethod(game.create)
    decide = staticmethod(game.decide)
    evolve = staticmethod(game.evolve)
    is_legal = staticmethod(game.is_legal)
    legal_actions = staticmethod(choices.legal_actions)
    deadline = staticmethod(choices.deadline)
    view = staticmethod(seat_view.view)
    redact = staticmethod(seat_view.redact)
    parse_command = staticmethod(notation.parse_command)
    fixed_deal = staticmethod(notation.fixed_deal)
    check = staticmethod(invariants.check)

    def status(self, state: State) -> Status:
        if isinstance(state, Waiting | NoTable):
            return Status.WAITING_FOR_HAND
        return Status.IN_HAND

    def command_seat(self, cmd: Command) -> int | None:
        return getattr(cmd, "seat", None)

    def hand_result(self, state: State) -> HandResult | None:
        return None if isinstance(state, NoTable) else state.table.last_result

    def deck_commitment(self, ev: Event) -> str | None:
        return ev.commitment if isinstance(ev, HandStarted) else None

    def deck_reveal(self, ev: Event) -> DeckReveal | None:
        if not isinstance(ev, HandEnded):
            return None
        return DeckReveal(tuple(str(c) for c in ev.deck), ev.salt)


RULESET = DaqiRuleset()
