"""The commands and events every mahjong ruleset shares.

Commands are what a seat asks for; the ruleset checks them against its rules. Events record what
happened; the ruleset's `redact` hides drawn tiles and concealed kongs from the other seats.
"""

from __future__ import annotations

from engine.core.messages import command, event
from engine.mahjong.tiles import Tile


@command("mahjong.Discard")
class Discard:
    seat: int
    tile: Tile


@command("mahjong.DeclareReady")
class DeclareReady:
    """报听: discard `tile` face down and lock the hand, which must then be ready."""

    seat: int
    tile: Tile


@command("mahjong.Pong")
class Pong:
    seat: int
    tile: Tile


@command("mahjong.Chow")
class Chow:
    """Claim the discard into the run starting at `low` (the run's lowest tile)."""

    seat: int
    low: Tile


@command("mahjong.Kong")
class Kong:
    """A kong of `tile`; whether concealed, added or from the discard follows from the situation."""

    seat: int
    tile: Tile


@command("mahjong.Win")
class Win:
    seat: int


@command("mahjong.Pass")
class Pass:
    """Decline every claim on the tile in the open window."""

    seat: int


@command("mahjong.CloseClaims")
class CloseClaims:
    """The table closes a claim window that no seat still has to answer (nobody could claim, or
    all who could have answered without taking the tile): play goes on as after the last pass.
    Sent by the table itself (`follow_up`), as a step of its own, so that what the others see
    is the same whether or not anyone could claim (docs/hidden-information.md)."""


@event("mahjong.TileDrawn")
class TileDrawn:
    """`seat` drew a tile from the live wall, or from the tail as a kong's replacement.
    `tile` is None in the other seats' copy."""

    seat: int
    tile: Tile | None
    from_tail: bool = False


@event("mahjong.TileDiscarded")
class TileDiscarded:
    """A face-up discard; `auto` when a locked hand discarded its drawn tile by itself."""

    seat: int
    tile: Tile
    auto: bool = False


@event("mahjong.ClaimAnswered")
class ClaimAnswered:
    """`seat` answered the open claim window (a claim kind or "pass"); seen only by that seat."""

    seat: int
    claim: str


@event("mahjong.Ponged")
class Ponged:
    seat: int
    tile: Tile
    source: int


@event("mahjong.Konged")
class Konged:
    """A kong (`kind` from engine.mahjong.melds). A concealed kong's tile is None for the others."""

    seat: int
    tile: Tile | None
    kind: str
    source: int | None = None
