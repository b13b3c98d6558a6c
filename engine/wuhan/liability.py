"""承包: when one loser pays everybody's amounts (rules/wuhan.md, "Who pays"), one rule each.

The rules are tried in the spec's order and the first that names a seat decides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.mahjong.melds import Meld
from engine.wuhan.big_wins import DISCARD, ROBBED_KONG
from engine.wuhan.roles import Roles
from engine.wuhan.shapes import Exposed, readings


@dataclass(frozen=True, slots=True)
class Won:
    """What the rules look at: the 大胡, how the hand was won, the discarder or robbed seat, the
    winner's melds in the order they were made, and whether a seat is ready (听牌)."""

    big_wins: tuple[str, ...]
    how: str
    source: int | None
    melds: Sequence[Meld]
    is_ready: Callable[[int], bool]


def unready_discarder_of_all_claimed(won: Won) -> int | None:
    """A discards the tile that completes B's 全求人 while A is not ready: A pays all."""
    if "all_claimed" in won.big_wins and won.how == DISCARD and won.source is not None:
        return None if won.is_ready(won.source) else won.source
    return None


def third_opening_of_one_suit(won: Won) -> int | None:
    """B wins 清一色 and B's third 开口 was claimed from A: A pays all."""
    if "one_suit" not in won.big_wins:
        return None
    claimed = [m.source for m in won.melds if m.source is not None]
    return claimed[2] if len(claimed) >= 3 else None


def robbed_kong(won: Won) -> int | None:
    """B robs A's kong: A pays all."""
    return won.source if won.how == ROBBED_KONG else None


RULES: tuple[tuple[str, Callable[[Won], int | None]], ...] = (
    ("全求人", unready_discarder_of_all_claimed),
    ("清一色", third_opening_of_one_suit),
    ("抢杠", robbed_kong),
)


def liable(won: Won) -> tuple[int, str] | None:
    """(the seat that pays for all, the rule's name), or None when every loser pays their own."""
    for name, rule in RULES:
        seat = rule(won)
        if seat is not None:
            return seat, name
    return None


def ready(concealed: Sequence[int], melds: Sequence[Meld], roles: Roles) -> bool:
    """听牌: one more tile would complete the hand in some winning shape (the 赖子 as wilds).
    Whether the player has opened, holds a skin or would reach 起胡 does not matter here."""
    c = list(concealed)
    exposed = Exposed.of(melds)
    laizi = roles.laizi
    for t in range(34):
        c[t] += 1
        done = bool(readings(c, laizi, exposed))
        c[t] -= 1
        if done:
            return True
    return False
