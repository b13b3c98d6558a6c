"""吕梁扣点麻将 (koudian): the ruleset object the service and the tools drive (rules/koudian.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.contract import HandResult, Status
from engine.koudian import choices, game, notation
from engine.koudian import view as seat_view
from engine.koudian.options import Options, make_options
from engine.koudian.state import SEATS, Claims, MatchOver, NoTable, Playing, State
from engine.mahjong.bots import greedy_bot, random_bot

TILES = 136


class Koudian:
    """The koudian ruleset (engine.core.contract.Ruleset)."""

    name = "koudian"
    bots = {"random": random_bot, "greedy": greedy_bot}

    def options(self, overrides: Mapping[str, Any] | None = None) -> Options:
        return make_options(overrides)

    def seats(self, options: Any) -> int:
        return SEATS

    def create(self, table_id: str, options: Options) -> list[Any]:
        return game.create(table_id, options)

    def initial(self) -> State:
        return NoTable()

    decide = staticmethod(game.decide)
    evolve = staticmethod(game.evolve)
    legal_actions = staticmethod(choices.legal_actions)
    deadline = staticmethod(choices.deadline)
    view = staticmethod(seat_view.view)
    redact = staticmethod(seat_view.redact)
    parse_command = staticmethod(notation.parse_command)
    fixed_deal = staticmethod(notation.fixed_deal)

    def status(self, state: State) -> Status:
        if isinstance(state, Playing):
            return Status.IN_HAND
        if isinstance(state, MatchOver):
            return Status.MATCH_OVER
        return Status.WAITING_FOR_HAND

    def command_seat(self, cmd: Any) -> int | None:
        return getattr(cmd, "seat", None)

    def hand_result(self, state: State) -> HandResult | None:
        if isinstance(state, NoTable):
            return None
        return state.table.result

    def check(self, state: State) -> list[str]:
        """Broken invariants: 136 tiles, four of each, in hands, melds, rivers and the wall; a
        window's tile still on its discarder's river; scores summing to zero."""
        problems: list[str] = []
        if isinstance(state, NoTable):
            return problems
        if sum(state.table.scores) != 0:
            problems.append(f"scores {state.table.scores} do not sum to zero")
        if not isinstance(state, Playing):
            return problems
        hand = state.hand
        seen = [0] * 34
        for t in hand.wall.remaining_tiles():
            seen[t] += 1
        for sh in hand.seats:
            for i, n in enumerate(sh.concealed):
                if n < 0:
                    problems.append(f"a hand holds {n} of tile {i}")
                seen[i] += n
            for m in sh.melds:
                for t in m.tiles:
                    seen[t] += 1
            for t in sh.river:
                seen[t] += 1
        if sum(seen) != TILES or any(n != 4 for n in seen):
            problems.append(f"{sum(seen)} tiles on the table, not 136 with four of each")
        if isinstance(hand.phase, Claims):
            river = hand.seats[hand.phase.window.source].river
            if not river or river[-1] != hand.phase.window.tile:
                problems.append("the claimed tile is not on its discarder's river")
        return problems


RULESET = Koudian()

__all__ = ["RULESET", "Koudian", "Options"]
