"""A table's chip options and the settlement of its hands into chips.

`stake` (chips a point), `buy_in` (chips a seat brings; 0 means 100 × stake) and
`score_minimisation` (积分最小化, on by default) are options of the table, not of a ruleset: they
are split from the options a table is created with and recorded in its first event. A finished
hand's payments (`HandResult.payments`, in points) become a `HandSettled` of chips between the
seats, capped by `engine.core.payments.settle` against the stacks the table recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.contract import HandResult
from engine.core.messages import value
from engine.core.payments import settle

from .table_events import HandSettled, SeatPayment
from .transfers import MAX_AMOUNT

DEFAULT_BUY_IN_POINTS = 100


@value("table.Stakes")
class Stakes:
    stake: int = 1
    buy_in: int = 0
    score_minimisation: bool = True

    @property
    def chips_to_sit(self) -> int:
        """What a seat brings to the table."""
        return self.buy_in or DEFAULT_BUY_IN_POINTS * self.stake


KEYS = ("stake", "buy_in", "score_minimisation")


def split_options(options: Mapping[str, Any] | None) -> tuple[Stakes, dict[str, Any]]:
    """The table's chip options and the rest (the ruleset's); a bad chip option raises
    ValueError naming it."""
    rest = dict(options or {})
    given = {k: rest.pop(k) for k in KEYS if k in rest}
    for key in ("stake", "buy_in"):
        if key in given:
            least = 1 if key == "stake" else 0
            v = given[key]
            if isinstance(v, bool) or not isinstance(v, int) or not least <= v <= MAX_AMOUNT:
                raise ValueError(f"table option {key!r} must be a whole number of chips >= {least}, not {v!r}")
    if "score_minimisation" in given and not isinstance(given["score_minimisation"], bool):
        raise ValueError(f"table option 'score_minimisation' must be true or false, not {given['score_minimisation']!r}")
    return Stakes(**given), rest


def settle_hand(hand: int, ruleset: str, result: HandResult, stacks: tuple[int, ...],
                players: tuple[str | None, ...], stakes: Stakes) -> tuple[HandSettled, tuple[int, ...]]:
    """The hand's payments in chips (capped by 积分最小化 when on) and the stacks after them."""
    paid = settle(result.payments, stacks, stakes.stake, stakes.score_minimisation)
    after = list(stacks)
    for p in paid:
        after[p.payer] -= p.chips
        after[p.payee] += p.chips
    event = HandSettled(hand, ruleset, tuple(
        SeatPayment(p.payer, p.payee, p.chips, p.reason, players[p.payer] or "", players[p.payee] or "")
        for p in paid))
    return event, tuple(after)
