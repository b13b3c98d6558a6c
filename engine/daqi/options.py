"""The options of a 打七 table (daqi.md, "Options"), recorded in the table's first event."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from engine.core.messages import value


@value("daqi.Options")
@dataclasses.dataclass(frozen=True, slots=True)
class DaqiOptions:
    """Rule options with the spec's defaults, plus the platform's timing."""

    deal_interval_ms: int = 300
    bid_window_ms: int = 5000
    allow_throw: bool = False
    must_follow_tractor: bool = True
    trump_chain_tractors: bool = False
    threshold: int = 80
    threshold_step: int = 40
    base: int = 1
    play_timeout_ms: int = 20000
    bury_timeout_ms: int = 30000


# The smallest value each integer option accepts.
_MINIMUM = {
    "deal_interval_ms": 0,
    "bid_window_ms": 0,
    "threshold": 1,
    "threshold_step": 1,
    "base": 1,
    "play_timeout_ms": 1,
    "bury_timeout_ms": 1,
}
_FIELDS = {f.name: f.type for f in dataclasses.fields(DaqiOptions)}


def daqi_options(overrides: Mapping[str, Any] | None = None) -> DaqiOptions:
    """The defaults with `overrides` applied; an unknown key or a bad value raises ValueError
    naming it. The spec's `thresholds` may be given as `[threshold, step]` (e.g. `[80, 40]`)."""
    values = dict(overrides or {})
    if "thresholds" in values:
        pair = values.pop("thresholds")
        if "threshold" in values or "threshold_step" in values:
            raise ValueError("option 'thresholds' cannot be combined with 'threshold'/'threshold_step'")
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise ValueError(f"option 'thresholds' must be [threshold, step], got {pair!r}")
        values["threshold"], values["threshold_step"] = pair
    for key, given in values.items():
        kind = _FIELDS.get(key)
        if kind is None:
            raise ValueError(f"unknown daqi option {key!r}; known: {', '.join(_FIELDS)}")
        if kind == "bool":
            if not isinstance(given, bool):
                raise ValueError(f"option {key!r} must be true or false, got {given!r}")
        elif isinstance(given, bool) or not isinstance(given, int) or given < _MINIMUM[key]:
            raise ValueError(f"option {key!r} must be an integer >= {_MINIMUM[key]}, got {given!r}")
    return DaqiOptions(**values)
