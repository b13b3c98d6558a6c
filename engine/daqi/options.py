"""The options of a 打七 table (daqi.md, "Options"), recorded in the table's first event."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import options as core_options
from engine.core.messages import value
from engine.core.options import ranged


@value("daqi.Options")
class Options:
    """Rule options with the spec's defaults, plus the platform's timing; each integer with the
    range a table accepts (docs/rules/daqi.md, "Options")."""

    deal_interval_ms: int = ranged(300, 0, 10_000)
    bid_window_ms: int = ranged(5000, 0, 120_000)
    allow_throw: bool = False
    must_follow_tractor: bool = True
    trump_chain_tractors: bool = False
    threshold: int = ranged(80, 5, 300)
    threshold_step: int = ranged(40, 5, 150)
    base: int = ranged(1, 1, 1000)
    play_timeout_ms: int = ranged(20000, 100, 600_000)
    bury_timeout_ms: int = ranged(30000, 100, 600_000)


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
    return core_options.make_options(Options, values, "daqi")
