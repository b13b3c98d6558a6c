"""What always holds at a koudian table (checked by self-play and the property tests)."""

from __future__ import annotations

from engine.koudian.state import Claims, NoTable, Playing, State
from engine.mahjong import conservation

TILES = 136


def check(state: State) -> list[str]:
    """Broken invariants: 136 tiles, four of each, in hands, melds, rivers and the wall; a
    window's tile still on its discarder's river; scores summing to zero."""
    if isinstance(state, NoTable):
        return []
    problems = conservation.zero_sum(state.table.scores)
    if not isinstance(state, Playing):
        return problems
    hand = state.hand
    seen = [0] * 34
    problems += conservation.count_tiles(seen, hand.seats, hand.wall.remaining_tiles())
    if sum(seen) != TILES or any(n != 4 for n in seen):
        problems.append(f"{sum(seen)} tiles on the table, not 136 with four of each")
    if isinstance(hand.phase, Claims):
        problems += conservation.window_on_river(hand.phase.window, hand.seats)
    return problems
