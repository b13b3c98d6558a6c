"""Kongs on one's own turn (rules/wuhan.md, "Using 赖子", "Using 赖子皮", "Claims").

Four kinds: a single 赖子 laid out (赖子杠, ×4) or a single skin (皮杠, ×2), each also made by
discarding that tile; four of a kind from the hand (暗杠); the fourth tile onto one's own pong
(蓄杠, which others may rob). A 赖子 or a skin never makes part of a four-tile kong. Every kong is
followed by a replacement draw from the tail; none is allowed on a last-four draw.
"""

from __future__ import annotations

from engine.mahjong.melds import KONG_ADDED, KONG_CONCEALED, PONG
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile, tile
from engine.wuhan.roles import Roles

LAIZI_KONG = "赖子杠"
SKIN_KONG = "皮杠"


def laid_kong(t: int, roles: Roles) -> str | None:
    """赖子杠 or 皮杠 when `t` is laid out by itself, None for an ordinary tile."""
    if roles.is_laizi(t):
        return LAIZI_KONG
    if roles.is_skin(t):
        return SKIN_KONG
    return None


def turn_kongs(sh: SeatTiles, roles: Roles) -> list[tuple[Tile, str]]:
    """Every (tile, kind) kong the seat may declare on its turn: kind is 赖子杠, 皮杠,
    kong_concealed or kong_added."""
    c = sh.concealed
    laizi = roles.laizi
    found: list[tuple[Tile, str]] = [(laizi, LAIZI_KONG)] if c[laizi] else []
    found.extend((skin, SKIN_KONG) for skin in roles.skins if c[skin])
    if 4 in c:
        found.extend((tile(i), KONG_CONCEALED) for i, n in enumerate(c) if n == 4 and not roles.is_special(i))
    for m in sh.melds:
        if m.kind == PONG and m.tile is not None and sh.concealed[m.tile]:
            found.append((m.tile, KONG_ADDED))
    return found
