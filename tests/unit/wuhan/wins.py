"""Wins for scoring tests, written as the rules speak of them: hands, melds, laid-out kongs.

The indicator is F unless a test says otherwise: the 赖子 is P (白), the skins F and C.
"""

from __future__ import annotations

from typing import Any

from engine.mahjong.melds import CHOW, KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, PONG, Meld
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import counts, parse_tile, parse_tiles
from engine.wuhan.big_wins import Way
from engine.wuhan.options import make_options
from engine.wuhan.roles import Roles
from engine.wuhan.winning import judge

# A 13-tile hand that is nowhere near ready and holds no skin.
LOOSE = "1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N"


def pong(t: str, source: int = 1) -> Meld:
    return Meld(PONG, parse_tile(t), source)


def chow(low: str, source: int = 3) -> Meld:
    return Meld(CHOW, parse_tile(low), source)


def concealed_kong(t: str) -> Meld:
    return Meld(KONG_CONCEALED, parse_tile(t))


def exposed_kong(t: str, source: int = 1) -> Meld:
    return Meld(KONG_EXPOSED, parse_tile(t), source)


def added_kong(t: str, source: int = 1) -> Meld:
    return Meld(KONG_ADDED, parse_tile(t), source)


class Seat:
    def __init__(self, hand: str = LOOSE, *melds: Meld, laid: str = "") -> None:
        self.tiles = SeatTiles(tuple(counts(parse_tiles(hand))), tuple(melds))
        self.laid = parse_tiles(laid)


def win(
    winner: int,
    seats: list[Seat],
    how: str = "self_draw",
    tile: str | None = None,
    source: int | None = None,
    dealer: int = 0,
    indicator: str = "F",
    kong_replacement: bool = False,
    last_four: bool = False,
    **options: Any,
) -> Any:
    """judge() for `winner`: its hand in `seats` already holds the winning tile when self-drawn;
    on a discard or a robbed kong `tile` is added to it."""
    c = list(seats[winner].tiles.concealed)
    if tile is not None:
        c[parse_tile(tile)] += 1
    return judge(
        seat=winner,
        concealed=c,
        way=Way(how, kong_replacement, last_four),
        source=source,
        hands=[s.tiles for s in seats],
        laid=[s.laid for s in seats],
        roles=Roles(parse_tile(indicator)),
        dealer=dealer,
        options=make_options({"min_win": 0, **options}),
    )
