"""jj's bots: the mahjong bots, shown the hand without its 混 (they cannot be discarded, and the
shared bots know nothing of wilds); the legal commands already leave 混 out. The levels
(engine.bots.levels): `easy` the 托管 default, `normal` the greedy bot, `strong` the strong
player (engine.bots.mahjong) with the 混 counted as wild: shanten and 受入 with the wilds, a wait
counted only when the win would reach the fan minimum (engine.jj.winning.reaches, on its own
tiles), 报听 with the waits worth most (3 fans more on every win), claims only when they take the
hand closer (a claim costs the concealed-hand fans the minimum often rests on), and defence
against a seat that declared ready or shows three melds."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.bots import mahjong
from engine.bots.levels import easy
from engine.core.contract import Bot
from engine.jj.fans import Situation
from engine.jj.winning import reaches
from engine.mahjong.bots import greedy_bot, random_bot


def greedy(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    if view.wild is not None:
        view = replace(view, hand=tuple(t for t in view.hand if t != view.wild))
    return greedy_bot(view, legal, rng)


def _seen(view: Any) -> tuple[int, ...]:
    """Tiles on the table (rivers and melds), for the fans that count them (和绝张)."""
    c = [0] * 34
    for river in view.rivers:
        for t in river:
            c[t] += 1
    for melds in view.melds:
        for m in melds:
            for t in m.tiles:
                c[t] += 1
    return tuple(c)


def wait_worth(view: Any, h: mahjong.Hand, t: int) -> float:
    """What waiting on `t` is worth: nothing unless the win would reach the fan minimum as a
    self-draw after 报听; more when it would off a discard too. The round wind is not in the
    view, so the hand is counted in the east round (圈风刻 aside, the same fans)."""
    wild = view.wild
    if t == wild:
        return 1.0
    seat = view.seat
    c = list(h.c)
    c[t] += 1
    if wild is not None:
        c[wild] += h.wilds
    common = {"seat_wind": (seat - (view.dealer or 0)) % len(view.melds), "flowers": len(view.flowers[seat]),
              "declared_ready": True, "xuezhan": view.options.xuezhan, "wild_in_play": wild is not None}
    melds, seen, least = view.melds[seat], _seen(view), view.options.min_fan
    if not reaches(c, wild, melds, seat, t, Situation(self_drawn=True, **common), least, seen):
        return 0.0
    off_discard = reaches(c, wild, melds, seat, t, Situation(self_drawn=False, **common), least, seen)
    return 1.0 if off_discard else 0.5


PROFILE = mahjong.Profile(
    wild=lambda view: view.wild,
    wait_worth=wait_worth,
    declares_ready=True,
    untouchable=lambda view: frozenset({view.wild}) if view.wild is not None else frozenset(),
)


def strong_bot(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """engine.bots.mahjong's player told jj's 混 (module docstring)."""
    return mahjong.play(view, legal, rng, PROFILE)


BOTS: Mapping[str, Bot] = {"random": random_bot, "greedy": greedy,
                           "easy": easy, "normal": greedy, "strong": strong_bot}
