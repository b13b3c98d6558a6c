"""Settlement of a hand (daqi.md, "End of hand and 抠底", "Settlement").

The 抓分方's points `P` (tricks plus 抠底) give a grade `g` by the thresholds (default 80, steps
of 40); each 抓分方 player pays `g × base` (receives it when g < 0); the 庄家方 receives the total:
the friend `g × base` and the 庄家 the rest (all of it in 1 vs 4).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.payments import Payment
from engine.core.payments import deltas as owed
from engine.daqi.options import Options

OUTCOMES = {
    3: "dealer_side_wins_big",  # 大光: the 抓分方 took nothing
    2: "dealer_side_wins_small",  # 小光
    1: "dealer_side_wins",
    -1: "takers_win",
    -2: "takers_win_double",
    -3: "takers_win_big",
}
"""The stable outcome label of each grade."""


def kou_di_multiplier(takers_won_last: bool, last_lead_size: int) -> int:
    """抠底: 0 when the 庄家方 won the last trick, ×1 when it was led as a single, ×2 when it was
    led as a pair or a tractor ("单牌扣底 1 倍, 对子和拖拉机 2 倍")."""
    if not takers_won_last:
        return 0
    return 1 if last_lead_size == 1 else 2


def grade(points: int, options: Options) -> int:
    """The grade of the 抓分方's points: +3 (大光, 0 points) down to −3 (the top band)."""
    threshold, step = options.threshold, options.threshold_step
    if points == 0:
        return 3
    if points < threshold - step:
        return 2
    if points < threshold:
        return 1
    if points < threshold + step:
        return -1
    if points < threshold + 2 * step:
        return -2
    return -3


def payments(g: int, declarer: int, friend: int | None, seats: int, base: int) -> tuple[Payment, ...]:
    """Who pays whom for grade `g`: each 抓分方 player pays `|g| × base` to the 庄家方 (g > 0) or
    is paid it (g < 0). The friend's share is settled with the first 抓分方 player after the
    friend in seat order, the 庄家's with each of the others (docs/rules/daqi.md)."""
    unit = abs(g) * base
    paired = takers(declarer, friend, seats)
    if friend is not None:
        first = min(paired, key=lambda s: (s - friend) % seats)
        partner = {s: (friend if s == first else declarer) for s in paired}
    else:
        partner = {s: declarer for s in paired}
    reason = OUTCOMES[g]
    if g > 0:
        return tuple(Payment(s, partner[s], unit, reason) for s in paired)
    return tuple(Payment(partner[s], s, unit, reason) for s in paired)


def deltas(
    g: int, declarer: int, friend: int | None, seats: int, base: int
) -> tuple[int, ...]:
    """What each seat gains (negative: pays) for grade `g`; sums to zero."""
    return owed(payments(g, declarer, friend, seats, base), seats)


def takers(declarer: int, friend: int | None, seats: int) -> tuple[int, ...]:
    """The 抓分方: every seat but the 庄家 and the friend."""
    return tuple(s for s in range(seats) if s != declarer and s != friend)


def taker_points(won: Sequence[int], declarer: int, friend: int | None) -> int:
    """Trick points won by the 抓分方 (without 抠底)."""
    return sum(p for s, p in enumerate(won) if s != declarer and s != friend)
