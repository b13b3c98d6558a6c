"""JJ-style 国标 mahjong with 混 (ruleset `jj`, ../shared/rules/jj.md): the 81 MCR fans from
PyMahjongGB plus the JJ additions, 混 wilds, 补花, 报听, 经典 and 血战 scoring."""

from engine.jj.ruleset import RULESET

__all__ = ["RULESET"]
