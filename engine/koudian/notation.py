"""Commands and deals in their human form (scenario files, the terminal client).

A command: `{"seat": 0, "action": "discard", "tile": "5m"}`; actions are discard, declare_ready,
pong, kong (each with a tile), win and pass. A deal (docs/scenarios/koudian.md):
`{"dealer": 0, "hands": ["123m ...", ...], "wall": "5p E 9s", "tail": "C"}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.koudian.commands import Command, FixedDeal
from engine.koudian.state import SEATS
from engine.mahjong import notation
from engine.mahjong.actions import DeclareReady, Discard, Kong, Pass, Pong, Win
from engine.mahjong.tiles import FULL_SET, parse_tile
from engine.mahjong.wall import stacked

_WITH_TILE: dict[str, type[Discard | DeclareReady | Pong | Kong]] = {"discard": Discard, "declare_ready": DeclareReady, "pong": Pong, "kong": Kong}
_WITHOUT_TILE: dict[str, type[Win | Pass]] = {"win": Win, "pass": Pass}


def parse_command(spec: Mapping[str, Any]) -> Command:
    """A command from its human form; ValueError names the bad part."""
    seat = notation.seat(spec, SEATS)
    action = spec.get("action")
    if action in _WITHOUT_TILE:
        extra = set(spec) - {"seat", "action"}
        if extra:
            raise ValueError(f"{action!r} takes no {', '.join(sorted(extra))}")
        return _WITHOUT_TILE[action](seat)
    if action in _WITH_TILE:
        extra = set(spec) - {"seat", "action", "tile"}
        if extra:
            raise ValueError(f"{action!r} takes no {', '.join(sorted(extra))}")
        if not isinstance(spec.get("tile"), str):
            raise ValueError(f"{action!r} needs a 'tile' such as \"5m\"")
        return _WITH_TILE[action](seat, parse_tile(spec["tile"]))
    known = ", ".join([*_WITH_TILE, *_WITHOUT_TILE])
    raise ValueError(f"unknown action {action!r}; koudian actions: {known}")


def fixed_deal(deal: Mapping[str, Any], salt: bytes) -> FixedDeal:
    """The command dealing a scenario's deal: each seat's hand (the dealer's 14 tiles), the live
    wall's first draws in order, the tail's first replacement draws in order; the other tiles
    stand in sorted order between them."""
    notation.deal_keys(deal, ["dealer", "hands", "wall", "tail"])
    dealer = notation.dealer(deal, SEATS)
    parsed = notation.hands(deal, SEATS)
    live = notation.tiles(deal, "wall")
    tail = notation.tiles(deal, "tail")
    return FixedDeal(dealer, stacked(parsed, live, tail, dealer, FULL_SET), salt)
