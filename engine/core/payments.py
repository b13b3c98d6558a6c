"""Hand results as pairwise payments, and 积分最小化 (记分规则 C), the rule that caps them.

A ruleset says who owes whom how many points and why (`Payment`): 一家付三家 is three payments,
包 one payment of the whole, a 打七 split one payment per defender. The table turns points into
chips (`stake` chips a point) and caps each payment by the chips at the table (`settle`), so
the hand is zero-sum and no seat's stack goes below zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Payment:
    """`payer` owes `payee` `points` for `reason` (a stable label: "self_draw", "bao", ...)."""

    payer: int
    payee: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class Paid:
    """A payment as it moves chips: `chips` may be less than owed (积分最小化), never more."""

    payer: int
    payee: int
    chips: int
    owed: int
    reason: str


def settle(payments: Sequence[Payment], stacks: Sequence[int], stake: int = 1,
           minimise: bool = True) -> tuple[Paid, ...]:
    """Each payment in chips, in the order given.

    With `minimise` (积分最小化, seed 000 记分规则 C) each payment is the smallest of the
    winner's stack, the loser's stack and the amount owed. The winner's stack is the one they
    brought into the hand (what they win this hand does not raise the cap of the next payment);
    the loser's is what they have left after their earlier payments this hand, so a loser who
    owes several winners never pays more than they hold. Without it the winner's stack is no
    limit, but nobody pays more than they have left: chips on a table cannot go below zero.
    """
    left = list(stacks)
    paid = []
    for p in payments:
        owed = p.points * stake
        chips = min(owed, stacks[p.payee], left[p.payer]) if minimise else min(owed, left[p.payer])
        left[p.payer] -= chips
        paid.append(Paid(p.payer, p.payee, max(chips, 0), owed, p.reason))
    return tuple(paid)


def deltas(payments: Sequence[Payment | Paid], seats: int) -> tuple[int, ...]:
    """What each seat gained or lost (points owed, or chips paid); sums to zero."""
    out = [0] * seats
    for p in payments:
        amount = p.chips if isinstance(p, Paid) else p.points
        out[p.payer] -= amount
        out[p.payee] += amount
    return tuple(out)
