"""吕梁扣点麻将 (`koudian`): four players, 136 tiles, a win needs 报听 and a tile worth enough.

docs/rules/koudian.md is the spec, then the decisions taken beyond it.
The files follow docs/rulesets.md.
"""

from engine.core.package import Package

from . import bots, choices, commands, events, game, invariants, notation, options, state, view

RULESET: Package[state.State, commands.Command, events.Event, view.View] = Package("koudian", options, state, commands, events, game, choices, view, notation, bots, invariants)

__all__ = ["RULESET"]
