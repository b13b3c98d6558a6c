"""What every mahjong ruleset's invariants (its invariants.py) check alike: the scores sum to zero,
every tile is somewhere (a hand, a meld, a river, the wall, or a ruleset's own place) and no seat
holds fewer than none of a kind, and a claim window's tile still lies on its discarder's river."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.mahjong.claims import ClaimWindow
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile


def zero_sum(scores: tuple[int, ...]) -> list[str]:
    """The problem when the table's scores do not sum to zero."""
    return [] if sum(scores) == 0 else [f"scores {scores} do not sum to zero"]


def count_tiles(seen: list[int], seats: Sequence[SeatTiles], elsewhere: Iterable[Tile] = (),
                laid: Sequence[Iterable[Tile]] = ()) -> list[str]:
    """Add to `seen` (a count per tile kind) every tile of the seats (concealed, in melds, in their
    rivers, and their own `laid[s]`) and `elsewhere` (the wall's, a turned indicator...); the
    problems: a seat holding fewer than none of a kind."""
    problems = []
    for t in elsewhere:
        seen[t] += 1
    for s, sh in enumerate(seats):
        for i, n in enumerate(sh.concealed):
            if n < 0:
                problems.append(f"seat {s} holds {n} of tile {i}")
            seen[i] += n
        for m in sh.melds:
            for t in m.tiles:
                seen[t] += 1
        for t in (*sh.river, *(laid[s] if laid else ())):
            seen[t] += 1
    return problems


def window_on_river(window: ClaimWindow, seats: Sequence[SeatTiles]) -> list[str]:
    """The problem when the tile a claim window offers is not the last of its discarder's river."""
    river = seats[window.source].river
    return [] if river and river[-1] == window.tile else ["the claimed tile is not on its discarder's river"]
