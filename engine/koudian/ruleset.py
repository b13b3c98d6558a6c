"""The koudian ruleset object: the engine contract (engine.core.contract.Ruleset) for `koudian`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.contract import DeckReveal, HandResult, Ruleset, StartHand, Status
from engine.koudian import choices, game, invariants, notation
from engine.koudian import view as seat_view
from engine.koudian.bots import BOTS
from engine.koudian.commands import Command, FixedDeal
from engine.koudian.events import Event, HandEnded, HandStarted
from engine.koudian.options import Options, make_options
from engine.koudian.state import SEATS, MatchOver, NoTable, Playing, State
from engine.koudian.view import View


class KoudianRuleset(Ruleset[State, Command, Event, View]):
    """吕梁扣点麻将 on the engine contract: wiring only, the rules live in the modules it names."""

    name = "koudian"
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
    legal_actions = staticmethod(choices.legal_actions)
    deadline = staticmethod(choices.deadline)
    view = staticmethod(seat_view.view)
    redact = staticmethod(seat_view.redact)
    parse_command = staticmethod(notation.parse_command)
    fixed_deal = staticmethod(notation.fixed_deal)
    check = staticmethod(invariants.check)

    def status(self, state: State) -> Status:
        if isinstance(state, Playing):
            return Status.IN_HAND
        if isinstance(state, MatchOver):
            return Status.MATCH_OVER
        return Status.WAITING_FOR_HAND

    def command_seat(self, cmd: Command) -> int | None:
        return None if isinstance(cmd, StartHand | FixedDeal) else cmd.seat

    def hand_result(self, state: State) -> HandResult | None:
        if isinstance(state, NoTable):
            return None
        return state.table.result

    def deck_commitment(self, ev: Event) -> str | None:
        return ev.commitment if isinstance(ev, HandStarted) else None

    def deck_reveal(self, ev: Event) -> DeckReveal | None:
        if not isinstance(ev, HandEnded):
            return None
        return DeckReveal(tuple(str(t) for t in ev.order), ev.salt)


RULESET = KoudianRuleset()
