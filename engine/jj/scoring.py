"""What a win is worth in chips and who pays it (jj.md, "Scoring").

经典: score = fans × base × (1.5 self-draw | 1 on a discard). The hand's five parts (4 sets and the
pair) are worth 20% each; whoever fed a claimed set (chow, pong, exposed kong) pays its 20%, the
discarder pays the rest, and on a self-draw the rest is split among the three others.
血战: score = fans × base × (3 self-draw | 1 on a discard), no sharing: the discarder pays it all,
or the seats still in the hand split a self-draw.

Chips are integers, and each payment is rounded half up on its own (jj.md: "round half up at each
payment"): a claimed set's 20%, the discarder's rest, each share of a split rest (25 fans
self-drawn, 37.5: 13 / 13 / 13). The winner receives what they sum to.

Tables recorded before rules revision 3 (`each_rounded` False) rounded the score once, each 20%
part half up, and the discarder or the split took the rest, the odd chips one each to the payers
first in turn order after the winner (13 / 13 / 12): they replay so.
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
    each_rounded: bool = True,
) -> tuple[Payment, ...]:
    """The payments of one win. `fed_by` is the seat that fed each claimed set of the winner
    (classic sharing); `payers` the seats that split a self-draw, in turn order after the winner;
    `each_rounded` False for a table recorded before rules revision 3."""
    if not each_rounded:
        return _rest_rounded(exact, winner, discarder, fed_by, payers, mode)
    owed: dict[tuple[int, str], Fraction] = {}
    rest = exact
    if mode == CLASSIC:
        for seat in fed_by:
            if seat != discarder:
                owed[seat, "part"] = owed.get((seat, "part"), Fraction(0)) + exact * PART
                rest -= exact * PART
    if discarder is not None:
        owed[discarder, "discard"] = rest
    else:
        for seat in payers:
            owed[seat, "self_draw"] = rest / len(payers)
    pays = ((seat, reason, round_half_up(points)) for (seat, reason), points in owed.items())
    return tuple(Payment(seat, winner, points, reason) for seat, reason, points in pays if points)


def _rest_rounded(
    exact: Fraction,
    winner: int,
    discarder: int | None,
    fed_by: Sequence[int],
    payers: Sequence[int],
    mode: str,
) -> tuple[Payment, ...]:
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


def deltas(pays: Sequence[Payment], seats: int) -> tuple[int, ...]:
    """Each seat's chip change (sums to zero)."""
    d = [0] * seats
    for p in pays:
        d[p.payer] -= p.points
        d[p.payee] += p.points
    return tuple(d)
