"""What must always hold at a jj table: 140 tiles (136 and 4 flowers) each where it should be,
scores summing to zero."""

from __future__ import annotations

from engine.jj.state import TILES, NoTable, Playing, State


def check(state: State) -> list[str]:
    """Broken invariants (empty when all hold)."""
    problems: list[str] = []
    if isinstance(state, NoTable):
        return problems
    if sum(state.table.scores) != 0:
        problems.append(f"scores {state.table.scores} do not sum to zero")
    if not isinstance(state, Playing):
        return problems
    hand = state.hand
    if sum(hand.deltas) != 0:
        problems.append(f"the hand's payments {hand.deltas} do not sum to zero")
    seen = [0] * 38
    for t in (*hand.wall.remaining_tiles(), *hand.turned):
        seen[t] += 1
    for s, sh in enumerate(hand.seats):
        for i, n in enumerate(sh.concealed):
            if n < 0:
                problems.append(f"seat {s} holds {n} of tile {i}")
            seen[i] += n
        for m in sh.melds:
            for t in m.tiles:
                seen[t] += 1
        for t in (*sh.river, *hand.flowers[s]):
            seen[t] += 1
    if sum(seen) != TILES or any(n != 4 for n in seen[:34]) or any(n != 1 for n in seen[34:]):
        problems.append(f"{sum(seen)} tiles on the table, not 136 with four of each and the 4 flowers")
    return problems
