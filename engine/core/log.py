"""The folding log: the events of one decision, each applied to the state as it is written.

`decide` builds its events through a `Log`, so every later step of the same decision reads the
state the earlier events made: decide and evolve can never disagree, and no rule is computed twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from engine.core.steps import step

S = TypeVar("S")
E = TypeVar("E")


class Log(Generic[S, E]):
    """The events of one decision, folded with `evolve` as they are added."""

    def __init__(self, state: S, evolve: Callable[[S, E], S]) -> None:
        self.state = state
        self.events: list[E] = []
        self._evolve = evolve

    def add(self, ev: E) -> None:
        """Record `ev` and apply it to `state`."""
        self.events.append(ev)
        # Remembered: the table aggregate applies the same events to the same states again.
        self.state = step(self._evolve, self.state, ev)
