"""Bot levels: `easy` (the 托管 default: it takes every win and otherwise discards what it drew,
passes claims, buries and plays as cheaply as it can), `normal` (each ruleset's greedy bot) and
`strong` (the ruleset's strong bot). A table names the level of its bot seats in their player
ids (`bot_id`, `level_of`); a seat on 托管 because its player stepped away keeps playing `easy`
unless the table asks otherwise. `command_for` is what a table's clock sends for a bot seat."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.core.contract import AnyRuleset, Bot

LEVELS = ("easy", "normal", "strong")
DEFAULT_LEVEL = "easy"


def easy(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """The 托管 default: None lets the seat's timeout default stand (and the deal go on)."""
    return None


def check_level(level: str) -> str:
    """`level` if it is one; a clear ValueError naming the levels otherwise."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; levels: {', '.join(LEVELS)}")
    return level


def bot_id(base: str, level: str) -> str:
    """A bot seat's player id (`base` = "bot-<rest>") naming `level` when above the default:
    "bot-strong-<rest>". The id is what a table records of its bot seats, so a table replays
    with the level it was played at, and ids from before levels read as the default."""
    check_level(level)
    if level == DEFAULT_LEVEL:
        return base
    prefix, _, rest = base.partition("-")
    return f"{prefix}-{level}-{rest}"


def level_of(player_id: str) -> str:
    """The level a bot seat's id names (the default when it names none)."""
    parts = player_id.split("-", 2)
    return parts[1] if len(parts) > 2 and parts[1] in LEVELS else DEFAULT_LEVEL


def bot(ruleset: AnyRuleset, level: str) -> Bot:
    """The bot playing `level` at a table of `ruleset`."""
    return ruleset.bots[check_level(level)]


def command_for(ruleset: AnyRuleset, state: Any, seat: int, level: str, seed: bytes) -> Any:
    """What a bot seat of `level` sends now (None: nothing of its own, take the 托管 default).
    Deterministic given `seed` (a table passes its Timeout's seed), and it reads the seat's view
    only, never the hidden state."""
    legal = ruleset.legal_actions(state, seat)
    if not legal:
        return None
    return bot(ruleset, level)(ruleset.view(state, seat), legal, random.Random(seed))
