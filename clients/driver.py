"""Driving a table through the engine contract alone: fold, decide-and-apply, whose move it is."""

from __future__ import annotations

import functools
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
