"""Wuhan's own command (the moves of play are the shared mahjong ones, engine.mahjong.actions).

`StartHand` (engine.core) deals a shuffled hand; `FixedDeal` deals a scripted one. A `Kong` of a
赖子 or a skin is a 赖子杠 or 皮杠, and so is a `Discard` of one: the same move.
"""

from __future__ import annotations

from engine.core.contract import StartHand
from engine.core.messages import command
from engine.mahjong.actions import Chow, CloseClaims, Discard, Kong, Pass, Pong, Win
from engine.mahjong.tiles import Tile


@command("wuhan.FixedDeal")
class FixedDeal:
    """Deal a scenario's stacked deck instead of a shuffle (`engine.mahjong.wall.stacked`)."""

    dealer: int
    order: tuple[Tile, ...]
    salt: bytes


Command = StartHand | FixedDeal | Discard | Chow | Pong | Kong | Win | Pass | CloseClaims


def command_seat(cmd: Command) -> int | None:
    """The seat a command acts for (None: a deal or a window's close, which the table sends)."""
    return None if isinstance(cmd, StartHand | FixedDeal | CloseClaims) else cmd.seat
