"""The jj ruleset object (engine.core.contract.Ruleset): wiring only, no rule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.jj import choices, commands, game, invariants, notation, state
from engine.jj import view as seat_view
from engine.jj.bots import BOTS
from engine.jj.options import Options, make_options
from engine.jj.state import SEATS


class JJRuleset:
    name = "jj"
    bots = BOTS

    def options(self, overrides: Mapping[str, Any] | None = None) -> Options:
        return make_options(overrides)

    def seats(self, options: Any) -> int:
        return SEATS

    def create(self, table_id: str, options: Options) -> list[Any]:
        return game.create(table_id, options)

    initial = staticmethod(state.initial)
    decide = staticmethod(game.decide)
    evolve = staticmethod(game.evolve)
    legal_actions = staticmethod(choices.legal_actions)
    deadline = staticmethod(choices.deadline)
    view = staticmethod(seat_view.view)
    redact = staticmethod(seat_view.redact)
    parse_command = staticmethod(notation.parse_command)
    fixed_deal = staticmethod(notation.fixed_deal)
    check = staticmethod(invariants.check)

    status = staticmethod(state.status)
    hand_result = staticmethod(state.hand_result)
    command_seat = staticmethod(commands.command_seat)
    view_type = seat_view.View


RULESET = JJRuleset()
