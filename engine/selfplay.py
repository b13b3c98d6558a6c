"""Self-play: bots play hands through the engine contract alone and every hand is checked
(`qipai selfplay` and the self-play benchmark time it).

After each hand: the ruleset's invariants hold (`check`: cards/tiles conserved...), the hand's
payments sum to zero, and replaying the table's events from scratch gives the live state.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import rulesets
from engine.core.contract import AnyRuleset, HandResult, StartHand, Status
from engine.core.payments import deltas as owed
from engine.driver import apply, apply_all, bot_command, fold

HANDS_PER_TABLE = 16  # a fresh table now and then: daqi tables never end, and logs stay small


class SelfplayFailure(Exception):
    """A hand broke an invariant; carries what is needed to reproduce it."""

    def __init__(self, seed: int, hand: int, reason: str) -> None:
        super().__init__(f"hand {hand} (seed {seed}): {reason}")
        self.seed, self.hand, self.reason = seed, hand, reason


@dataclass
class Summary:
    ruleset: str
    bot: str
    seed: int
    hands: int = 0
    seconds: float = 0.0
    decisions: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    total_points: int = 0

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "bot": self.bot,
            "seed": self.seed,
            "hands": self.hands,
            "seconds": round(self.seconds, 3),
            "hands_per_s": round(self.hands_per_s, 1),
            "decisions": self.decisions,
            "outcomes": dict(sorted(self.outcomes.items())),
            "average_points": round(self.total_points / self.hands, 2) if self.hands else 0.0,
        }


def hand_secrets(seed: int, hand: int) -> tuple[bytes, bytes]:
    """The seed and salt of hand number `hand` of a self-play run, derived from the run's seed."""
    base = hashlib.sha256(f"selfplay:{seed}:{hand}".encode()).digest()
    return base[:16], base[16:]


def play(
    ruleset_name: str,
    hands: int,
    seed: int,
    bot: str = "greedy",
    options: Mapping[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
    verify: bool = True,
) -> Summary:
    """Play `hands` hands with `bot` in every seat; raises SelfplayFailure on a broken invariant.
    `summary.seconds` stays 0: the engine reads no clock (clients.selfplay.play times the run)."""
    rs = rulesets.get(ruleset_name)
    if bot not in rs.bots:
        raise ValueError(f"unknown bot {bot!r}; {ruleset_name} has {', '.join(sorted(rs.bots))}")
    choose = rs.bots[bot]
    opts = rs.new_options(options)
    seats = rs.seats(opts)
    rng = random.Random(seed)
    summary = Summary(ruleset_name, bot, seed)
    tables = 0
    log: list[Any] = []
    state: Any = None
    hands_here = 0
    while summary.hands < hands:
        if state is None or rs.status(state) is Status.MATCH_OVER or hands_here >= HANDS_PER_TABLE:
            tables += 1
            log = list(rs.create(f"selfplay-{seed}-{tables}", opts))
            state = fold(rs, log)
            hands_here = 0
        hand_no = summary.hands + 1
        before, first_event = state, len(log)
        try:
            state = apply(rs, state, StartHand(*hand_secrets(seed, hand_no)), log)
            while rs.status(state) is Status.IN_HAND:
                state = apply_all(rs, state, bot_command(rs, state, seats, choose, rng), log)
                summary.decisions += 1
        except SelfplayFailure:
            raise
        except Exception as exc:  # any engine error is a finding, reported with its seed
            raise SelfplayFailure(seed, hand_no, f"{type(exc).__name__}: {exc}") from exc
        result = rs.hand_result(state)
        if result is None:
            raise SelfplayFailure(seed, hand_no, "the hand ended without a result")
        if verify:
            _check(rs, before, state, log[first_event:], result, seed, hand_no)
        summary.hands += 1
        hands_here += 1
        summary.outcomes[result.outcome] += 1
        summary.total_points += result.points
        if progress:
            progress(summary.hands)
    return summary


def _check(rs: AnyRuleset, before: Any, state: Any, events: list[Any], result: HandResult, seed: int,
           hand: int) -> None:
    """The hand's invariants; replay folds the hand's events onto the state it began from (the
    hands before were checked the same way, so by induction the whole table replays)."""
    problems = list(rs.check(state))
    if sum(result.deltas) != 0:
        problems.append(f"payments do not sum to zero: {result.deltas}")
    if owed(result.payments, len(result.deltas)) != result.deltas:
        problems.append(f"the payments {result.payments} do not make the deltas {result.deltas}")
    if fold(rs, events, before) != state:
        problems.append("replaying the events does not give the live state")
    if problems:
        raise SelfplayFailure(seed, hand, "; ".join(problems))
