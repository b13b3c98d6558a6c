"""Points of a win and who pays them (koudian.md, "Points of a win" and "Who pays").

A win is worth the winning tile's face value (winds and dragons 10). A discard-type win (a discard,
a robbed kong, an exposed or added kong's replacement) needs 6+; a self-draw (the wall, or a
concealed kong's replacement) needs 3+ and counts double.
"""

from __future__ import annotations

from engine.core.payments import Payment
from engine.mahjong.tiles import face_value

# How a hand was won; also the hand's outcome label.
SELF_DRAW = "self_draw"
KONG_SELF_DRAW = "kong_self_draw"  # 暗杠暗摳: a concealed kong's replacement wins as a self-draw
KONG_REPLACEMENT = "kong_replacement_win"  # after an exposed or added kong: a discard win
DISCARD = "discard_win"
ROBBED_KONG = "robbed_kong"
# How a hand ended without a win.
WALL_DRAW = "draw"  # 流局/黄庄: the live wall reached the reserve
KONG_DRAW = "kong_draw"  # all three others ready and waiting on the added kong's tile

SELF_DRAWN = frozenset({SELF_DRAW, KONG_SELF_DRAW})
DISCARD_MIN = 6
SELF_DRAW_MIN = 3


def win_points(tile: int, how: str) -> int | None:
    """The points of winning on `tile` this way, or None when the tile is worth too little."""
    worth = face_value(tile)
    if how in SELF_DRAWN:
        return 2 * worth if worth >= SELF_DRAW_MIN else None
    return worth if worth >= DISCARD_MIN else None


BAO = "bao"  # the reason of a payment for all three (包胡, 一包三)


def payments(seats: int, winner: int | None, points: int, payer: int | None, base_score: int,
             how: str) -> tuple[Payment, ...]:
    """Who pays the winner: every other seat the points (一家付三家 on a self-draw, each of the
    three on a discard), or `payer` alone for all three (包). None when nobody won."""
    if winner is None:
        return ()
    score = points * base_score
    if payer is not None:
        return (Payment(payer, winner, score * (seats - 1), BAO),)
    return tuple(Payment(s, winner, score, how) for s in range(seats) if s != winner)


def liable(how: str, source: int | None, source_ready: bool, tile: int) -> int | None:
    """Who pays for all three, if anyone (包胡, 一包三): the seat that was not ready and discarded
    the winning tile, or made the kong that was robbed, when that tile is worth 6 or more.
    A ready discarder never pays for the others; a kong replacement win has no discarder."""
    if how not in (DISCARD, ROBBED_KONG) or source is None or source_ready:
        return None
    return source if face_value(tile) >= DISCARD_MIN else None
