"""吕梁打七 (`daqi`): five players, two decks, trumps bid with 7s during the deal, a hidden friend.

The spec is the design docs' rules/daqi.md; docs/rules/daqi.md lists the decisions beyond it.
"""

from engine.daqi.ruleset import RULESET, DaqiRuleset

__all__ = ["RULESET", "DaqiRuleset"]
