"""A pure function's results remembered per immutable argument (a game state), by identity.

The game server asks the same question of the same state several times per action (the table
clock asks for the deadline to arm it, to show it in views and to remember it). Hashing a state
by value would cost more than the answer, so an entry is found by `id()` and holds the object
itself, which keeps that id from being reused while the entry lives.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import Any


class ByIdentity:
    """A bounded table of results per argument object: the oldest are forgotten first."""

    def __init__(self, limit: int) -> None:
        self._entries: dict[int, tuple[object, Any]] = {}
        self._limit = limit

    def get(self, obj: object, compute: Callable[[Any], Any]) -> Any:
        """`compute(obj)`, remembered from an earlier call with this very object if any."""
        entries = self._entries
        entry = entries.get(id(obj))
        if entry is not None and entry[0] is obj:
            return entry[1]
        result = compute(obj)
        if len(entries) >= self._limit:
            for key in list(islice(entries, self._limit // 4)):  # insertion order: oldest first
                entries.pop(key, None)
        entries[id(obj)] = (obj, result)
        return result
