"""The rule questions decide and legal_actions both ask: may this seat win, kong, claim?"""

from __future__ import annotations

from engine.koudian import scoring
from engine.koudian.options import Options
from engine.koudian.state import (
    ADDED_KONG,
    CONCEALED_KONG,
    EXPOSED_KONG,
    PONGED,
    SEATS,
    WALL,
    Hand,
    Turn,
)
from engine.koudian.winning import waiting_on
from engine.mahjong import claims
from engine.mahjong.melds import PONG
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile, face_value, tile

KONG_ROOM = 3
"""A kong needs 3 live tiles: its replacement comes from the tail and the reserve grows a stack."""

_HOW_BY_SOURCE = {
    WALL: scoring.SELF_DRAW,
    CONCEALED_KONG: scoring.KONG_SELF_DRAW,
    EXPOSED_KONG: scoring.KONG_REPLACEMENT,
    ADDED_KONG: scoring.KONG_REPLACEMENT,
}


def self_win(hand: Hand, turn: Turn) -> tuple[str, int] | None:
    """(how, points) if the seat in turn may win on the tile it just drew, else None."""
    sh = hand.seats[turn.seat]
    if not sh.ready or turn.drawn is None or turn.drawn not in sh.waits:
        return None
    how = _HOW_BY_SOURCE.get(turn.source)
    if how is None:
        return None
    points = scoring.win_points(turn.drawn, how)
    return None if points is None else (how, points)


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
    for i, n in enumerate(sh.concealed):
        if n == 4:
            found.append((tile(i), CONCEALED_KONG))
    for m in sh.melds:
        if m.kind == PONG and m.tile is not None and sh.concealed[m.tile]:
            found.append((m.tile, ADDED_KONG))
    return found


def discard_claims(hand: Hand, tile: Tile, discarder: int, options: Options) -> dict[int, tuple[str, ...]]:
    """What each other seat may claim on a face-up discard: a ready seat wins on a waiting tile worth
    6+; a seat that is not ready pongs with a pair or kongs with a concealed pung."""
    found: dict[int, tuple[str, ...]] = {}
    worth = face_value(tile)
    room = hand.wall.live >= KONG_ROOM and options.allow_exposed_kong_from_discard
    for s in range(SEATS):
        if s == discarder:
            continue
        sh = hand.seats[s]
        n = sh.concealed[tile]
        kinds: list[str] = []
        if sh.ready:
            if worth >= scoring.DISCARD_MIN and tile in sh.waits:
                kinds.append(claims.WIN)
            if n == 3 and room and keeps_waits(sh, tile, 3, options):
                kinds.append(claims.KONG)
        else:
            if n >= 2:
                kinds.append(claims.PONG)
            if n == 3 and room:
                kinds.append(claims.KONG)
        if kinds:
            found[s] = tuple(kinds)
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


def can_declare_ready(sh: SeatTiles, tile: int, options: Options) -> tuple[Tile, ...]:
    """The waits after discarding `tile` face down (empty when the hand would not be ready)."""
    if sh.ready or not sh.concealed[tile]:
        return ()
    after = list(sh.concealed)
    after[tile] -= 1
    held = sh.holding()
    held[tile] -= 1
    return waiting_on(after, len(sh.melds), options.seven_pairs, held)

