"""The options of a wuhan table, recorded in its creation event (rules/wuhan.md, "Options")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal

from engine.core import options as core_options
from engine.core.messages import value
from engine.core.options import ranged, revised
from engine.mahjong.claims import (
    CLAIM_WINDOW_MIN_MS,
    TIMEOUTS_PRIVATE,
    TIMEOUTS_PUBLIC,
    WINDOW_ALWAYS,
    WINDOW_WHEN_CLAIMABLE,
)

FROM_DEALER: Literal["from_dealer"] = "from_dealer"
FROM_DISCARDER: Literal["from_discarder"] = "from_discarder"


@value("wuhan.Options")
class Options:
    """Rule options (wuhan.md and docs/rules/wuhan.md) and the platform's timing for auto-play.

    `min_win` is the 起胡 threshold (the most any one loser would pay, before caps, in 底分);
    the caps are in 底分 too; `base_score` is the 底分 itself, the score one unit is worth.
    `win_priority` says who wins when several seats may win on one tile (截胡): the first in
    play order from the dealer, or from the seat after the discarder. Each integer has the range
    a table accepts (docs/rules/wuhan.md, "Options")."""

    min_win: int = ranged(32, 0, 1000)
    base_score: int = ranged(1, 1, 1000)
    cap: int = ranged(400, 1, 100_000)
    golden_cap: int = ranged(500, 1, 100_000)
    sunshine_cap: int = ranged(600, 1, 100_000)
    ha_cap: int = ranged(700, 1, 100_000)
    win_priority: Literal["from_dealer", "from_discarder"] = FROM_DEALER
    rounds_per_match: int = ranged(4, 1, 64)
    turn_timeout_ms: int = ranged(15_000, 100, 600_000)
    claim_timeout_ms: int = ranged(8_000, 100, 600_000)
    # When claim windows open (engine.mahjong.claims): 2 for tables created now, 1 for tables
    # recorded before the option existed.
    claim_window: int = revised(WINDOW_WHEN_CLAIMABLE, WINDOW_ALWAYS, WINDOW_WHEN_CLAIMABLE, WINDOW_ALWAYS)
    # Rules revision 3 (docs/hidden-information.md): how long every claim window stays open at
    # least, unless every other seat answered (0, tables recorded before: closed once decided),
    # and who is told that a seat missed one (2: that seat alone; 1, tables recorded before: all).
    claim_window_min_ms: int = revised(0, CLAIM_WINDOW_MIN_MS, 0, 5_000, since=3)
    claim_timeouts: int = revised(TIMEOUTS_PUBLIC, TIMEOUTS_PRIVATE, TIMEOUTS_PUBLIC, TIMEOUTS_PRIVATE, since=3)


_PRIORITIES = (FROM_DEALER, FROM_DISCARDER)


def make_options(overrides: Mapping[str, Any] | None = None) -> Options:
    """Options with `overrides` applied; a bad key or value raises ValueError naming it. The
    integer options are checked against their ranges by engine.core.options (`min_win` may be
    0: no 起胡)."""
    overrides = dict(overrides or {})
    priority = overrides.pop("win_priority", FROM_DEALER)
    if priority not in _PRIORITIES:
        raise ValueError(f"wuhan option 'win_priority' must be one of {', '.join(_PRIORITIES)}, not {core_options.shown(priority)}")
    options = replace(core_options.make_options(Options, overrides, "wuhan"),
                      win_priority=priority)
    if not options.cap <= options.golden_cap <= options.sunshine_cap <= options.ha_cap:
        raise ValueError("wuhan caps must rise: cap <= golden_cap <= sunshine_cap <= ha_cap")
    return options
