"""What must always hold at a jj table: 140 tiles (136 and 4 flowers) each where it should be,
scores summing to zero, and an open claim window's tile the last of its discarder's river."""

from __future__ import annotations

from engine.jj.state import TILES, Claims, Hand, NoTable, Playing, State
from engine.mahjong import conservation
from engine.mahjong.melds import CHOW, KONG_ADDED, PONG


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
    twice = 0 if state.table.options.claimed_tile_leaves_river else _claimed_from_discards(hand)
    if twice:  # recorded before a claimed tile left the river: each pong and chow shows it twice
        if sum(seen) != TILES + twice or any(n < 4 for n in seen[:34]) or any(n != 1 for n in seen[34:]):
            problems.append(f"{sum(seen)} tiles on the table, not 136, the 4 flowers and {twice} claimed ones twice")
    elif sum(seen) != TILES or any(n != 4 for n in seen[:34]) or any(n != 1 for n in seen[34:]):
        problems.append(f"{sum(seen)} tiles on the table, not 136 with four of each and the 4 flowers")
    if isinstance(hand.phase, Claims):
        problems += conservation.window_on_river(hand.phase.window, hand.seats)
    return problems


def _claimed_from_discards(hand: Hand) -> int:
    """The pongs and chows claimed so far (an added kong was a pong)."""
    return sum(m.kind in (PONG, CHOW, KONG_ADDED) and m.source is not None for sh in hand.seats for m in sh.melds)
