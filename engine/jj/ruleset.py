"""The jj ruleset object (engine.core.contract.Ruleset): wiring only, no rule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.contract import HandResult, Status
from engine.jj import choices, game, invariants, notation
from engine.jj import view as seat_view
from engine.jj.bots import BOTS
from engine.jj.options import Options, make_options
from engine.jj.state import SEATS, MatchOver, NoTable, Playing, State


class JJRuleset:
    name = "jj"
    bots = BOTS

    def options(self, overrides: Mapping[str, Any] | None = None) -> Options:
        return make_options(overrides)

    def seats(self, options: Any) -> int:
        return SEATS

    def create(self, table_id: str, options: Options) -> list[Any]:
        return game.create(table_id, options)

    def initial(self) -> State:
        return NoTable()

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

    def command_seat(self, cmd: Any) -> int | None:
        return getattr(cmd, "seat", None)

    def hand_result(self, state: State) -> HandResult | None:
        if isinstance(state, NoTable):
            return None
        return state.table.result


RULESET = JJRuleset()
