"""JJ-style 国标 mahjong with 混 (`jj`): four players, 136 tiles and 4 flowers, the 81 MCR fans
(from PyMahjongGB) plus the JJ additions, 混 wilds, 补花, 报听, an 8-fan minimum, 经典 and 血战
scoring.

The spec is the design docs' rules/jj.md; docs/rules/jj.md lists the decisions beyond it.
The files follow docs/rulesets.md.
"""

from engine.core.package import Package

from . import bots, choices, commands, events, game, invariants, notation, options, state, view

RULESET: Package[state.State, commands.Command, events.Event, view.View] = Package(
    "jj", options, state, commands, events, game, choices, view, notation, bots, invariants
)

__all__ = ["RULESET"]
