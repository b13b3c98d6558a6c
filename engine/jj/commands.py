"""jj's own commands (the shared mahjong ones live in engine.mahjong.actions)."""

from __future__ import annotations

from engine.core.contract import StartHand
from engine.core.messages import command
from engine.mahjong.actions import Chow, CloseClaims, DeclareReady, Discard, Kong, Pass, Pong, Win
from engine.mahjong.tiles import Tile


@command("jj.FixedDeal")
class FixedDeal:
    """Deal a scenario's stacked deck (136 tiles and 4 flowers) instead of a shuffle."""

    dealer: int
    order: tuple[Tile, ...]
    salt: bytes


Command = StartHand | FixedDeal | Discard | DeclareReady | Pong | Chow | Kong | Win | Pass | CloseClaims


def command_seat(cmd: Command) -> int | None:
    """The seat a command acts for (None: a deal, which the service sends)."""
    return None if isinstance(cmd, StartHand | FixedDeal | CloseClaims) else cmd.seat
