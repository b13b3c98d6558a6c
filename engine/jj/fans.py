"""The JJ additions to the 81 MCR fans (jj.md, "Fans"): one small definition each, found by name.

Each addition looks at a `Win` (the natural hand a 混 assignment reached, its melds and how it was
won) and one reading of it as sets and a pair (None for a special shape such as seven pairs), and
answers how many times it counts (0: not at all). `EXCLUDES` holds jj's 不计 rules, which
apply across the MCR fans and the additions alike; MCR's own exclusions are already applied by
PyMahjongGB before jj sees its fans.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from engine.core.messages import value
from engine.jj.hun import KNITTED
from engine.mahjong.decompose import Decomposition, decompositions
from engine.mahjong.melds import CHOW, Meld
from engine.mahjong.tiles import Tile


@value("jj.Fan")
class Fan:
    """One fan in a win's list: its name, value and how many times it counts."""

    name: str
    value: int
    times: int = 1

    @property
    def total(self) -> int:
        return self.value * self.times


@value("jj.Situation")
class Situation:
    """How a hand was won, beyond its tiles. Winds count 0..3 from East."""

    self_drawn: bool = False
    seat_wind: int = 0
    round_wind: int = 0
    about_kong: bool = False  # 杠上开花 or 抢杠和
    wall_last: bool = False  # 妙手回春 / 海底捞月
    flowers: int = 0
    heavenly: bool = False  # 天胡: the dealer on the dealt hand
    earthly: bool = False  # 地胡: a non-dealer on the first draw, nobody having claimed or konged
    human: bool = False  # 人胡: a non-dealer on the dealer's first discard
    heavenly_ready: bool = False  # 天听
    declared_ready: bool = False  # 报听 (天听 included)
    xuezhan: bool = False
    wild_in_play: bool = True  # False when the table plays without 混 (no 无混 then)
    knitted_reads_pair: bool = True  # False for tables recorded before rules revision 3


@dataclass(frozen=True)
class Win:
    """The hand one assignment of the 混 reached: `full` the 34 counts of the concealed tiles (the
    winning tile included), `wilds` how many of them are 混, the melds, and the situation."""

    full: tuple[int, ...]
    wilds: int
    melds: tuple[Meld, ...]
    situation: Situation

    @cached_property
    def readings(self) -> tuple[Decomposition | None, ...]:
        """The readings of the concealed tiles as sets and a pair: the standard shape's, and the
        pair and set beside a 组合龙's nine tiles (the set is a meld's when there is one); (None,)
        for the other special shapes (seven pairs, 十三幺, 全不靠). The additions that look at
        sets or the pair take the best reading. Tables recorded before rules revision 3 read
        only the standard shape."""
        found = decompositions(self.full, 0, len(self.melds))
        if self.situation.knitted_reads_pair and len(self.melds) <= 1:
            found += tuple(d for knit in KNITTED if all(self.full[t] for t in knit)
                           for d in decompositions(_without(self.full, knit), 0, len(self.melds) + 3))
        return found or (None,)

    def chows(self, d: Decomposition) -> tuple[Tile, ...]:
        """The lowest tile of every chow in reading `d`, melds included."""
        own = [g.tile for g in d.sets if g.kind == "run"]
        return tuple(sorted(own + [m.tile for m in self.melds if m.kind == CHOW and m.tile is not None]))


def _without(full: tuple[int, ...], tiles: tuple[int, ...]) -> tuple[int, ...]:
    c = list(full)
    for t in tiles:
        c[t] -= 1
    return tuple(c)


Addition = Callable[[Win, Decomposition | None], int]
ADDITIONS: dict[str, tuple[int, Addition]] = {}
"""name -> (value, definition), in the order of jj.md's table."""
READS_SETS: set[str] = set()
"""The additions that look at the reading (sets and pair), not only at the tiles and situation."""

EXCLUDES: dict[str, tuple[str, ...]] = {
    "天胡": ("不求人", "自摸", "门前清"),
    "地胡": ("不求人", "自摸", "门前清"),
    "人胡": ("门前清",),
    "四君子": ("花牌",),
    "天听": ("报听",),
    "四混": ("无混",),
    "清龙": ("混龙",),
    "花龙": ("混龙",),
    "清幺九": ("幺九头",),
}
"""jj's 不计 rules: a fan present removes these. 四君子 takes all four flowers, which are all
the flowers there are, so 花牌 goes entirely."""


def addition(name: str, value: int, reads_sets: bool = False) -> Callable[[Addition], Addition]:
    def register(fn: Addition) -> Addition:
        ADDITIONS[name] = (value, fn)
        if reads_sets:
            READS_SETS.add(name)
        return fn

    return register


def value_of(name: str, situation: Situation) -> int:
    """An addition's value at this table (报听 is worth 2 in 血战)."""
    if name == "报听" and situation.xuezhan:
        return 2
    return ADDITIONS[name][0]


@addition("天胡", 48)
def heavenly_win(w: Win, d: Decomposition | None) -> int:
    return int(w.situation.heavenly)


@addition("四混", 32)
def four_wilds(w: Win, d: Decomposition | None) -> int:
    return int(w.wilds == 4)


@addition("地胡", 24)
def earthly_win(w: Win, d: Decomposition | None) -> int:
    return int(w.situation.earthly)


@addition("四君子", 24)
def four_gentlemen(w: Win, d: Decomposition | None) -> int:
    return int(w.situation.flowers == 4)


@addition("人胡", 16)
def human_win(w: Win, d: Decomposition | None) -> int:
    return int(w.situation.human)


@addition("天听", 16)
def heavenly_ready(w: Win, d: Decomposition | None) -> int:
    return int(w.situation.heavenly_ready)


@addition("报听", 3)
def declared_ready(w: Win, d: Decomposition | None) -> int:
    return int(w.situation.declared_ready)


@addition("无混", 2)
def no_wild(w: Win, d: Decomposition | None) -> int:
    return int(w.wilds == 0 and w.situation.wild_in_play)


@addition("混龙", 2, reads_sets=True)
def mixed_dragon(w: Win, d: Decomposition | None) -> int:
    """Chows 123, 456 and 789 in exactly two suits."""
    if d is None:
        return 0
    lows = w.chows(d)
    for a in (t for t in lows if t % 9 == 0):
        for b in (t for t in lows if t % 9 == 3):
            for c in (t for t in lows if t % 9 == 6):
                if len({a // 9, b // 9, c // 9}) == 2:
                    return 1
    return 0


@addition("胡", 2)
def any_win(w: Win, d: Decomposition | None) -> int:
    return int(not w.situation.xuezhan)


@addition("二五八将", 2, reads_sets=True)
def pair_of_258(w: Win, d: Decomposition | None) -> int:
    return int(d is not None and d.pair.tile < 27 and d.pair.tile % 9 in (1, 4, 7))


@addition("幺九头", 1, reads_sets=True)
def pair_of_terminals(w: Win, d: Decomposition | None) -> int:
    return int(d is not None and d.pair.tile < 27 and d.pair.tile % 9 in (0, 8))


@addition("花牌", 2)
def flowers(w: Win, d: Decomposition | None) -> int:
    """2 fans a flower (MCR: 1), so PyMahjongGB is never told of flowers."""
    return w.situation.flowers
