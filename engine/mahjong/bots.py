"""Bots for every mahjong ruleset: `bot(view, legal_actions, rng) -> command`.

They read only what any mahjong view has (`seat`, `hand`, `melds`) and choose among the legal
commands, so they never cheat and never send an illegal move.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.mahjong.actions import Chow, DeclareReady, Discard, Kong, Pass, Pong, Win
from engine.mahjong.hand import waits
from engine.mahjong.shanten import shanten
from engine.mahjong.tiles import counts


def random_bot(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """Any legal command, uniformly."""
    return legal[rng.randrange(len(legal))]


def greedy_bot(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """Wins when it can, declares ready when it can (keeping the most waits), claims and kongs only
    when that brings the hand closer to ready, and otherwise discards the tile whose loss leaves the
    hand closest to ready, loose honors and edge tiles first."""
    for a in legal:
        if isinstance(a, Win):
            return a
    c = counts(view.hand)
    melds = len(view.melds[view.seat])
    ready = [a for a in legal if isinstance(a, DeclareReady)]
    if ready:
        return max(ready, key=lambda a: (_waits_without(c, a.tile, melds), rng.random()))
    claims = [a for a in legal if isinstance(a, Pong | Kong | Chow)]
    discards = [a for a in legal if isinstance(a, Discard)]
    if not discards:
        return _claim(c, melds, claims, legal)
    best = _best_discard(c, melds, discards, rng)
    for k in claims:
        if isinstance(k, Kong) and c[k.tile] and _kong_keeps(c, k.tile, melds, best.tile):
            return k
    return best


def _claim(c: list[int], melds: int, claims: list[Any], legal: Sequence[Any]) -> Any:
    now = shanten(c, 0, melds)
    for a in claims:
        if isinstance(a, Kong) and c[a.tile] >= 3:
            after = list(c)
            after[a.tile] -= 3
            if shanten(after, 0, melds + 1) <= now:
                return a
        if isinstance(a, Pong):
            after = list(c)
            after[a.tile] -= 2
            if shanten(after, 0, melds + 1) < now:
                return a
    for a in legal:
        if isinstance(a, Pass):
            return a
    return legal[0]


def _best_discard(c: list[int], melds: int, discards: list[Any], rng: random.Random) -> Any:
    """The discard leaving the lowest shanten, the least connected tile among equals. No discard
    can beat the 14-tile hand's own shanten, so trying tiles from the least connected up and taking
    the first that reaches it gives that minimum after only a few shanten calls."""
    floor = shanten(c, 0, melds)
    ranked = sorted(discards, key=lambda a: (keep_value(c, a.tile), rng.random()))
    scored = []
    for a in ranked:
        s = _shanten_without(c, a.tile, melds)
        if s <= floor:
            return a
        scored.append((s, a))
    return min(scored, key=lambda sa: sa[0])[1]


def _shanten_without(c: list[int], t: int, melds: int) -> int:
    c[t] -= 1
    s = shanten(c, 0, melds)
    c[t] += 1
    return s


def _waits_without(c: list[int], t: int, melds: int) -> int:
    c[t] -= 1
    n = len(waits(c, 0, melds))
    c[t] += 1
    return n


def _kong_keeps(c: list[int], t: int, melds: int, best_discard: int) -> bool:
    """A kong from the hand is worth it when the hand is as close to ready after it as after the
    best discard (the kong's replacement draw comes on top)."""
    after = list(c)
    concealed = c[t] == 4
    after[t] -= 4 if concealed else 1
    return shanten(after, 0, melds + concealed) <= _shanten_without(c, best_discard, melds)


def keep_value(c: list[int], t: int) -> int:
    """How much a tile works with its neighbours: copies held and suit tiles within two steps."""
    value = 3 * (c[t] - 1)
    if t < 27:
        n = t % 9
        for d in (-2, -1, 1, 2):
            if 0 <= n + d <= 8:
                value += c[t + d] * (2 if abs(d) == 1 else 1)
        value += 1 if 0 < n < 8 else 0
    return value
