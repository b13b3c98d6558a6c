"""Option validation every ruleset shares: an options object from the defaults and overrides."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

Opts = TypeVar("Opts")


def make_options(cls: type[Opts], overrides: Mapping[str, Any] | None, game: str,
                 minimum: Mapping[str, int]) -> Opts:
    """`cls` (a frozen dataclass of bool and int fields) with `overrides` applied. An unknown key,
    a bool that is not true/false, or an int below its `minimum` (1 when not listed) raises
    ValueError naming the option."""
    fields = {f.name: f.type for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for key, given in (overrides or {}).items():
        kind = fields.get(key)
        if kind is None:
            raise ValueError(f"unknown {game} option {key!r}; known: {', '.join(fields)}")
        if kind in ("bool", bool):
            if not isinstance(given, bool):
                raise ValueError(f"{game} option {key!r} must be true or false, not {given!r}")
            continue
        least = minimum.get(key, 1)
        if isinstance(given, bool) or not isinstance(given, int) or given < least:
            raise ValueError(f"{game} option {key!r} must be an integer >= {least}, not {given!r}")
    return cls(**(overrides or {}))
