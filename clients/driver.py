"""Driving a table through the engine contract alone: fold, decide-and-apply, whose move it is."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable
from typing import Any

from engine.core.contract import Ruleset


def fold(ruleset: Ruleset, events: Iterable[Any], state: Any = None) -> Any:
    """Replay: the state after `events`, from `initial()` unless a state is given."""
    return functools.reduce(ruleset.evolve, events, ruleset.initial() if state is None else state)


def apply(ruleset: Ruleset, state: Any, cmd: Any, log: list[Any]) -> Any:
    """Decide `cmd`, append its events to `log`, and return the new state."""
    for ev in ruleset.decide(state, cmd):
        log.append(ev)
        state = ruleset.evolve(state, ev)
    return state


def bot_command(ruleset: Ruleset, state: Any, seats: int, choose: Any, rng: random.Random) -> Any:
    """The next command when bots sit in every seat: a seat that owes a decision decides (its
    timeout default if the bot declines); while only the table clock owes one (dealing), any
    seat with optional moves (bids) may act first, else the clock's default runs."""
    deadline = ruleset.deadline(state)
    if deadline is None or not deadline.defaults:
        raise RuntimeError("a hand in progress owes no decision (no deadline)")
    if list(deadline.defaults) == [None]:
        for seat in range(seats):
            legal = ruleset.legal_actions(state, seat)
            if legal:
                cmd = choose(ruleset.view(state, seat), legal, rng)
                if cmd is not None:
                    return cmd
        return deadline.defaults[None]
    seat = next(iter(deadline.defaults))
    if seat is None:
        return deadline.defaults[None]
    legal = ruleset.legal_actions(state, seat)
    if not legal:
        raise RuntimeError(f"seat {seat} owes a decision but has no legal action")
    cmd = choose(ruleset.view(state, seat), legal, rng)
    return deadline.defaults[seat] if cmd is None else cmd
