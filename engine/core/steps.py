"""The latest steps of a ruleset's `evolve`, remembered: the same event is applied to the same
state several times per command.

A ruleset's `decide` folds its events as it writes them (engine.core.log); the table aggregate
folds them again to settle a hand that ended and to see whether to reveal the deal, and its
`evolve` applies them once more. `evolve` is pure, so a step already taken is looked up: by the
ids of state and event, the entry holding both (which keeps those ids from being reused).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

S = TypeVar("S")
E = TypeVar("E")

LIMIT = 1024  # steps kept; a command takes a handful, so this spans many tables' latest ones
_steps: dict[tuple[int, int, Callable[..., Any]], tuple[Any, Any, Any]] = {}


def step(evolve: Callable[[S, E], S], state: S, ev: E) -> S:
    """`evolve(state, ev)`, taken once for this very state and event while it is remembered."""
    key = (id(state), id(ev), evolve)
    known = _steps.get(key)
    if known is not None and known[0] is state and known[1] is ev:
        return known[2]  # type: ignore[no-any-return]
    after = evolve(state, ev)
    if len(_steps) >= LIMIT:
        _steps.clear()
    _steps[key] = (state, ev, after)
    return after
