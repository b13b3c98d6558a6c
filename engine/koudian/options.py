"""The options of a koudian table, recorded in its creation event."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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


@value("koudian.Options")
class Options:
    """Rule options (koudian.md) and the platform's timing for auto-play (托管); each integer
    with the range a table accepts (docs/rules/koudian.md, "Options")."""

    seven_pairs: bool = False
    dealer_stays_on_draw: bool = True
    allow_exposed_kong_from_discard: bool = True
    base_score: int = ranged(1, 1, 1000)
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


def make_options(overrides: Mapping[str, Any] | None = None) -> Options:
    """Options with `overrides` applied; a bad key or value raises ValueError naming it."""
    return core_options.make_options(Options, overrides, "koudian")
