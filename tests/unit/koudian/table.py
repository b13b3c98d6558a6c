"""A koudian table for rule tests: a fixed deal, then moves written as the rules speak of them."""

from __future__ import annotations

from typing import Any

from engine.core.contract import StartHand
from engine.koudian import RULESET
from engine.koudian.state import Hand, Playing
from tests.unit.mahjong.table import RuleTable

# Four hands with no pair and no run to claim on, except seat 1: ready on 3p/6p with 4p5p,
# the seed's example. The dealer (seat 0) discards first.
DEALER = "1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C"
READY_ON_3P_6P = "123m 456m 789m 45p 99s"
LOOSE_2 = "2m 5m 8m 3p 6p 9p 2s 5s 8s E S W F"
LOOSE_3 = "3m 6m 9m 1p 7p 1s 3s 6s 9s N C F P"
SEED_DEAL = [DEALER, READY_ON_3P_6P, LOOSE_2, LOOSE_3]


class Table(RuleTable):
    """One koudian hand from a fixed deal (tests.unit.mahjong.table)."""

    ruleset = RULESET

    def __init__(self, hands: list[str], wall: str = "", tail: str = "", dealer: int = 0, **options: Any) -> None:
        super().__init__({"dealer": dealer, "hands": hands, "wall": wall, "tail": tail}, **options)

    def start(self, seed: bytes = b"seed") -> list[Any]:
        return self._apply(StartHand(seed, b"salt"))

    def legal(self, seat: int) -> list[Any]:
        return RULESET.legal_actions(self.state, seat)

    @property
    def hand(self) -> Hand:
        assert isinstance(self.state, Playing)
        return self.state.hand

    @property
    def result(self) -> Any:
        return RULESET.hand_result(self.state)

    def ended(self) -> Any:
        """The HandEnded event (the last hand's)."""
        return next(ev for ev in reversed(self.log) if type(ev).__name__ == "HandEnded")


def seed_table(wall: str = "", tail: str = "", **options: Any) -> Table:
    """The seed's example: seat 1 holds 4p5p, ready on 3p/6p. The dealer discards C; seat 1
    draws the wall's first tile and declares ready with it (face down)."""
    t = Table(SEED_DEAL, wall=wall, tail=tail, **options)
    t.act(0, "discard", "C")
    first = wall.split()[0]
    t.act(1, "declare_ready", first)
    return t
