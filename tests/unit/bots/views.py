"""Views for bot tests, written as a player reads the table: a hand in tile notation, the other
seats' rivers, who has declared ready."""

from __future__ import annotations

from typing import Any

from engine.jj.options import make_options as jj_options
from engine.jj.view import View as JjView
from engine.koudian.options import make_options as koudian_options
from engine.koudian.view import View as KoudianView
from engine.mahjong.actions import Discard
from engine.mahjong.tiles import parse_tile, parse_tiles
from engine.wuhan.options import make_options as wuhan_options
from engine.wuhan.view import View as WuhanView


def tiles(text: str) -> tuple[Any, ...]:
    return tuple(sorted(parse_tiles(text))) if text else ()


def river(text: str) -> tuple[Any, ...]:
    """A river; "?" is a face-down ready discard (koudian)."""
    return tuple(None if tok == "?" else parse_tile(tok) for tok in text.split())


def koudian(hand: str, rivers: tuple[str, ...] = ("", "", "", ""), ready: tuple[bool, ...] = (False,) * 4,
            melds: tuple[tuple[Any, ...], ...] = ((), (), (), ()), seat: int = 0, phase: str = "turn",
            claim_tile: str | None = None, turn: int = 0) -> KoudianView:
    return KoudianView(seat=seat, options=koudian_options(), phase=phase, scores=(0,) * 4, dealer=0,
                       hands_played=0, passes=0, hand=tiles(hand), turn=turn,
                       claim_tile=parse_tile(claim_tile) if claim_tile else None,
                       melds=melds, rivers=tuple(river(r) for r in rivers), ready=ready, wall_live=60)


def wuhan(hand: str, laizi: str, skins: str = "", seat: int = 0,
          melds: tuple[tuple[Any, ...], ...] = ((), (), (), ())) -> WuhanView:
    return WuhanView(seat=seat, options=wuhan_options(), phase="turn", scores=(0,) * 4, dealer=0, hands_played=0,
                     passes=0, laizi=parse_tile(laizi), skins=tiles(skins), hand=tiles(hand), turn=seat,
                     melds=melds, rivers=((), (), (), ()), laid=((), (), (), ()), wall_live=60)


def jj(hand: str, wild: str, rivers: tuple[str, ...] = ("", "", "", ""),
       ready: tuple[bool, ...] = (False,) * 4) -> JjView:
    return JjView(seat=0, options=jj_options(), phase="turn", scores=(0,) * 4, dealer=0, hands_played=0,
                  hand=tiles(hand), wild=parse_tile(wild), turn=0, melds=((), (), (), ()),
                  rivers=tuple(river(r) for r in rivers), flowers=((), (), (), ()), ready=ready, wall_live=60)


def discards(view: Any, but: str = "") -> list[Discard]:
    """A Discard of every kind in the seat's hand (but the kinds in `but`)."""
    banned = set(parse_tiles(but)) if but else set()
    return [Discard(view.seat, t) for t in sorted(set(view.hand)) if t not in banned]
