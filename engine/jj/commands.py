"""jj's own commands (the shared mahjong ones live in engine.mahjong.actions)."""

from __future__ import annotations

from engine.core.messages import command
from engine.mahjong.tiles import Tile


@command("jj.FixedDeal")
class FixedDeal:
    """Deal a scenario's stacked deck (136 tiles and 4 flowers) instead of a shuffle."""

    dealer: int
    order: tuple[Tile, ...]
    salt: bytes
