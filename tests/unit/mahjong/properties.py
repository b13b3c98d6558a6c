"""What the mahjong rulesets' property tests (tests/unit/<ruleset>/test_properties.py) play and
read: bot-played hands event by event, the tiles a stored or shown form names, and the legal
actions set against what decide accepts."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.core.contract import AnyRuleset, Bot, StartHand, Status
from engine.core.errors import RuleViolation
from engine.jj import RULESET as JJ
from engine.koudian import RULESET as KOUDIAN
from engine.mahjong.bots import random_bot
from engine.mahjong.tiles import TileNotationError, parse_tile
from engine.wuhan import RULESET as WUHAN


def play_hands(rs: AnyRuleset, seed: int, hands: int, options: Callable[[random.Random], dict[str, Any]],
               greedy: Bot, greedy_share: float) -> tuple[list[Any], list[Any]]:
    """The events of `hands` bot-played hands (`greedy` for `greedy_share` of the moves, random ones
    for the rest, so that hands reach claims, kongs and wins) at a table with `options(rng)`, and
    the state after each event (None for the states in the middle of one command's events, which
    nobody is ever shown)."""
    rng = random.Random(seed)
    state = rs.initial()
    log: list[Any] = []
    states: list[Any] = []

    def apply(cmd: Any) -> None:
        nonlocal state
        for ev in rs.decide(state, cmd):
            state = rs.evolve(state, ev)
            log.append(ev)
            states.append(None)
        states[-1] = state

    for ev in rs.create("p", rs.options(options(rng))):
        state = rs.evolve(state, ev)
        log.append(ev)
        states.append(state)
    for _n in range(hands):
        apply(StartHand(rng.randbytes(8), rng.randbytes(8)))
        while rs.status(state) is Status.IN_HAND:
            seat = next(iter(rs.deadline(state).defaults))
            legal = rs.legal_actions(state, seat)
            bot = greedy if rng.random() < greedy_share else random_bot
            cmd = bot(rs.view(state, seat), legal, rng)
            assert cmd in legal
            apply(cmd)
    return log, states


@dataclass(frozen=True)
class Bots:
    """How a ruleset's property tests play: its table's options (drawn with the hand's rng), its
    greedy bot and the share of moves it makes (the rest random)."""

    ruleset: AnyRuleset
    greedy: Bot
    greedy_share: float
    options: Callable[[random.Random], dict[str, Any]] = field(default=lambda rng: {})

    def play(self, seed: int, hands: int = 1) -> tuple[list[Any], list[Any]]:
        """`play_hands` at this ruleset's table."""
        return play_hands(self.ruleset, seed, hands, self.options, self.greedy, self.greedy_share)


# Greedy and random moves mixed, so that hands reach ready declarations, claims, every kind of
# kong, robbing, wuhan's last four draws and wins.
KOUDIAN_BOTS = Bots(KOUDIAN, KOUDIAN.bots["greedy"], 0.7)
WUHAN_BOTS = Bots(WUHAN, WUHAN.bots["greedy"], 0.8, lambda rng: {"min_win": rng.choice([1, 8, 32])})
JJ_BOTS = Bots(JJ, JJ.bots["greedy"], 0.7)


def tiles_in(data: Any, skip: str) -> Counter[int]:
    """Every tile named anywhere in JSON-shaped data but under the key `skip`."""
    found: Counter[int] = Counter()
    if isinstance(data, str):
        try:
            found[parse_tile(data)] += 1
        except TileNotationError:
            pass
    elif isinstance(data, dict):
        for k, v in data.items():
            if k != skip:
                found += tiles_in(v, skip)
    elif isinstance(data, list):
        for v in data:
            found += tiles_in(v, skip)
    return found


def accepted(rs: AnyRuleset, state: Any, candidates: list[Any]) -> list[Any]:
    """The commands among `candidates` that decide accepts in `state`."""
    taken = []
    for cmd in candidates:
        try:
            rs.decide(state, cmd)
        except RuleViolation:
            continue
        taken.append(cmd)
    return taken
