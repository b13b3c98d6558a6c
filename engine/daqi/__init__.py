"""吕梁打七 (`daqi`): five players, two decks, trumps bid with 7s during the deal, a hidden friend.

docs/rules/daqi.md is the spec, then the decisions taken beyond it.
The files follow docs/rulesets.md.
"""

from engine.core.package import Package

from . import bots, choices, commands, events, game, invariants, notation, options, state, view

RULESET: Package[state.State, commands.Command, events.Event, view.View] = Package("daqi", options, state, commands, events, game, choices, view, notation, bots, invariants)

__all__ = ["RULESET"]
