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
from engine.mahjong.actions import DeclareReady, Discard, Kong, Pass, Pong, Win
from engine.mahjong.tiles import FULL_SET, parse_tile, parse_tiles
from engine.mahjong.wall import stacked

_WITH_TILE: dict[str, type[Discard | DeclareReady | Pong | Kong]] = {"discard": Discard, "declare_ready": DeclareReady, "pong": Pong, "kong": Kong}
_WITHOUT_TILE: dict[str, type[Win | Pass]] = {"win": Win, "pass": Pass}


def parse_command(spec: Mapping[str, Any]) -> Command:
    """A command from its human form; ValueError names the bad part."""
    seat = spec.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEATS:
        raise ValueError(f"'seat' must be 0..{SEATS - 1}, not {seat!r}")
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
    extra = set(deal) - {"dealer", "hands", "wall", "tail"}
    if extra:
        raise ValueError(f"unknown deal key(s) {sorted(extra)}; allowed: dealer, hands, wall, tail")
    dealer = deal.get("dealer", 0)
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < SEATS:
        raise ValueError(f"deal 'dealer' must be 0..{SEATS - 1}, not {dealer!r}")
    hands = deal.get("hands")
    if not isinstance(hands, list) or len(hands) != SEATS or not all(isinstance(h, str) for h in hands):
        raise ValueError(f"deal 'hands' must list {SEATS} hands in tile notation")
    parsed = [parse_tiles(h) for h in hands]
    live = parse_tiles(_text(deal, "wall"))
    tail = parse_tiles(_text(deal, "tail"))
    return FixedDeal(dealer, stacked(parsed, live, tail, dealer, FULL_SET), salt)


def _text(deal: Mapping[str, Any], key: str) -> str:
    text = deal.get(key, "")
    if not isinstance(text, str):
        raise ValueError(f"deal {key!r} must be tiles in notation, such as \"5p E 9s\"")
    return text
