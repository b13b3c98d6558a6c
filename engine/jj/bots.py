"""jj's bots: the mahjong bots, shown the hand without its 混 (they cannot be discarded, and the
shared bots know nothing of wilds); the legal commands already leave 混 out."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from engine.mahjong.bots import greedy_bot, random_bot


def greedy(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    if view.wild is not None:
        view = replace(view, hand=tuple(t for t in view.hand if t != view.wild))
    return greedy_bot(view, legal, rng)


BOTS = {"random": random_bot, "greedy": greedy}
