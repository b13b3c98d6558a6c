"""The state of a jj table: one type per phase, all immutable values.

`NoTable` before creation, `BetweenHands` while the driver must deal, `Playing` during a hand,
`MatchOver` at the end. Inside a hand: `Turn` (a seat holding 14 must discard, declare ready,
kong or win), `Claims` (seats answer a discard), `Robbing` (seats may rob an added kong).
"""

from __future__ import annotations

import dataclasses
import operator

from engine.core.contract import HandResult
from engine.core.messages import value
from engine.jj.options import Options
from engine.jj.scoring import Payment
from engine.mahjong.claims import ClaimWindow
from engine.mahjong.phases import TablePhases
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile
from engine.mahjong.wall import Wall

SEATS = 4
TILES = 140  # 136 and the four flowers 梅兰竹菊

# How the tile in a Turn arrived.
DEAL = "deal"
WALL = "wall"
CLAIMED = "claimed"  # after a pong or chow: no tile drawn
REPLACEMENT = "replacement"  # a kong's replacement (杠上开花)
FLOWER = "flower"  # a flower's replacement (补花): as good as the draw it replaces


@value("jj.Turn")
class Turn:
    seat: int
    drawn: Tile | None
    source: str
    last: bool = False


@value("jj.Claims")
class Claims:
    window: ClaimWindow
    chow_low: Tile | None = None


@value("jj.Robbing")
class Robbing:
    window: ClaimWindow
    chow_low: Tile | None = None


Phase = Turn | Claims | Robbing


@value("jj.Hand")
class Hand:
    """One hand in play. `flowers` each seat's laid-out flowers; `won` the seats that have won
    (血战 plays on); `ready` / `heavenly_ready` the seats that declared (天听); `discards` how
    many discards each seat made; `claimed` whether anyone claimed or konged yet (地胡, 人胡)."""

    number: int
    dealer: int
    wall: Wall
    seats: tuple[SeatTiles, ...]
    phase: Phase
    salt: bytes
    wild: Tile | None
    indicator: Tile | None
    seed: bytes | None = None
    flowers: tuple[tuple[Tile, ...], ...] = ((),) * SEATS
    won: tuple[int, ...] = ()
    ready: tuple[bool, ...] = (False,) * SEATS
    heavenly_ready: tuple[bool, ...] = (False,) * SEATS
    discards: tuple[int, ...] = (0,) * SEATS
    claimed: bool = False
    dealer_konged: bool = False
    deltas: tuple[int, ...] = (0,) * SEATS
    payments: tuple[Payment, ...] = ()  # every win's, in the order they were made
    first_winner: int | None = None
    turned: tuple[Tile, ...] = ()
    dealing: bool = True
    fans: int = 0
    flower_shown: bool = False  # the next tail draw replaces a flower, not a kong

    def but(self, **changes: object) -> Hand:
        """This hand with `changes`; cheaper than dataclasses.replace, where replay spends its time."""
        values = list(_HAND_VALUES(self))
        for name, v in changes.items():
            values[_HAND_INDEX[name]] = v
        return Hand(*values)


_HAND_FIELDS = tuple(f.name for f in dataclasses.fields(Hand))
_HAND_VALUES = operator.attrgetter(*_HAND_FIELDS)
_HAND_INDEX = {name: i for i, name in enumerate(_HAND_FIELDS)}


@value("jj.Table")
class Table:
    table_id: str
    options: Options
    scores: tuple[int, ...] = (0,) * SEATS
    dealer: int | None = None
    passes: int = 0
    hands_played: int = 0
    result: HandResult | None = None


@value("jj.NoTable")
class NoTable:
    """Before the table's creation event."""


@value("jj.BetweenHands")
class BetweenHands:
    table: Table


@value("jj.Playing")
class Playing:
    table: Table
    hand: Hand


@value("jj.MatchOver")
class MatchOver:
    table: Table


State = NoTable | BetweenHands | Playing | MatchOver


PHASES = TablePhases(NoTable, BetweenHands, Playing, MatchOver)


def initial() -> State:
    """The state before the table's creation event."""
    return NoTable()


status = PHASES.status  # the contract's: where the table stands for its driver
hand_result = PHASES.hand_result  # the contract's: how the last finished hand ended (None before any)
