"""Safe-tile reading: how likely a discard is to complete a threatening seat's hand.

A seat threatens when it has declared ready (报听) or shows a big hand (three melds or more).
Against each threat a tile is safe when the seat discarded it after declaring ready (it would
have won on it: a locked hand throws only what does not complete it), or when the ruleset lets
nobody win on it off a discard (koudian: a tile worth under 6). Otherwise the danger is the
share of ways to wait on it: a middle number tile is waited on in the most shapes, a terminal
in fewer, an honour only as a pair or a single, and fewer still when most of its copies are seen.
The view only: face-down discards and other hands stay unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

BIG_HAND_MELDS = 3


def threats(view: Any) -> list[int]:
    """The other seats that have declared ready or show a big hand (and have not already won)."""
    ready = getattr(view, "ready", ()) or ()
    won = set(getattr(view, "won", ()) or ())
    out = []
    for s, melds in enumerate(view.melds):
        if s == view.seat or s in won:
            continue
        if (s < len(ready) and ready[s]) or len(melds) >= BIG_HAND_MELDS:
            out.append(s)
    return out


def after_ready(river: Sequence[Any]) -> frozenset[int]:
    """The tiles a seat threw after its face-down ready discard (koudian shows it as None)."""
    for i, t in enumerate(river):
        if t is None:
            return frozenset(x for x in river[i + 1:] if x is not None)
    return frozenset()


def shape_danger(t: int, left: int) -> float:
    """How many ways a hand may wait on `t` (0..1), from the tile's rank and the unseen copies."""
    if t >= 27:
        return 0.15 * min(left, 3) / 3 + 0.1
    n = t % 9
    base = 0.5 if n in (0, 8) else 0.8 if n in (1, 7) else 1.0
    return base * (0.5 + 0.5 * min(left, 3) / 3)


def danger(view: Any, t: int, left: Sequence[int], against: Sequence[int],
           winnable: Callable[[int], bool]) -> float:
    """The danger of discarding `t` against the seats `against` (their sum, 0 = safe)."""
    if not winnable(t):
        return 0.0
    total = 0.0
    for s in against:
        river = view.rivers[s]
        if t in after_ready(river):
            continue
        d = shape_danger(t, left[t])
        if t in river:
            d *= 0.3  # thrown once already: rarely a tile that seat still wants
        total += d
    return total
