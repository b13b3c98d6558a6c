"""Bots for wuhan: `bot(view, legal_actions, rng) -> command`, reading only the seat's view.

The greedy bot wins whenever it may; lays out every skin at once (a skin in hand forbids
winning) and every 赖子 past the first (two or more allow only a 大胡); opens eagerly, since a
closed hand can never win: it claims a chow, pong or kong that leaves the hand no further from
ready; and otherwise discards the tile whose loss leaves it closest to ready, the 赖子 it keeps
counted as a wild.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.bots import mahjong
from engine.bots.levels import easy
from engine.bots.pair258 import shanten_258
from engine.core.contract import Bot
from engine.mahjong.actions import Chow, Discard, Kong, Pass, Pong, Win
from engine.mahjong.bots import keep_value, random_bot
from engine.mahjong.shanten import shanten
from engine.mahjong.tiles import counts


def _split(view: Any) -> tuple[list[int], int, int]:
    """(counts without the 赖子, 赖子 held, melds) of the seat's hand."""
    c = counts(view.hand)
    wilds = c[view.laizi] if view.laizi is not None else 0
    if view.laizi is not None:
        c[view.laizi] = 0
    return c, min(wilds, 4), len(view.melds[view.seat])


def _laid_out(view: Any, legal: Sequence[Any], wilds: int) -> Any:
    """The kong that lays out a skin, or a 赖子 past the first, if one is legal."""
    for k in legal:
        if isinstance(k, Kong) and (k.tile in view.skins or (k.tile == view.laizi and wilds >= 2)):
            return k
    return None


def greedy_bot(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """See the module docstring."""
    for a in legal:
        if isinstance(a, Win):
            return a
    c, wilds, melds = _split(view)
    discards = [a for a in legal if isinstance(a, Discard)]
    if not discards:
        return _claim(c, wilds, melds, legal)
    laid = _laid_out(view, legal, wilds)
    if laid is not None:
        return laid
    kongs = [a for a in legal if isinstance(a, Kong)]
    ordinary = [a for a in discards if a.tile != view.laizi and a.tile not in view.skins]
    if not ordinary:
        return discards[0]
    now = shanten(c, wilds, melds)
    for k in kongs:
        if k.tile != view.laizi and k.tile not in view.skins and c[k.tile] and _after_kong(c, k.tile, wilds, melds) <= now:
            return k
    return _best_discard(c, wilds, melds, ordinary, rng)


def _after_kong(c: list[int], t: int, wilds: int, melds: int) -> int:
    after = list(c)
    concealed = after[t] == 4
    after[t] -= 4 if concealed else 1
    return shanten(after, wilds, melds + concealed)


def _claim(c: list[int], wilds: int, melds: int, legal: Sequence[Any]) -> Any:
    # After a claim the hand has one tile more to discard; compare with one tile dropped.
    now = shanten(c, wilds, melds)
    for a in legal:
        if isinstance(a, Kong):
            return a
    for a in legal:
        if isinstance(a, Pong | Chow):
            after = list(c)
            if isinstance(a, Pong):
                after[a.tile] -= 2
            else:
                taken = [a.low, a.low + 1, a.low + 2]
                # The claimed tile is the one of the run the hand does not hold.
                for t in taken:
                    if after[t] > 0:
                        after[t] -= 1
                if sum(after) != sum(c) - 2:
                    continue
            if _best_shanten_after_discard(after, wilds, melds + 1) <= now:
                return a
    for a in legal:
        if isinstance(a, Pass):
            return a
    return legal[0]


def _best_shanten_after_discard(c: list[int], wilds: int, melds: int) -> int:
    best = 9
    for t, n in enumerate(c):
        if n:
            c[t] -= 1
            best = min(best, shanten(c, wilds, melds))
            c[t] += 1
    return best if any(c) else shanten(c, wilds, melds)


def _best_discard(c: list[int], wilds: int, melds: int, discards: list[Any], rng: random.Random) -> Any:
    floor = shanten(c, wilds, melds)
    ranked = sorted(discards, key=lambda a: (keep_value(c, a.tile), rng.random()))
    scored = []
    for a in ranked:
        c[a.tile] -= 1
        s = shanten(c, wilds, melds)
        c[a.tile] += 1
        if s <= floor:
            return a
        scored.append((s, a))
    return min(scored, key=lambda sa: sa[0])[1]


PROFILE = mahjong.Profile(
    wild=lambda view: view.laizi,
    shanten=shanten_258,
    eager_claims=True,
    untouchable=lambda view: frozenset(view.skins) | ({view.laizi} if view.laizi is not None else set()),
)


def strong_bot(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """engine.bots.mahjong's player told wuhan's rules: the 赖子 is wild and never thrown, skins
    and a second 赖子 are laid out at once (as the greedy bot does), the pair must be a 2, 5 or 8
    for a 小胡, and it claims whatever keeps the hand as close to ready: a closed hand never wins
    and each 开口 doubles what the losers pay, which is how a hand reaches 起胡."""
    if not any(isinstance(a, Win) for a in legal):
        laid = _laid_out(view, legal, _split(view)[1])
        if laid is not None:
            return laid
    return mahjong.play(view, legal, rng, PROFILE)


BOTS: Mapping[str, Bot] = {"random": random_bot, "greedy": greedy_bot,
                           "easy": easy, "normal": greedy_bot, "strong": strong_bot}
