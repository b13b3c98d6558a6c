"""The options of a jj table (jj.md, "Options"), recorded in its creation event."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from engine.core import options as core_options
from engine.core.messages import value
from engine.core.options import ranged, revised
from engine.jj.scoring import CLASSIC, XUEZHAN
from engine.mahjong.claims import (
    CLAIM_WINDOW_MIN_MS,
    TIMEOUTS_PRIVATE,
    TIMEOUTS_PUBLIC,
    WINDOW_ALWAYS,
    WINDOW_WHEN_CLAIMABLE,
)
from engine.mahjong.tiles import TileNotationError, parse_tile


@value("jj.Options")
class Options:
    """Rule options and the platform's timing for auto-play (托管); each integer with the range a
    table accepts (docs/rules/jj.md, "Options and their ranges").

    `wild`: "indicator" (the kind after a turned-up tile), "none", or "fixed:<tile>" ("fixed:C").
    """

    wild: str = "indicator"
    min_fan: int = ranged(8, 0, 1000)
    mode: str = CLASSIC
    base: int = ranged(1, 1, 1000)
    allow_declare_ready: bool = True
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
    # Whether a ponged or chowed discard leaves the discarder's river (1: it does, as every kong
    # and discard win always did); 0 for tables recorded before the fix (rules revision 2),
    # where it stayed on the river as well, so that they replay as they were played.
    claimed_tile_leaves_river: int = revised(0, 1, 0, 1, since=2)
    # Whether 和绝张 on a discard counts the winning discard among the tiles seen (it lies on
    # its river while claimed): 1 for tables recorded before rules revision 2, which scored a
    # win on the third tile seen as the last of its kind; 0 for tables created now.
    last_tile_counts_its_discard: int = revised(1, 0, 0, 1, since=2)
    # Rules revision 3 (jj.md, "Decisions beyond the spec"); each 0 for tables recorded before,
    # which replay as they were played. Whether the additions that read the pair or the sets
    # (二五八将, 幺九头, 混龙) read the pair and set beside a 组合龙:
    knitted_straight_reads_pair: int = revised(0, 1, 0, 1, since=3)
    # Whether 血战's earlier winners' shown hands (their winning tiles included) count as seen
    # for 和绝张:
    winners_hands_seen: int = revised(0, 1, 0, 1, since=3)
    # Whether each payment is rounded half up on its own (25 fans self-drawn: 13/13/13), rather
    # than the score once with the odd chips to the first payers (13/13/12):
    each_payment_rounded: int = revised(0, 1, 0, 1, since=3)

    @property
    def xuezhan(self) -> bool:
        return self.mode == XUEZHAN


_CHOICES = {"wild", "mode"}  # the string options, checked here; the rest by engine.core.options


def make_options(overrides: Mapping[str, Any] | None = None) -> Options:
    """Options with `overrides` applied; a bad key or value raises ValueError naming it."""
    given = dict(overrides or {})
    chosen = {key: given.pop(key) for key in _CHOICES if key in given}
    if "mode" in chosen and chosen["mode"] not in (CLASSIC, XUEZHAN):
        raise ValueError(f"jj option 'mode' must be {CLASSIC!r} or {XUEZHAN!r}, not {core_options.shown(chosen['mode'])}")
    if "wild" in chosen:
        _check_wild(chosen["wild"])
    return dataclasses.replace(core_options.make_options(Options, given, "jj"), **chosen)


def _check_wild(val: Any) -> None:
    if val in ("indicator", "none"):
        return
    if isinstance(val, str) and val.startswith("fixed:"):
        try:
            t = parse_tile(val[6:])
        except TileNotationError:
            pass
        else:
            if t < 34:
                return
    raise ValueError(f"jj option 'wild' must be 'indicator', 'none' or 'fixed:<tile>' such as 'fixed:C', not {core_options.shown(val)}")
