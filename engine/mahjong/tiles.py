"""Tiles and their compact notation ("123m 456p 77s EEE CC f1").

Tile ids: 0-8 = 1m..9m, 9-17 = 1p..9p, 18-26 = 1s..9s, 27-30 = E S W N, 31-33 = C F P (中 發 白),
34-37 = flowers f1..f4. Hand analysis works on 34 counts (flowers are never part of a hand).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.core.messages import scalar

SUITS = "mps"
HONORS = "ESWNCFP"
_FLOWER_BASE = 34
_KINDS = 34


class TileNotationError(ValueError):
    """Tile notation that does not parse; the message names the bad token and where it is."""


class Tile(int):
    """One tile, an int 0..37 that prints as its notation ("5m", "E", "f1")."""

    __slots__ = ()

    def __str__(self) -> str:
        return _NAMES[self]

    __repr__ = __str__


def _name(i: int) -> str:
    if i < 27:
        return f"{i % 9 + 1}{SUITS[i // 9]}"
    if i < _FLOWER_BASE:
        return HONORS[i - 27]
    return f"f{i - _FLOWER_BASE + 1}"


_NAMES = tuple(_name(i) for i in range(_FLOWER_BASE + 4))
_TILES = tuple(int.__new__(Tile, i) for i in range(_FLOWER_BASE + 4))
_BY_NAME = {name: _TILES[i] for i, name in enumerate(_NAMES)}

ALL_TILES: tuple[Tile, ...] = _TILES[:_KINDS]
FLOWERS: tuple[Tile, ...] = _TILES[_FLOWER_BASE:]
FULL_SET: tuple[Tile, ...] = tuple(t for t in ALL_TILES for _ in range(4))


def tile(i: int) -> Tile:
    """The Tile with id `i` (shared instances; cheaper than `Tile(i)` in hot loops)."""
    return _TILES[i]


def parse_tile(text: str) -> Tile:
    """One tile from its notation: "5m", "E", "f1"."""
    found = _BY_NAME.get(text)
    if found is None:
        raise TileNotationError(f"bad tile {text!r}")
    return found


def parse_tiles(text: str) -> tuple[Tile, ...]:
    """Tiles from the compact notation "123m 456p 77s EEE CC f1" (groups or single tiles, any order)."""
    out: list[Tile] = []
    pos = 0
    for token in text.split():
        start = text.index(token, pos)
        pos = start + len(token)
        out.extend(_parse_token(token, start, text))
    return tuple(out)


def _parse_token(token: str, start: int, text: str) -> list[Tile]:
    def bad(offset: int, part: str, why: str = "") -> TileNotationError:
        return TileNotationError(f'bad tile {part!r} at character {start + offset} in "{text}"{why}')

    if token[0] == "f":
        if len(token) < 2:
            raise bad(0, token, " (flowers are f1..f4)")
        for i, ch in enumerate(token[1:], 1):
            if ch not in "1234":
                raise bad(i, "f" + ch, " (flowers are f1..f4)")
        return [_BY_NAME["f" + ch] for ch in token[1:]]
    if token[0] in HONORS:
        for i, ch in enumerate(token):
            if ch not in HONORS:
                raise bad(i, ch, " (honors are E S W N C F P)")
        return [_BY_NAME[ch] for ch in token]
    suit = token[-1]
    if suit not in SUITS:
        raise bad(0, token, " (a number group needs a suit letter m, p or s at its end)")
    tiles = []
    for i, ch in enumerate(token[:-1]):
        if ch not in "123456789":
            raise bad(i, ch + suit)
        tiles.append(_BY_NAME[ch + suit])
    if not tiles:
        raise bad(0, token, " (a suit letter needs numbers before it)")
    return tiles


def format_tiles(tiles: Iterable[int]) -> str:
    """Tiles sorted in compact grouped notation: "123m 456p 77s EEE CC f1"."""
    groups: list[str] = []
    ordered = sorted(tiles)
    for s, letter in enumerate(SUITS):
        digits = "".join(str(t - 9 * s + 1) for t in ordered if 9 * s <= t < 9 * s + 9)
        if digits:
            groups.append(digits + letter)
    for h in range(27, _KINDS):
        n = ordered.count(h)
        if n:
            groups.append(_NAMES[h] * n)
    groups.extend(_NAMES[t] for t in ordered if t >= _FLOWER_BASE)
    return " ".join(groups)


def counts(tiles: Iterable[int]) -> list[int]:
    """How many of each of the 34 kinds (flowers are left out)."""
    c = [0] * _KINDS
    for t in tiles:
        if t < _KINDS:
            c[t] += 1
    return c


def from_counts(c: Sequence[int]) -> tuple[Tile, ...]:
    """The sorted tiles that 34 counts describe."""
    return tuple(_TILES[i] for i, n in enumerate(c) for _ in range(n))


def suit_of(t: int) -> int:
    """0 for characters (m), 1 for dots (p), 2 for bamboo (s), 3 for honors and flowers."""
    return t // 9 if t < 27 else 3


def number_of(t: int) -> int | None:
    """1..9 for a number tile, None for honors and flowers."""
    return t % 9 + 1 if t < 27 else None


def is_honor(t: int) -> bool:
    """Winds and dragons."""
    return 27 <= t < _KINDS


def is_flower(t: int) -> bool:
    return t >= _FLOWER_BASE


def face_value(t: int) -> int:
    """A number tile's number; 10 for every wind and dragon (koudian's points of a win)."""
    return t % 9 + 1 if t < 27 else 10


scalar(Tile, str, parse_tile)
