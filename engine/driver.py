"""Driving a table through the engine contract alone, with no service: fold, decide-and-apply,
whose move it is. Self-play, scenarios, property tests and benchmarks use it."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from engine.core.contract import Bot, Ruleset

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")


def fold(ruleset: Ruleset[S, Any, E, Any], events: Iterable[E], state: S | None = None) -> S:
    """Replay: the state after `events`, from `initial()` unless a state is given."""
    return functools.reduce(ruleset.evolve, events, ruleset.initial() if state is None else state)


def apply(ruleset: Ruleset[S, C, E, Any], state: S, cmd: C, log: list[E]) -> S:
    """Decide `cmd`, append its events to `log`, and return the new state."""
    for ev in ruleset.decide(state, cmd):
        log.append(ev)
        state = ruleset.evolve(state, ev)
    return state


def apply_all(ruleset: Ruleset[S, C, E, Any], state: S, cmd: C, log: list[E]) -> S:
    """`apply`, then each step the table takes right after it (`follow_up`), as the server does,
    and the close of a claim window that only waits out its minimum (`waited_out`)."""
    state = apply(ruleset, state, cmd, log)
    while (step := ruleset.follow_up(state) or waited_out(ruleset, state)) is not None:
        state = apply(ruleset, state, step, log)
    return state


def waited_out(ruleset: Ruleset[S, C, Any, Any], state: S) -> C | None:
    """The clock's step once a decided claim window's minimum is over (`Deadline.min_ms`): a
    driver with no clock lets that time pass at once, as nobody is left to answer in it."""
    deadline = ruleset.deadline(state)
    if deadline is None or not deadline.min_ms or list(deadline.defaults) != [None]:
        return None
    step: C = deadline.defaults[None]
    return step


def bot_command(ruleset: Ruleset[S, C, Any, Any], state: S, seats: int, choose: Bot,
                rng: random.Random) -> C:
    """The next command when bots sit in every seat: a seat that owes a decision decides (its
    timeout default if the bot declines); while only the table clock owes one (dealing), any
    seat with optional moves (bids) may act first, else the clock's default runs."""
    deadline = ruleset.deadline(state)
    if deadline is None or not deadline.defaults:
        raise RuntimeError("a hand in progress owes no decision (no deadline)")
    defaults: Mapping[int | None, C] = deadline.defaults
    cmd: C | None
    if list(defaults) == [None]:
        for optional in range(seats):
            legal = ruleset.legal_actions(state, optional)
            if legal:
                cmd = choose(ruleset.view(state, optional), legal, rng)
                if cmd is not None:
                    return cmd
        return defaults[None]
    owing = next(iter(defaults))
    if owing is None:
        return defaults[None]
    legal = ruleset.legal_actions(state, owing)
    if not legal:
        raise RuntimeError(f"seat {owing} owes a decision but has no legal action")
    cmd = choose(ruleset.view(state, owing), legal, rng)
    return defaults[owing] if cmd is None else cmd
