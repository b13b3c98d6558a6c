"""The human form every mahjong ruleset reads alike (scenario files, the terminal client): a
command's seat, and a deal's keys, dealer, hands and tile lists (docs/scenarios/<game>.md). Each
ruleset's notation.py reads its actions and stacks its deck with these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.mahjong.tiles import Tile, parse_tiles


def seat(spec: Mapping[str, Any], seats: int) -> int:
    """A command's "seat"; ValueError unless it is a seat of the table."""
    value = spec.get("seat")
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seats:
        raise ValueError(f"'seat' must be 0..{seats - 1}, not {value!r}")
    return value


def deal_keys(deal: Mapping[str, Any], allowed: Sequence[str]) -> None:
    """ValueError naming a deal's keys that are not `allowed` (listed in that order)."""
    extra = set(deal) - set(allowed)
    if extra:
        raise ValueError(f"unknown deal key(s) {sorted(extra)}; allowed: {', '.join(allowed)}")


def dealer(deal: Mapping[str, Any], seats: int) -> int:
    """A deal's "dealer" (seat 0 when not given)."""
    value = deal.get("dealer", 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seats:
        raise ValueError(f"deal 'dealer' must be 0..{seats - 1}, not {value!r}")
    return value


def hands(deal: Mapping[str, Any], seats: int) -> list[tuple[Tile, ...]]:
    """A deal's "hands", one string of tiles per seat."""
    value = deal.get("hands")
    if not isinstance(value, list) or len(value) != seats or not all(isinstance(h, str) for h in value):
        raise ValueError(f"deal 'hands' must list {seats} hands in tile notation")
    return [parse_tiles(h) for h in value]


def tiles(deal: Mapping[str, Any], key: str) -> tuple[Tile, ...]:
    """The tiles a deal lists under `key` (none when not given)."""
    text = deal.get(key, "")
    if not isinstance(text, str):
        raise ValueError(f"deal {key!r} must be tiles in notation, such as \"5p E 9s\"")
    return parse_tiles(text)
