"""The eight 大胡 (rules/wuhan.md, "Hand types"), one definition each, found by name.

Four are shapes of the hand (read by engine.wuhan.shapes), four are the way the hand was won.
Several add up: each one is worth a base of 10.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.core.messages import value
from engine.mahjong.melds import CHOW, KONG_ADDED, KONG_EXPOSED, PONG, Meld
from engine.wuhan.shapes import Shape

SELF_DRAW = "self_draw"
DISCARD = "discard"
ROBBED_KONG = "robbed_kong"

CLAIMED = frozenset({CHOW, PONG, KONG_EXPOSED, KONG_ADDED})
"""Melds made from another seat's tile (a 蓄杠 grew out of a claimed pong)."""


@value("wuhan.Way")
class Way:
    """How a hand is won: `how` is self_draw, discard or robbed_kong; `kong_replacement` when the
    self-drawn tile was a kong's replacement; `last_four` when it was one of the last four draws."""

    how: str
    kong_replacement: bool = False
    last_four: bool = False


@dataclass(frozen=True, slots=True)
class BigWin:
    name: str
    label: str
    holds: Callable[[Shape, Way, tuple[Meld, ...]], bool]


BIG_WINS: dict[str, BigWin] = {}


def big_win(name: str, label: str) -> Callable[[Callable[[Shape, Way, tuple[Meld, ...]], bool]], BigWin]:
    def register(holds: Callable[[Shape, Way, tuple[Meld, ...]], bool]) -> BigWin:
        BIG_WINS[name] = BigWin(name, label, holds)
        return BIG_WINS[name]

    return register


@big_win("all_pungs", "碰碰胡")
def _all_pungs(shape: Shape, way: Way, melds: tuple[Meld, ...]) -> bool:
    """Four pungs or kongs and any pair."""
    return shape.pungs


@big_win("all_claimed", "全求人")
def _all_claimed(shape: Shape, way: Way, melds: tuple[Meld, ...]) -> bool:
    """Four melds claimed from others, the one tile left paired by a discard."""
    return way.how == DISCARD and len(melds) == 4 and all(m.kind in CLAIMED for m in melds)


@big_win("one_suit", "清一色")
def _one_suit(shape: Shape, way: Way, melds: tuple[Meld, ...]) -> bool:
    """Every tile of one number suit, four sets and any pair."""
    return shape.one_suit


@big_win("all_258", "将一色")
def _all_258(shape: Shape, way: Way, melds: tuple[Meld, ...]) -> bool:
    """Every tile a 2, 5 or 8 (乱将: any shape)."""
    return shape.all_258


@big_win("all_honors", "风一色")
def _all_honors(shape: Shape, way: Way, melds: tuple[Meld, ...]) -> bool:
    """Every tile a wind or a dragon (乱风: any shape)."""
    return shape.all_honors


@big_win("last_four", "海底捞")
def _last_four(shape: Shape, way: Way, melds: tuple[Meld, ...]) -> bool:
    """Self-drawn on one of the last four draws."""
    return way.how == SELF_DRAW and way.last_four


@big_win("kong_bloom", "杠上开花")
def _kong_bloom(shape: Shape, way: Way, melds: tuple[Meld, ...]) -> bool:
    """Self-drawn on a kong's replacement (赖子杠 and 皮杠 included)."""
    return way.how == SELF_DRAW and way.kong_replacement


@big_win("robbed_kong", "抢杠胡")
def _robbed_kong(shape: Shape, way: Way, melds: tuple[Meld, ...]) -> bool:
    """Won on the tile another player adds to a pong (蓄杠)."""
    return way.how == ROBBED_KONG


def big_wins(shape: Shape, way: Way, melds: tuple[Meld, ...]) -> tuple[str, ...]:
    """The names of every 大胡 the hand makes, in the order above."""
    return tuple(b.name for b in BIG_WINS.values() if b.holds(shape, way, melds))


def label(name: str) -> str:
    """The 大胡's Chinese name."""
    return BIG_WINS[name].label
