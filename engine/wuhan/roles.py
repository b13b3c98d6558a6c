"""The tiles the indicator gives a role: the 赖子 (wild) and the two 赖子皮 (skins).

The indicator is turned face up after the deal. The 赖子 is the kind after it, the skins are its
own kind and the kind before it. Number tiles wrap within their suit (9m -> 1m); winds and
dragons follow 东 南 西 北 中 发 白 and back to 东, which is also their order as tile ids.
"""

from __future__ import annotations

from engine.core.messages import value
from engine.mahjong.tiles import Tile, tile

_HONOR_BASE = 27
_HONORS = 7


def next_kind(t: int) -> Tile:
    """The kind after `t` in its cycle (9m -> 1m, 白 -> 东)."""
    if t < _HONOR_BASE:
        return tile(t - t % 9 + (t % 9 + 1) % 9)
    return tile(_HONOR_BASE + (t - _HONOR_BASE + 1) % _HONORS)


def previous_kind(t: int) -> Tile:
    """The kind before `t` in its cycle (1m -> 9m, 东 -> 白)."""
    if t < _HONOR_BASE:
        return tile(t - t % 9 + (t % 9 - 1) % 9)
    return tile(_HONOR_BASE + (t - _HONOR_BASE - 1) % _HONORS)


_LAIZI = tuple(next_kind(t) for t in range(34))
_SKINS = tuple((tile(t), previous_kind(t)) for t in range(34))
_SPECIAL = tuple(frozenset((_LAIZI[t], *_SKINS[t])) for t in range(34))


@value("wuhan.Roles")
class Roles:
    """What the face-up `indicator` makes of the tiles: one 赖子 kind and two skin kinds."""

    indicator: Tile

    @property
    def laizi(self) -> Tile:
        return _LAIZI[self.indicator]

    @property
    def skins(self) -> tuple[Tile, Tile]:
        """The indicator's kind (3 left in play) and the kind before it (4 in play): the 七皮."""
        return _SKINS[self.indicator]

    def is_laizi(self, t: int) -> bool:
        return t == _LAIZI[self.indicator]

    def is_skin(self, t: int) -> bool:
        return t in _SKINS[self.indicator]

    def is_special(self, t: int) -> bool:
        """A 赖子 or a skin: never claimed, chowed, ponged or konged as a set, always laid out alone."""
        return t in _SPECIAL[self.indicator]
