"""The options of a 打七 table (daqi.md, "Options"), recorded in the table's first event."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import options as core_options
from engine.core.messages import value


@value("daqi.Options")
class Options:
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


# The integer options that accept 0 (every other one must be at least 1).
_MINIMUM = {"deal_interval_ms": 0, "bid_window_ms": 0}


def make_options(overrides: Mapping[str, Any] | None = None) -> Options:
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
    return core_options.make_options(Options, values, "daqi", _MINIMUM)
