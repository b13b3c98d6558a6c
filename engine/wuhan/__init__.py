"""武汉麻将 七皮四赖 口口番 (`wuhan`): four players, 136 tiles, a turned indicator making one kind
the 赖子 (wild) and two kinds the skins; a win needs an opened hand and 起胡, and is scored 口口番.

The spec is the design docs' rules/wuhan.md; docs/rules/wuhan.md lists the decisions beyond it.
The files follow docs/rulesets.md.
"""

from engine.core.package import Package

from . import bots, choices, commands, events, game, invariants, notation, options, state, view

RULESET: Package[state.State, commands.Command, events.Event, view.View] = Package("wuhan", options, state, commands, events, game, choices, view, notation, bots, invariants)

__all__ = ["RULESET"]
