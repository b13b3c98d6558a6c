"""A wuhan table for rule tests: a scenario file's fixed deal, then moves written as the rules
speak of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.core.contract import Status
from engine.wuhan import RULESET
from engine.wuhan.events import HandEnded
from engine.wuhan.scoring import Line, Settlement
from engine.wuhan.state import Hand, Playing
from tests.unit.mahjong.table import RuleTable

FOLDER = Path(__file__).resolve().parents[2] / "scenarios" / "wuhan"


def scenario(name: str) -> dict[str, Any]:
    return json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))


class Table(RuleTable):
    """One wuhan hand from a fixed deal (tests.unit.mahjong.table)."""

    ruleset = RULESET

    @staticmethod
    def of(name: str, played: int | None = None) -> Table:
        """The table of scenario `name` after its first `played` actions (all by default)."""
        spec = scenario(name)
        t = Table(spec["deal"], **spec.get("options", {}))
        for action in spec.get("actions", [])[:played]:
            t._apply(RULESET.parse_command(action))
        return t

    def legal(self, seat: int) -> list[str]:
        """The seat's legal actions in their human form: "discard 5m", "chow 3m", "win"."""
        out = []
        for a in RULESET.legal_actions(self.state, seat):
            verb = type(a).__name__.lower()
            t = getattr(a, "tile", None) if verb != "chow" else a.low
            out.append(verb if t is None else f"{verb} {t}")
        return out

    def finish(self) -> None:
        """Every remaining decision by its auto-play default (托管) until the hand ends."""
        while RULESET.status(self.state) is Status.IN_HAND:
            _, cmd = next(iter(RULESET.deadline(self.state).defaults.items()))
            self._apply(cmd)

    @property
    def hand(self) -> Hand:
        assert isinstance(self.state, Playing)
        return self.state.hand

    def ended(self) -> HandEnded:
        return next(ev for ev in reversed(self.log) if isinstance(ev, HandEnded))

    @property
    def settlement(self) -> Settlement:
        s = self.ended().settlement
        assert s is not None
        return s

    def line(self, seat: int) -> Line:
        return next(line for line in self.settlement.lines if line.seat == seat)

    def formula(self, seat: int) -> str:
        return self.settlement.formula(self.line(seat))
