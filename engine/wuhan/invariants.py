"""What must always hold at a wuhan table (selfplay and the property tests check it)."""

from __future__ import annotations

from engine.wuhan.state import TILES, Claims, NoTable, Playing, State


def check(state: State) -> list[str]:
    """Broken invariants: 136 tiles, four of each, in hands, melds, rivers, laid-out kongs, the
    indicator and the wall; a window's discard still on its discarder's river; no seat holding
    more than 14 tiles; scores summing to zero."""
    problems: list[str] = []
    if isinstance(state, NoTable):
        return problems
    if sum(state.table.scores) != 0:
        problems.append(f"scores {state.table.scores} do not sum to zero")
    if not isinstance(state, Playing):
        return problems
    hand = state.hand
    seen = [0] * 34
    seen[hand.roles.indicator] += 1
    for t in hand.wall.remaining_tiles():
        seen[t] += 1
    for s, sh in enumerate(hand.seats):
        for i, n in enumerate(sh.concealed):
            if n < 0:
                problems.append(f"seat {s} holds {n} of tile {i}")
            seen[i] += n
        for m in sh.melds:
            for t in m.tiles:
                seen[t] += 1
        for t in (*sh.river, *hand.laid[s]):
            seen[t] += 1
        if sh.size() + 3 * len(sh.melds) > 14:
            problems.append(f"seat {s} holds more than 14 tiles")
    if sum(seen) != TILES or any(n != 4 for n in seen):
        problems.append(f"{sum(seen)} tiles on the table, not 136 with four of each")
    if isinstance(hand.phase, Claims):
        river = hand.seats[hand.phase.window.source].river
        if not river or river[-1] != hand.phase.window.tile:
            problems.append("the claimed tile is not on its discarder's river")
    return problems
