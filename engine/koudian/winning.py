"""Which hands win, what a ready hand waits on (seven pairs or not), when a seat may declare ready
(报听) and when it may win on the tile it drew."""

from __future__ import annotations

from collections.abc import Sequence

from engine.koudian import scoring
from engine.koudian.options import Options
from engine.koudian.state import ADDED_KONG, CONCEALED_KONG, EXPOSED_KONG, WALL, Hand, Turn
from engine.mahjong import hand
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile, tile

_HOW_BY_SOURCE = {
    WALL: scoring.SELF_DRAW,
    CONCEALED_KONG: scoring.KONG_SELF_DRAW,
    EXPOSED_KONG: scoring.KONG_REPLACEMENT,
    ADDED_KONG: scoring.KONG_REPLACEMENT,
}


def completes(counts: Sequence[int], melds: int, seven_pairs: bool) -> bool:
    """Whether 14 tiles (melds counted as sets) make a winning hand."""
    if hand.is_win(counts, 0, melds):
        return True
    return seven_pairs and melds == 0 and hand.seven_pairs(counts)


def waiting_on(counts: Sequence[int], melds: int, seven_pairs: bool, held: Sequence[int] = ()) -> tuple[Tile, ...]:
    """The tiles that complete this 13-tile hand, in tile order, leaving out any tile of which
    the seat already holds all four (`held`: counts of the seat's own tiles, melds included)."""
    found = set(hand.waits(counts, 0, melds))
    if seven_pairs and melds == 0:
        c = list(counts)
        for t in range(34):
            if c[t] % 2 == 1:  # only a single can be paired up
                c[t] += 1
                if hand.seven_pairs(c):
                    found.add(t)
                c[t] -= 1
    held = held or counts
    return tuple(tile(t) for t in sorted(found) if held[t] < 4)


def is_ready(counts: Sequence[int], melds: int, seven_pairs: bool, held: Sequence[int] = ()) -> bool:
    """Whether one tile would complete this 13-tile hand."""
    return bool(waiting_on(counts, melds, seven_pairs, held))


def can_declare_ready(sh: SeatTiles, tile: int, options: Options) -> tuple[Tile, ...]:
    """The waits after discarding `tile` face down (empty when the hand would not be ready)."""
    if sh.ready or not sh.concealed[tile]:
        return ()
    after = list(sh.concealed)
    after[tile] -= 1
    held = sh.holding()
    held[tile] -= 1
    return waiting_on(after, len(sh.melds), options.seven_pairs, held)


def self_win(in_play: Hand, turn: Turn) -> tuple[str, int] | None:
    """(how, points) if the seat in turn may win on the tile it just drew, else None."""
    sh = in_play.seats[turn.seat]
    if not sh.ready or turn.drawn is None or turn.drawn not in sh.waits:
        return None
    how = _HOW_BY_SOURCE.get(turn.source)
    if how is None:
        return None
    points = scoring.win_points(turn.drawn, how)
    return None if points is None else (how, points)
