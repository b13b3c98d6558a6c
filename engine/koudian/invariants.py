"""What always holds at a koudian table (checked by self-play and the property tests)."""

from __future__ import annotations

from engine.koudian.state import Claims, NoTable, Playing, State

TILES = 136


def check(state: State) -> list[str]:
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
