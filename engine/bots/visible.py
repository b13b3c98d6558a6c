"""What a seat has not seen: of each of the 34 kinds, the copies that are neither in its hand nor
shown on the table (melds, face-up discards, laid-out tiles, an indicator). The view only."""

from __future__ import annotations

from typing import Any

KINDS = 34


def unseen(view: Any) -> list[int]:
    """Copies of each kind the seat cannot see. A claimed discard some rulesets leave in the river
    is counted twice; the floor at 0 keeps that harmless."""
    left = [4] * KINDS
    for t in view.hand:
        left[t] -= 1
    for melds in view.melds:
        for m in melds:
            for t in m.tiles:
                left[t] -= 1
    for river in view.rivers:
        for t in river:
            if t is not None and t < KINDS:
                left[t] -= 1
    for laid in getattr(view, "laid", ()):
        for t in laid:
            if t < KINDS:
                left[t] -= 1
    indicator = getattr(view, "indicator", None)
    if indicator is not None and indicator < KINDS:
        left[indicator] -= 1
    return [max(0, n) for n in left]
