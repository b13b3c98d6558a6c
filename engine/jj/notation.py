"""Commands and deals in their human form (scenario files, the terminal client).

A command: `{"seat": 0, "action": "discard", "tile": "5m"}`; actions are discard, declare_ready,
pong, kong (each with a tile), chow (with "low", the run's lowest tile; "tile" is taken as the
same), win and pass. A deal
(docs/scenarios/jj.md): `{"dealer": 0, "hands": [...], "wall": "5p E", "tail": "C f1"}`; the
tail lists the replacement draws after the indicator, which is the deal's "indicator" (default:
whatever stands last).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.jj.commands import FixedDeal
from engine.jj.game import DECK
from engine.jj.state import SEATS
from engine.mahjong.actions import Chow, DeclareReady, Discard, Kong, Pass, Pong, Win
from engine.mahjong.tiles import parse_tile, parse_tiles
from engine.mahjong.wall import stacked

_WITH_TILE = {"discard": Discard, "declare_ready": DeclareReady, "pong": Pong, "kong": Kong}
_WITHOUT_TILE = {"win": Win, "pass": Pass}


def parse_command(spec: Mapping[str, Any]) -> Any:
    """A command from its human form; ValueError names the bad part."""
    seat = spec.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEATS:
        raise ValueError(f"'seat' must be 0..{SEATS - 1}, not {seat!r}")
    action = spec.get("action")
    allowed = {"seat", "action"} | ({"tile"} if action in _WITH_TILE else {"low", "tile"} if action == "chow" else set())
    extra = set(spec) - allowed
    if action in (*_WITH_TILE, *_WITHOUT_TILE, "chow") and extra:
        raise ValueError(f"{action!r} takes no {', '.join(sorted(extra))}")
    if action in _WITHOUT_TILE:
        return _WITHOUT_TILE[action](seat)
    if action in _WITH_TILE:
        if not isinstance(spec.get("tile"), str):
            raise ValueError(f"{action!r} needs a 'tile' such as \"5m\"")
        return _WITH_TILE[action](seat, parse_tile(spec["tile"]))
    if action == "chow":
        low = spec.get("low", spec.get("tile"))  # "chow 3s" typed in the terminal comes as a tile
        if not isinstance(low, str):
            raise ValueError("'chow' needs 'low', the run's lowest tile, such as \"3s\"")
        return Chow(seat, parse_tile(low))
    known = ", ".join([*_WITH_TILE, "chow", *_WITHOUT_TILE])
    raise ValueError(f"unknown action {action!r}; jj actions: {known}")


def fixed_deal(deal: Mapping[str, Any], salt: bytes) -> FixedDeal:
    """The command dealing a scenario: each seat's hand (the dealer's 14, flowers included), the
    live wall's first draws, the indicator (turned at the tail end) and the tail's first
    replacement draws after it; the other tiles stand in sorted order between them."""
    extra = set(deal) - {"dealer", "hands", "wall", "tail", "indicator"}
    if extra:
        raise ValueError(f"unknown deal key(s) {sorted(extra)}; allowed: dealer, hands, wall, indicator, tail")
    dealer = deal.get("dealer", 0)
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < SEATS:
        raise ValueError(f"deal 'dealer' must be 0..{SEATS - 1}, not {dealer!r}")
    hands = deal.get("hands")
    if not isinstance(hands, list) or len(hands) != SEATS or not all(isinstance(h, str) for h in hands):
        raise ValueError(f"deal 'hands' must list {SEATS} hands in tile notation")
    tail = parse_tiles(_text(deal, "indicator")) + parse_tiles(_text(deal, "tail"))
    order = stacked([parse_tiles(h) for h in hands], parse_tiles(_text(deal, "wall")), tail, dealer, DECK)
    return FixedDeal(dealer, order, salt)


def _text(deal: Mapping[str, Any], key: str) -> str:
    text = deal.get(key, "")
    if not isinstance(text, str):
        raise ValueError(f"deal {key!r} must be tiles in notation, such as \"5p E 9s\"")
    return text
