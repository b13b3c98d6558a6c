"""Option validation every ruleset shares: an options object from the defaults and overrides.

Every integer option declares its range next to its default (`ranged`), so a table can never be
created with a value the service cannot serve (a timeout of 1e300 ms, a billion rounds): the
range is part of the option, checked here, listed in docs/rules/<game>.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, NamedTuple, TypeVar

Opts = TypeVar("Opts")

RANGE = "qipai.range"  # the field-metadata key of an integer option's range
CURRENT = "qipai.current"  # the field-metadata key of a revised option's value for new tables
SINCE = "qipai.since"  # the field-metadata key of the rules revision (engine.table.RULES) that revised it


class Range(NamedTuple):
    """The inclusive bounds of an integer option."""

    low: int
    high: int

    def __str__(self) -> str:
        return f"{self.low}..{self.high}"


def ranged(default: int, low: int, high: int) -> Any:
    """An integer option's dataclass field: its default and the inclusive range it accepts."""
    if not low <= default <= high:
        raise ValueError(f"default {default} is outside its own range {low}..{high}")
    return dataclasses.field(default=default, metadata={RANGE: Range(low, high)})


def revised(before: int, current: int, low: int, high: int, since: int = 1) -> Any:
    """An integer option whose rule changed in rules revision `since` (engine.table.RULES): a
    table recorded without it (created before the change) reads `before`, so it replays as it
    was played; a table created now records `current` (`for_new_table`) unless its creator
    chose otherwise."""
    field = ranged(before, low, high)
    if not low <= current <= high:
        raise ValueError(f"current value {current} is outside its own range {low}..{high}")
    return dataclasses.field(default=field.default, metadata={**field.metadata, CURRENT: current, SINCE: since})


def _revised(cls: type, after: int) -> list[dataclasses.Field[Any]]:
    """The revised options of `cls` changed in a rules revision later than `after`."""
    return [f for f in dataclasses.fields(cls) if CURRENT in f.metadata and f.metadata[SINCE] > after]


def for_new_table(cls: type, overrides: Mapping[str, Any] | None, rules: int | None = None) -> dict[str, Any]:
    """`overrides` with each revised option of `cls` not given set to its current value; with
    `rules`, only the options revised up to that revision (a table created then)."""
    current = {f.name: f.metadata[CURRENT] for f in dataclasses.fields(cls)
               if CURRENT in f.metadata and (rules is None or f.metadata[SINCE] <= rules)}
    return {**current, **(overrides or {})}


def as_recorded_before(cls: type, data: Mapping[str, Any], rules: int = 0) -> dict[str, Any]:
    """The options `data` (of class `cls`) as a table created under rules revision `rules`
    holds them: each option revised later, at its old value, left out (it did not exist)."""
    before = {f.name: f.default for f in _revised(cls, rules)}
    return {k: v for k, v in data.items() if k not in before or v != before[k]}


def ranges(cls: type) -> dict[str, Range]:
    """Each integer option of the options class `cls` with its range."""
    return {f.name: f.metadata[RANGE] for f in dataclasses.fields(cls) if RANGE in f.metadata}


def make_options(cls: type[Opts], overrides: Mapping[str, Any] | None, game: str) -> Opts:
    """`cls` (a frozen dataclass of bool fields and `ranged` int fields) with `overrides`
    applied. An unknown key, a bool that is not true/false, or an int outside its range raises
    ValueError naming the option and what it accepts."""
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for key, given in (overrides or {}).items():
        spec = fields.get(key)
        if spec is None:
            raise ValueError(f"unknown {game} option {shown(key)}; known: {', '.join(fields)}")
        if spec.type in ("bool", bool):
            if not isinstance(given, bool):
                raise ValueError(f"{game} option {key!r} must be true or false, not {shown(given)}")
            continue
        bounds = spec.metadata.get(RANGE)
        if bounds is None:
            raise TypeError(f"{game} option {key!r} declares no range: use ranged(default, low, high)")
        if isinstance(given, bool) or not isinstance(given, int) or not bounds.low <= given <= bounds.high:
            raise ValueError(f"{game} option {key!r} must be an integer in {bounds}, not {shown(given)}")
    return cls(**(overrides or {}))


def shown(value: Any) -> str:
    """A value for an error message, cut short (a client may send a 1 MiB string)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
