"""武汉麻将 七皮四赖 口口番 (`wuhan`): four players, 136 tiles, a turned indicator making one kind
the 赖子 (wild) and two kinds the skins; a win needs an opened hand and 起胡, and is scored 口口番.

The spec is the design docs' rules/wuhan.md; docs/rules/wuhan.md lists the decisions beyond it.
The files follow docs/rulesets.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.contract import HandResult, Status
from engine.wuhan import bots as _bots
from engine.wuhan import choices, commands, events, game, invariants, notation, state
from engine.wuhan import options as _options
from engine.wuhan import view as _view


class Wuhan:
    """The wuhan ruleset (engine.core.contract.Ruleset), assembled from the package's files."""

    name = "wuhan"
    bots = _bots.BOTS
    view_type = _view.View

    def options(self, overrides: Mapping[str, Any] | None = None) -> _options.Options:
        return _options.make_options(overrides)

    def seats(self, opts: Any) -> int:
        return state.SEATS

    def create(self, table_id: str, opts: _options.Options) -> list[events.Event]:
        return game.create(table_id, opts)

    def initial(self) -> state.State:
        return state.initial()

    decide = staticmethod(game.decide)
    evolve = staticmethod(game.evolve)
    legal_actions = staticmethod(choices.legal_actions)
    deadline = staticmethod(choices.deadline)
    view = staticmethod(_view.view)
    redact = staticmethod(_view.redact)
    parse_command = staticmethod(notation.parse_command)
    fixed_deal = staticmethod(notation.fixed_deal)
    command_seat = staticmethod(commands.command_seat)
    check = staticmethod(invariants.check)
    deck_commitment = staticmethod(events.deck_commitment)
    deck_reveal = staticmethod(events.deck_reveal)

    def status(self, s: state.State) -> Status:
        return state.status(s)

    def hand_result(self, s: state.State) -> HandResult | None:
        return state.hand_result(s)


RULESET = Wuhan()

__all__ = ["RULESET", "Wuhan"]
