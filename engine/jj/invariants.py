"""What must always hold at a jj table: 140 tiles (136 and 4 flowers) each where it should be,
scores summing to zero."""

from __future__ import annotations

from engine.jj.state import TILES, NoTable, Playing, State
from engine.mahjong import conservation


def check(state: State) -> list[str]:
    """Broken invariants (empty when all hold)."""
    if isinstance(state, NoTable):
        return []
    problems = conservation.zero_sum(state.table.scores)
    if not isinstance(state, Playing):
        return problems
    hand = state.hand
    if sum(hand.deltas) != 0:
        problems.append(f"the hand's payments {hand.deltas} do not sum to zero")
    seen = [0] * 38
    problems += conservation.count_tiles(seen, hand.seats, (*hand.wall.remaining_tiles(), *hand.turned), hand.flowers)
    if sum(seen) != TILES or any(n != 4 for n in seen[:34]) or any(n != 1 for n in seen[34:]):
        problems.append(f"{sum(seen)} tiles on the table, not 136 with four of each and the 4 flowers")
    return problems
