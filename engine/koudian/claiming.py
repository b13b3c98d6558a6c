"""Claims on a face-up discard (koudian.md, "Turn" and "Points of a win"): who may win, pong or kong it."""

from __future__ import annotations

from engine.koudian import scoring
from engine.koudian.kongs import KONG_ROOM, keeps_waits
from engine.koudian.options import Options
from engine.koudian.state import SEATS, Hand
from engine.mahjong import claims
from engine.mahjong.tiles import Tile, face_value


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
