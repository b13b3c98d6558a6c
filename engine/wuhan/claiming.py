"""Who may claim a discard, and how (rules/wuhan.md, "Claims" and "Winning").

Chow from the seat before, pong and exposed kong (冲杠) from anyone; a win on the discard when
the hand may win it (engine.wuhan.winning). A 赖子 or a skin is never discarded face up (it is
laid out as a kong), and never helps make a chow. Win beats pong and kong, which beat chow;
several winners are ordered from the dealer (截胡) unless `win_priority` says from the discarder.
"""

from __future__ import annotations

from engine.mahjong import claims
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile, tile
from engine.wuhan.big_wins import DISCARD, ROBBED_KONG, Way
from engine.wuhan.options import FROM_DEALER, Options
from engine.wuhan.roles import Roles
from engine.wuhan.scoring import Settlement
from engine.wuhan.state import SEATS, Hand
from engine.wuhan.winning import judge_in

PRIORITY = claims.STANDARD_PRIORITY


def order_from(hand: Hand, options: Options) -> int | None:
    """The seat the 截胡 order counts from (None: from the discarder, the claim window's default)."""
    return hand.dealer if options.win_priority == FROM_DEALER else None


def chow_lows(sh: SeatTiles, t: Tile, roles: Roles) -> list[Tile]:
    """The lowest tiles of the runs `sh` can make with the discard `t` and two ordinary tiles."""
    if t >= 27:
        return []
    lows = []
    for low in (t - 2, t - 1, t):
        if low < 0 or low // 9 != t // 9 or low % 9 > 6:
            continue
        others = [u for u in (low, low + 1, low + 2) if u != t]
        if all(sh.concealed[u] and not roles.is_special(u) for u in others):
            lows.append(tile(low))
    return lows


def discard_claims(hand: Hand, t: Tile, discarder: int, options: Options) -> dict[int, tuple[str, ...]]:
    """What each other seat may claim on the face-up discard `t`."""
    found: dict[int, tuple[str, ...]] = {}
    for s in range(SEATS):
        if s == discarder:
            continue
        sh = hand.seats[s]
        kinds: list[str] = []
        if isinstance(judge_in(hand, s, Way(DISCARD), options, tile=t, source=discarder), Settlement):
            kinds.append(claims.WIN)
        n = sh.concealed[t]
        if n >= 2:
            kinds.append(claims.PONG)
        if n == 3:
            kinds.append(claims.KONG)
        if s == (discarder + 1) % SEATS and chow_lows(sh, t, hand.roles):
            kinds.append(claims.CHOW)
        if kinds:
            found[s] = tuple(kinds)
    return found


def robbers(hand: Hand, t: Tile, kong_seat: int, options: Options) -> dict[int, tuple[str, ...]]:
    """The seats that may rob the added kong of `t` (the kong counted as the pong it was)."""
    hands = list(hand.seats)
    hands[kong_seat] = hands[kong_seat].unkonged(t)
    return {
        s: (claims.WIN,)
        for s in range(SEATS)
        if s != kong_seat
        and isinstance(judge_in(hand, s, Way(ROBBED_KONG), options, tile=t, source=kong_seat, hands=hands), Settlement)
    }
