"""The options of a koudian table, recorded in its creation event."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from engine.core.messages import value


@value("koudian.Options")
class Options:
    """Rule options (koudian.md) and the platform's timing for auto-play (托管)."""

    seven_pairs: bool = False
    dealer_stays_on_draw: bool = True
    allow_exposed_kong_from_discard: bool = True
    base_score: int = 1
    rounds_per_match: int = 4
    turn_timeout_ms: int = 15_000
    claim_timeout_ms: int = 8_000


_POSITIVE = {"base_score", "rounds_per_match", "turn_timeout_ms", "claim_timeout_ms"}


def make_options(overrides: Mapping[str, Any] | None = None) -> Options:
    """Options with `overrides` applied; a bad key or value raises ValueError naming it."""
    fields = {f.name: f for f in dataclasses.fields(Options)}
    values: dict[str, Any] = {}
    for key, val in (overrides or {}).items():
        if key not in fields:
            raise ValueError(f"unknown koudian option {key!r}; known: {', '.join(fields)}")
        if key in _POSITIVE:
            if isinstance(val, bool) or not isinstance(val, int) or val < 1:
                raise ValueError(f"koudian option {key!r} must be a positive integer, not {val!r}")
        elif not isinstance(val, bool):
            raise ValueError(f"koudian option {key!r} must be true or false, not {val!r}")
        values[key] = val
    return Options(**values)
