"""A mahjong table for rule tests, whatever the ruleset: a fixed deal, then moves written as the
rules speak of them. Each ruleset's tests/unit/<ruleset>/table.py names its ruleset and adds what
its own tests read."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.core.contract import AnyRuleset
from engine.mahjong.tiles import format_tiles, from_counts


class RuleTable:
    """One hand of `ruleset` from a fixed deal. `act(seat, action, tile)` plays a move
    (RuleViolation if illegal) and returns its events; `log` holds every event since the table
    was created."""

    ruleset: ClassVar[AnyRuleset]

    def __init__(self, deal: dict[str, Any], **options: Any) -> None:
        self.options = self.ruleset.options(options)
        self.log: list[Any] = list(self.ruleset.create("t", self.options))
        self.state: Any = self._fold(self.log)
        self._apply(self.ruleset.fixed_deal(deal, b"salt"))

    @classmethod
    def _fold(cls, events: list[Any]) -> Any:
        state = cls.ruleset.initial()
        for ev in events:
            state = cls.ruleset.evolve(state, ev)
        return state

    def _apply(self, cmd: Any) -> list[Any]:
        events = self.ruleset.decide(self.state, cmd)
        for ev in events:
            self.state = self.ruleset.evolve(self.state, ev)
        self.log.extend(events)
        return events

    def act(self, seat: int, action: str, tile: str | None = None) -> list[Any]:
        spec: dict[str, Any] = {"seat": seat, "action": action}
        if tile is not None:
            spec["tile"] = tile
        return self._apply(self.ruleset.parse_command(spec))

    def concealed(self, seat: int) -> str:
        return format_tiles(from_counts(self.state.hand.seats[seat].concealed))
