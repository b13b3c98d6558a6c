"""The options of a wuhan table, recorded in its creation event (rules/wuhan.md, "Options")."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

from engine.core.messages import value

FROM_DEALER: Literal["from_dealer"] = "from_dealer"
FROM_DISCARDER: Literal["from_discarder"] = "from_discarder"


@value("wuhan.Options")
class Options:
    """Rule options (wuhan.md and docs/rules/wuhan.md) and the platform's timing for auto-play.

    `min_win` is the 起胡 threshold (the most any one loser would pay, before caps, in 底分);
    the caps are in 底分 too; `base_score` is the 底分 itself, the score one unit is worth.
    `win_priority` says who wins when several seats may win on one tile (截胡): the first in
    play order from the dealer, or from the seat after the discarder."""

    min_win: int = 32
    base_score: int = 1
    cap: int = 400
    golden_cap: int = 500
    sunshine_cap: int = 600
    ha_cap: int = 700
    win_priority: Literal["from_dealer", "from_discarder"] = FROM_DEALER
    rounds_per_match: int = 4
    turn_timeout_ms: int = 15_000
    claim_timeout_ms: int = 8_000


_POSITIVE = {"base_score", "cap", "golden_cap", "sunshine_cap", "ha_cap", "rounds_per_match", "turn_timeout_ms", "claim_timeout_ms"}
_PRIORITIES = (FROM_DEALER, FROM_DISCARDER)


def make_options(overrides: Mapping[str, Any] | None = None) -> Options:
    """Options with `overrides` applied; a bad key or value raises ValueError naming it."""
    fields = {f.name for f in dataclasses.fields(Options)}
    values: dict[str, Any] = {}
    for key, val in (overrides or {}).items():
        if key not in fields:
            raise ValueError(f"unknown wuhan option {key!r}; known: {', '.join(sorted(fields))}")
        if key == "win_priority":
            if val not in _PRIORITIES:
                raise ValueError(f"wuhan option 'win_priority' must be one of {', '.join(_PRIORITIES)}, not {val!r}")
        elif isinstance(val, bool) or not isinstance(val, int) or val < (1 if key in _POSITIVE else 0):
            kind = "a positive integer" if key in _POSITIVE else "an integer >= 0"
            raise ValueError(f"wuhan option {key!r} must be {kind}, not {val!r}")
        values[key] = val
    options = Options(**values)
    if not options.cap <= options.golden_cap <= options.sunshine_cap <= options.ha_cap:
        raise ValueError("wuhan caps must rise: cap <= golden_cap <= sunshine_cap <= ha_cap")
    return options
