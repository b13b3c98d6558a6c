"""吕梁扣点麻将 (`koudian`): four players, 136 tiles, a win needs 报听 and a tile worth enough.

The spec is the design docs' rules/koudian.md; docs/rules/koudian.md lists the decisions beyond it.
"""

from engine.koudian.ruleset import RULESET, KoudianRuleset

__all__ = ["RULESET", "KoudianRuleset"]
