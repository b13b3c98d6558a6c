"""Scoring a hand from notation, for the fan tests: `score("123m 456p ...", win="5m", wild="C")`."""

from __future__ import annotations

from engine.jj.fans import Situation
from engine.jj.winning import Scored, best_win
from engine.mahjong.melds import CHOW, KONG_CONCEALED, KONG_EXPOSED, PONG, Meld
from engine.mahjong.tiles import counts, parse_tile, parse_tiles

_KINDS = {"chow": CHOW, "pong": PONG, "kong": KONG_EXPOSED, "concealed_kong": KONG_CONCEALED}


def melds(*specs: str) -> tuple[Meld, ...]:
    """Melds of seat 0 from "pong 5p", "chow 3s" (the chow's lowest tile), "kong E" (fed by seat 3)."""
    out = []
    for spec in specs:
        kind, t = spec.split()
        kind = _KINDS[kind]
        out.append(Meld(kind, parse_tile(t), None if kind == KONG_CONCEALED else 3))
    return tuple(out)


def score(concealed: str, win: str, wild: str | None = None, melded: tuple[str, ...] = (), **situation: object) -> Scored | None:
    """The best scoring of seat 0's hand: `concealed` includes the winning tile `win`."""
    return best_win(
        counts(parse_tiles(concealed)),
        parse_tile(wild) if wild else None,
        melds(*melded),
        0,
        parse_tile(win),
        Situation(wild_in_play=wild is not None, **situation),  # type: ignore[arg-type]
    )


def fans(concealed: str, win: str, wild: str | None = None, melded: tuple[str, ...] = (), **situation: object) -> dict[str, int]:
    """name -> total fans of that name in the best scoring."""
    s = score(concealed, win, wild, melded, **situation)
    assert s is not None, "not a winning hand"
    return {f.name: f.total for f in s.fans}
