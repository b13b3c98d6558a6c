"""Koudian's bots: the shared mahjong ones (engine.mahjong.bots) and the levels
(engine.bots.levels): `easy` the 托管 default, `normal` the greedy bot, `strong` the strong player
(engine.bots.mahjong) told koudian's win conditions: a hand wins only once declared ready (报听),
on a tile worth 3 or more drawn, 6 or more discarded, so a wait is worth its live copies of 3+
(more at 6+), and a discard under 6 is safe against every ready seat (nobody may win on it; a
seat that is not ready and feeds a ready one its 6+ wait pays for all three)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.bots import mahjong
from engine.bots.levels import easy
from engine.core.contract import Bot
from engine.koudian.scoring import DISCARD_MIN, SELF_DRAW_MIN
from engine.mahjong.bots import greedy_bot, random_bot
from engine.mahjong.tiles import face_value


def _wait_worth(view: Any, h: mahjong.Hand, t: int) -> float:
    v = face_value(t)
    return 0.0 if v < SELF_DRAW_MIN else 1.5 if v >= DISCARD_MIN else 1.0


def _winnable(t: int) -> bool:
    return face_value(t) >= DISCARD_MIN


PROFILE = mahjong.Profile(wait_worth=_wait_worth, winnable=_winnable, declares_ready=True)


def strong_bot(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """engine.bots.mahjong's player with koudian's win conditions (module docstring)."""
    return mahjong.play(view, legal, rng, PROFILE)


BOTS: Mapping[str, Bot] = {"random": random_bot, "greedy": greedy_bot,
                           "easy": easy, "normal": greedy_bot, "strong": strong_bot}
