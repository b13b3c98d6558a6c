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
from engine.mahjong import notation
from engine.mahjong.actions import Chow, DeclareReady, Discard, Kong, Pass, Pong, Win
from engine.mahjong.tiles import parse_tile
from engine.mahjong.wall import stacked

_WITH_TILE = {"discard": Discard, "declare_ready": DeclareReady, "pong": Pong, "kong": Kong}
_WITHOUT_TILE = {"win": Win, "pass": Pass}


def parse_command(spec: Mapping[str, Any]) -> Any:
    """A command from its human form; ValueError names the bad part."""
    seat = notation.seat(spec, SEATS)
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
    notation.deal_keys(deal, ["dealer", "hands", "wall", "indicator", "tail"])
    dealer = notation.dealer(deal, SEATS)
    hands = notation.hands(deal, SEATS)
    tail = notation.tiles(deal, "indicator") + notation.tiles(deal, "tail")
    order = stacked(hands, notation.tiles(deal, "wall"), tail, dealer, DECK)
    return FixedDeal(dealer, order, salt)

