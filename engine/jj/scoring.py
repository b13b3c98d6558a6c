"""What a win is worth in chips and who pays it (jj.md, "Scoring").

经典: score = fans × base × (1.5 self-draw | 1 on a discard). The hand's five parts (4 sets and the
pair) are worth 20% each; whoever fed a claimed set (chow, pong, exposed kong) pays its 20%, the
discarder pays the rest, and on a self-draw the rest is split among the three others.
血战: score = fans × base × (3 self-draw | 1 on a discard), no sharing: the discarder pays it all,
or the seats still in the hand split a self-draw.

Chips are integers: the score is rounded half up once, each 20% part is rounded half up, and the
rest (score minus parts) is what remains, so the payments always sum exactly to the score. A split
rest gives the odd chips one each to the payers first in turn order after the winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from engine.core.messages import value

CLASSIC = "classic"
XUEZHAN = "xuezhan"
_SELF_DRAW = {CLASSIC: Fraction(3, 2), XUEZHAN: Fraction(3)}
PART = Fraction(1, 5)


@value("jj.Payment")
class Payment:
    """`payer` owes `payee` `points` chips; `reason` is "part" (a claimed set's 20%), "discard"
    (the discarder) or "self_draw" (a share of a self-draw)."""

    payer: int
    payee: int
    points: int
    reason: str


def round_half_up(x: Fraction) -> int:
    return int((x + Fraction(1, 2)).__floor__())


def score(fans: int, base: int, self_drawn: bool, mode: str) -> Fraction:
    """fans × base × coefficient, before rounding."""
    return fans * base * (_SELF_DRAW[mode] if self_drawn else Fraction(1))


def payments(
    exact: Fraction,
    winner: int,
    discarder: int | None,
    fed_by: Sequence[int],
    payers: Sequence[int],
    mode: str,
) -> tuple[Payment, ...]:
    """The payments of one win. `fed_by` is the seat that fed each claimed set of the winner
    (classic sharing); `payers` the seats that split a self-draw, in turn order after the winner."""
    total = round_half_up(exact)
    owed: dict[tuple[int, str], int] = {}
    rest = total
    if mode == CLASSIC:
        for seat in fed_by:
            part = min(round_half_up(exact * PART), rest)
            if seat != discarder and part:
                owed[seat, "part"] = owed.get((seat, "part"), 0) + part
                rest -= part
    if discarder is not None:
        owed[discarder, "discard"] = rest
    else:
        share, odd = divmod(rest, len(payers))
        for i, seat in enumerate(payers):
            owed[seat, "self_draw"] = share + (1 if i < odd else 0)
    return tuple(Payment(seat, winner, points, reason) for (seat, reason), points in owed.items() if points)


def capped(pays: Sequence[Payment], chips: Sequence[int]) -> tuple[Payment, ...]:
    """积分最小化: each payment, in order, is the smallest of the winner's table chips (as brought
    into the hand), the payer's chips left after its earlier payments, and the amount owed, so
    nobody's chips go below zero. The same rule as the ledger's `engine.core.payments.settle`
    (branch ledger), which this gives way to once it lands."""
    left = list(chips)
    out = []
    for p in pays:
        paid = max(0, min(p.points, left[p.payer], chips[p.payee]))
        left[p.payer] -= paid
        out.append(Payment(p.payer, p.payee, paid, p.reason))
    return tuple(out)


def deltas(pays: Sequence[Payment], seats: int) -> tuple[int, ...]:
    """Each seat's chip change (sums to zero)."""
    d = [0] * seats
    for p in pays:
        d[p.payer] -= p.points
        d[p.payee] += p.points
    return tuple(d)
