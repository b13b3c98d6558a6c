"""The state of a koudian table: one type per phase, all immutable values.

A table is `NoTable` before its creation event, `BetweenHands` while the driver must deal,
`Playing` during a hand, `MatchOver` at the end. Inside a hand the phase says who owes what:
`Turn` (a seat with 14 tiles must discard, declare ready, kong or win), `Claims` (seats answer a
face-up discard), `Robbing` (ready seats may rob an added kong).
"""

from __future__ import annotations

from engine.core.contract import HandResult
from engine.core.messages import value
from engine.koudian.options import Options
from engine.mahjong.claims import ClaimWindow
from engine.mahjong.melds import KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED
from engine.mahjong.phases import TablePhases
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile
from engine.mahjong.wall import Wall

SEATS = 4
RESERVE = 12  # 6 stacks stay standing at the tail ...
RESERVE_PER_KONG = 2  # ... plus one stack per kong (1杠7垛, 2杠8垛, ...)

# How the tile in a Turn arrived; it decides whether and how that tile can win.
DEAL = "deal"
WALL = "wall"
PONGED = "pong"
CONCEALED_KONG = KONG_CONCEALED  # a kong's replacement arrives as the kong's own kind
EXPOSED_KONG = KONG_EXPOSED
ADDED_KONG = KONG_ADDED


@value("koudian.Turn")
class Turn:
    """`seat` holds 14 tiles (melds counted as 3) and must act. `drawn` is the tile just drawn
    (None after a pong or on the dealer's first turn); `source` says how it came (see above);
    `last` when it was the last tile the live wall gives."""

    seat: int
    drawn: Tile | None
    source: str
    last: bool = False


@value("koudian.Claims")
class Claims:
    window: ClaimWindow


@value("koudian.Robbing")
class Robbing:
    """An added kong waits for the ready seats that could rob it (抢杠)."""

    window: ClaimWindow


Phase = Turn | Claims | Robbing


@value("koudian.Hand")
class Hand:
    """One hand in play: the wall, each seat's tiles, the phase. `seed` and `salt` are the hand's
    secrets, revealed by HandEnded; `kongs` counts the kongs declared (each grows the reserve)."""

    number: int
    dealer: int
    wall: Wall
    seats: tuple[SeatTiles, ...]
    phase: Phase
    salt: bytes
    seed: bytes | None = None
    kongs: int = 0
    last_discard: Tile | None = None  # the latest face-up discard, to explain why it cannot be won on

    def with_seat(
        self,
        s: int,
        hand: SeatTiles,
        wall: Wall | None = None,
        phase: Phase | None = None,
        last_discard: Tile | None | bool = False,
    ) -> Hand:
        """This hand with seat `s` replaced (and the wall, phase and last discard, if given).
        Built directly rather than through dataclasses.replace: replay spends its time here."""
        return Hand(
            self.number,
            self.dealer,
            self.wall if wall is None else wall,
            self.seats[:s] + (hand,) + self.seats[s + 1 :],
            self.phase if phase is None else phase,
            self.salt,
            self.seed,
            self.kongs,
            self.last_discard if last_discard is False else last_discard,  # type: ignore[arg-type]
        )


@value("koudian.Table")
class Table:
    """What lasts across hands: options, scores, the dealer and how often the deal has passed."""

    table_id: str
    options: Options
    scores: tuple[int, ...] = (0,) * SEATS
    dealer: int | None = None
    passes: int = 0
    hands_played: int = 0
    result: HandResult | None = None


@value("koudian.NoTable")
class NoTable:
    """Before the table's creation event."""


@value("koudian.BetweenHands")
class BetweenHands:
    table: Table


@value("koudian.Playing")
class Playing:
    table: Table
    hand: Hand


@value("koudian.MatchOver")
class MatchOver:
    table: Table


State = NoTable | BetweenHands | Playing | MatchOver


PHASES = TablePhases(NoTable, BetweenHands, Playing, MatchOver)


def initial() -> State:
    """The state before the table's creation event."""
    return NoTable()


status = PHASES.status  # the contract's: where the table stands for its driver
hand_result = PHASES.hand_result  # the contract's: how the last finished hand ended (None before any)
