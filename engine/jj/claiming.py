"""Who may claim what (jj.md, "Tiles and flow"): win > pong/kong > chow; chow only from the
previous seat; 混 is never chowed, ponged, konged nor discarded; a locked (报听) hand only wins."""

from __future__ import annotations

from engine.jj import hun
from engine.jj.state import Hand
from engine.mahjong import claims
from engine.mahjong.melds import KONG_ADDED, KONG_CONCEALED, PONG
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile, tile


def in_hand(hand: Hand, seat: int) -> bool:
    """Whether `seat` still plays this hand (血战: winners leave)."""
    return seat not in hand.won


def chows(sh: SeatTiles, t: int, wild: int | None) -> tuple[Tile, ...]:
    """The lowest tile of every run `t` completes with two natural tiles from `sh`."""
    if t >= 27:
        return ()
    found = []
    for low in (t - 2, t - 1, t):
        if low < 0 or low // 9 != t // 9 or low % 9 > 6:
            continue
        others = [u for u in (low, low + 1, low + 2) if u != t]
        if all(sh.concealed[u] and u != wild for u in others):
            found.append(tile(low))
    return tuple(found)


def discard_claims(hand: Hand, t: Tile, discarder: int, can_win: dict[int, bool]) -> dict[int, tuple[str, ...]]:
    """What each seat still in the hand may claim on the discard `t` (`can_win`: who wins on it)."""
    found: dict[int, tuple[str, ...]] = {}
    room = hand.wall.live > 0
    for s in range(len(hand.seats)):
        if s == discarder or not in_hand(hand, s):
            continue
        sh = hand.seats[s]
        kinds = []
        if can_win.get(s):
            kinds.append(claims.WIN)
        if not hand.ready[s] and room and t != hand.wild:
            n = sh.concealed[t]
            if n >= 2:
                kinds.append(claims.PONG)
            if n == 3:
                kinds.append(claims.KONG)
            if s == next_in_hand(hand, discarder) and chows(sh, t, hand.wild):
                kinds.append(claims.CHOW)
        if kinds:
            found[s] = tuple(kinds)
    return found


def next_in_hand(hand: Hand, seat: int) -> int:
    """The seat that plays after `seat`, skipping the seats that have won."""
    n = len(hand.seats)
    s = (seat + 1) % n
    while not in_hand(hand, s):
        s = (s + 1) % n
    return s


def turn_kongs(hand: Hand, seat: int) -> list[tuple[Tile, str]]:
    """Concealed and added kongs `seat` may declare now (never of 混, never when locked)."""
    sh = hand.seats[seat]
    if hand.ready[seat] or hand.wall.live <= 0:
        return []
    found: list[tuple[Tile, str]] = []
    for i, n in enumerate(sh.concealed):
        if n == 4 and i != hand.wild:
            found.append((tile(i), KONG_CONCEALED))
    for m in sh.melds:
        if m.kind == PONG and m.tile is not None and sh.concealed[m.tile]:
            found.append((m.tile, KONG_ADDED))
    return found


def naturals_of(sh: SeatTiles, wild: int | None) -> tuple[tuple[int, ...], int]:
    """The concealed tiles as naturals and a 混 count."""
    return hun.split(sh.concealed, wild)


def shape_after(sh: SeatTiles, t: int | None, wild: int | None) -> bool:
    """Whether the seat's concealed tiles (plus `t`) make some winning shape."""
    c = list(sh.concealed)
    if t is not None:
        c[t] += 1
    naturals, wilds = hun.split(c, wild)
    return hun.shape_wins(naturals, wilds, len(sh.melds))
