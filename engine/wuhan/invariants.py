"""What must always hold at a wuhan table (selfplay and the property tests check it)."""

from __future__ import annotations

from engine.mahjong import conservation
from engine.wuhan.state import TILES, Claims, NoTable, Playing, State


def check(state: State) -> list[str]:
    """Broken invariants: 136 tiles, four of each, in hands, melds, rivers, laid-out kongs, the
    indicator and the wall; a window's discard still on its discarder's river; no seat holding
    more than 14 tiles; scores summing to zero."""
    if isinstance(state, NoTable):
        return []
    problems = conservation.zero_sum(state.table.scores)
    if not isinstance(state, Playing):
        return problems
    hand = state.hand
    seen = [0] * 34
    problems += conservation.count_tiles(seen, hand.seats, (hand.roles.indicator, *hand.wall.remaining_tiles()), hand.laid)
    for s, sh in enumerate(hand.seats):
        if sh.size() + 3 * len(sh.melds) > 14:
            problems.append(f"seat {s} holds more than 14 tiles")
    if sum(seen) != TILES or any(n != 4 for n in seen):
        problems.append(f"{sum(seen)} tiles on the table, not 136 with four of each")
    if isinstance(hand.phase, Claims):
        problems += conservation.window_on_river(hand.phase.window, hand.seats)
    return problems
