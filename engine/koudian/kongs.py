"""Kongs (koudian.md, "Turn" and "Declaring ready"): which a seat may declare, who may rob an
added one, when a kong draws the hand."""

from __future__ import annotations

from engine.koudian import scoring
from engine.koudian.options import Options
from engine.koudian.state import ADDED_KONG, CONCEALED_KONG, PONGED, SEATS, Hand, Turn
from engine.koudian.winning import waiting_on
from engine.mahjong import claims
from engine.mahjong.melds import PONG
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile, face_value, tile

KONG_ROOM = 3
"""A kong needs 3 live tiles: its replacement comes from the tail and the reserve grows a stack."""


def keeps_waits(sh: SeatTiles, tile: int, taken: int, options: Options) -> bool:
    """Whether a ready seat's kong of `tile`, taking `taken` tiles out of its concealed hand into a
    new meld, leaves its winning tiles unchanged (the locked hand's only kong)."""
    after = list(sh.concealed)
    after[tile] -= taken
    held = sh.holding()
    held[tile] = 4
    return waiting_on(after, len(sh.melds) + 1, options.seven_pairs, held) == sh.waits


def turn_kongs(hand: Hand, turn: Turn, options: Options) -> list[tuple[Tile, str]]:
    """The kongs (tile, kind) the seat in turn may declare: concealed kongs and added kongs, only
    after drawing, with room left in the wall; a locked hand only with its drawn tile, keeping
    its waits."""
    if turn.source == PONGED or turn.last or hand.wall.live < KONG_ROOM:
        return []
    sh = hand.seats[turn.seat]
    found: list[tuple[Tile, str]] = []
    if sh.ready:
        t = turn.drawn
        if t is None:
            return []
        if sh.concealed[t] == 4 and keeps_waits(sh, t, 4, options):
            found.append((t, CONCEALED_KONG))
        # The drawn tile alone goes onto the pong: the rest of the hand is untouched.
        if any(m.kind == PONG and m.tile == t for m in sh.melds):
            found.append((t, ADDED_KONG))
        return found
    if 4 in sh.concealed:  # rarely: the scan below runs only then
        for i, n in enumerate(sh.concealed):
            if n == 4:
                found.append((tile(i), CONCEALED_KONG))
    for m in sh.melds:
        if m.kind == PONG and m.tile is not None and sh.concealed[m.tile]:
            found.append((m.tile, ADDED_KONG))
    return found


def robbers(hand: Hand, tile: Tile, kong_seat: int) -> dict[int, tuple[str, ...]]:
    """The ready seats that may rob an added kong of `tile` (a discard-type win: 6+)."""
    if face_value(tile) < scoring.DISCARD_MIN:
        return {}
    return {
        s: (claims.WIN,)
        for s in range(SEATS)
        if s != kong_seat and hand.seats[s].ready and tile in hand.seats[s].waits
    }


def kong_draw(hand: Hand, tile: Tile, kong_seat: int) -> bool:
    """A seat that is not ready adds a kong of a 6+ tile all three ready others wait on: the hand is
    drawn rather than that seat paying for all three."""
    if hand.seats[kong_seat].ready:
        return False
    return len(robbers(hand, tile, kong_seat)) == SEATS - 1
