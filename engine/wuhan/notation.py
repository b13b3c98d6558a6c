"""Commands and deals in their human form (scenario files, the terminal client).

A command: `{"seat": 0, "action": "discard", "tile": "5m"}`; actions are discard, pong, kong (each
with a tile), chow (with the run's lowest tile as "low", or "tile"), win and pass. A deal
(docs/scenarios/wuhan.md): `{"dealer": 0, "hands": ["123m ...", ...], "indicator": "5m",
"wall": "5p E 9s", "tail": "C", "last_four": "1p 2p 3p 5m"}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.mahjong import notation
from engine.mahjong.actions import Chow, Discard, Kong, Pass, Pong, Win
from engine.mahjong.tiles import FULL_SET, Tile, parse_tile
from engine.mahjong.wall import stacked
from engine.wuhan.commands import Command, FixedDeal
from engine.wuhan.state import LAST_DRAWS, RESERVE, SEATS

_WITH_TILE: dict[str, type[Discard | Pong | Kong]] = {"discard": Discard, "pong": Pong, "kong": Kong}
_WITHOUT_TILE: dict[str, type[Win | Pass]] = {"win": Win, "pass": Pass}


def parse_command(spec: Mapping[str, Any]) -> Command:
    """A command from its human form; ValueError names the bad part."""
    seat = notation.seat(spec, SEATS)
    action = spec.get("action")
    if action in _WITHOUT_TILE:
        _only(spec, action, set())
        return _WITHOUT_TILE[action](seat)
    if action in _WITH_TILE:
        _only(spec, action, {"tile"})
        return _WITH_TILE[action](seat, _tile(spec, action, "tile"))
    if action == "chow":
        key = "low" if "low" in spec else "tile"
        _only(spec, action, {key})
        return Chow(seat, _tile(spec, action, key))
    known = ", ".join([*_WITH_TILE, "chow", *_WITHOUT_TILE])
    raise ValueError(f"unknown action {action!r}; wuhan actions: {known}")


def _only(spec: Mapping[str, Any], action: str, allowed: set[str]) -> None:
    extra = set(spec) - {"seat", "action"} - allowed
    if extra:
        raise ValueError(f"{action!r} takes no {', '.join(sorted(extra))}")


def _tile(spec: Mapping[str, Any], action: str, key: str) -> Any:
    if not isinstance(spec.get(key), str):
        raise ValueError(f"{action!r} needs a {key!r} such as \"5m\"")
    return parse_tile(spec[key])


def fixed_deal(deal: Mapping[str, Any], salt: bytes) -> FixedDeal:
    """The command dealing a scenario's deal: each seat's hand (the dealer's 14 tiles), the
    indicator (the tile turned after the deal), the live wall's next draws in order, the tail's
    first replacement draws in order; the other tiles stand in sorted order between them."""
    notation.deal_keys(deal, ["dealer", "hands", "indicator", "wall", "tail", "last_four"])
    dealer = notation.dealer(deal, SEATS)
    parsed = notation.hands(deal, SEATS)
    indicator = deal.get("indicator")
    if not isinstance(indicator, str):
        raise ValueError("deal 'indicator' must be one tile, such as \"5m\" (the 赖子 is the kind after it)")
    live = (parse_tile(indicator), *notation.tiles(deal, "wall"))
    tail = notation.tiles(deal, "tail")
    last = notation.tiles(deal, "last_four")
    if last:
        tail = _before_the_reserve(parsed, live, tail, last)
    return FixedDeal(dealer, stacked(parsed, live, tail, dealer, FULL_SET), salt)


def _before_the_reserve(hands: list[tuple[Tile, ...]], live: tuple[Tile, ...], tail: tuple[Tile, ...],
                        last: tuple[Tile, ...]) -> tuple[Tile, ...]:
    """The tail that puts `last` just before the 10 never-drawn tiles (the tail's own tiles among
    those 10), so that without a kong they are the last draws, in order."""
    if len(last) > LAST_DRAWS:
        raise ValueError(f"deal 'last_four' names at most {LAST_DRAWS} tiles")
    if len(tail) > RESERVE:
        raise ValueError(f"with 'last_four', 'tail' names at most {RESERVE} tiles")
    left = list(FULL_SET)
    for t in (*(t for h in hands for t in h), *live, *tail, *last):
        if t not in left:
            raise ValueError(f"the deal uses more than {FULL_SET.count(t)} of {t}")
        left.remove(t)
    fillers = sorted(left)[len(left) - (RESERVE - len(tail)):]
    return (*tail, *fillers, *reversed(last))

