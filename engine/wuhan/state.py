"""The state of a wuhan table: one type per phase, all immutable values.

A table is `NoTable` before its creation event, `BetweenHands` while the driver must deal,
`Playing` during a hand, `MatchOver` at the end. Inside a hand the phase says who owes what:
`Turn` (a seat with 14 tiles must discard, kong or win), `Claims` (seats answer a discard),
`Robbing` (seats may rob an added kong), `LastFour` (a seat drew one of the last four tiles
and may only win with it).
"""

from __future__ import annotations

from engine.core.contract import HandResult
from engine.core.messages import value
from engine.mahjong.claims import ClaimWindow
from engine.mahjong.phases import TablePhases
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile
from engine.mahjong.wall import Wall
from engine.wuhan.options import Options
from engine.wuhan.roles import Roles

SEATS = 4
TILES = 136
RESERVE = 10  # the last 5 stacks are never drawn
LAST_DRAWS = 4  # the 4 tiles before them are drawn one each: 海底捞

# How the tile in a Turn arrived.
DEAL = "deal"  # the dealer's first turn
WALL = "wall"
CLAIMED = "claimed"  # after a chow or pong: nothing was drawn
REPLACEMENT = "replacement"  # a kong's replacement from the tail (杠上开花 when it wins)


@value("wuhan.Turn")
class Turn:
    """`seat` holds 14 tiles (melds counted as 3) and must discard, kong or win. `drawn` is the
    tile just drawn (None after a claim and on the dealer's first turn); `source` how it came."""

    seat: int
    drawn: Tile | None
    source: str


@value("wuhan.LastFour")
class LastFour:
    """`seat` drew one of the last four tiles (`drawn`, from the wall or as a kong's
    replacement): it may win by self-draw or let the next seat draw; no discard, no kong."""

    seat: int
    drawn: Tile
    source: str


@value("wuhan.Claims")
class Claims:
    """Seats answer a face-up discard; `chow_low` is the run a chow answer asked for."""

    window: ClaimWindow
    chow_low: Tile | None = None


@value("wuhan.Robbing")
class Robbing:
    """An added kong (蓄杠) waits for the seats that could rob it (抢杠); it stands meanwhile."""

    window: ClaimWindow


Phase = Turn | LastFour | Claims | Robbing


@value("wuhan.Hand")
class Hand:
    """One hand in play: the wall, each seat's tiles and laid-out 赖子 and skins (`laid`), the
    roles the indicator gives the tiles, the phase. `seed` and `salt` are the hand's secrets,
    revealed by HandEnded."""

    number: int
    dealer: int
    wall: Wall
    seats: tuple[SeatTiles, ...]
    laid: tuple[tuple[Tile, ...], ...]
    roles: Roles
    phase: Phase
    salt: bytes
    seed: bytes | None = None
    last_discard: tuple[int, Tile] | None = None  # (seat, tile) discarded or laid out last: explains why it cannot be won

    def with_seat(
        self,
        s: int,
        tiles: SeatTiles,
        wall: Wall | None = None,
        phase: Phase | None = None,
        last_discard: tuple[int, Tile] | None | bool = False,
    ) -> Hand:
        """This hand with seat `s` replaced (and the wall, phase and last discard, if given).
        Built directly rather than through dataclasses.replace: replay spends its time here."""
        return Hand(
            self.number,
            self.dealer,
            self.wall if wall is None else wall,
            self.seats[:s] + (tiles,) + self.seats[s + 1 :],
            self.laid,
            self.roles,
            self.phase if phase is None else phase,
            self.salt,
            self.seed,
            self.last_discard if last_discard is False else last_discard,  # type: ignore[arg-type]
        )


@value("wuhan.Table")
class Table:
    """What lasts across hands: options, scores, the dealer and how often the deal has passed."""

    table_id: str
    options: Options
    scores: tuple[int, ...] = (0,) * SEATS
    dealer: int | None = None
    passes: int = 0
    hands_played: int = 0
    result: HandResult | None = None


@value("wuhan.NoTable")
class NoTable:
    """Before the table's creation event."""


@value("wuhan.BetweenHands")
class BetweenHands:
    table: Table


@value("wuhan.Playing")
class Playing:
    table: Table
    hand: Hand


@value("wuhan.MatchOver")
class MatchOver:
    table: Table


State = NoTable | BetweenHands | Playing | MatchOver


PHASES = TablePhases(NoTable, BetweenHands, Playing, MatchOver)


def initial() -> State:
    """The state before the table's creation event."""
    return NoTable()


status = PHASES.status  # the contract's: where the table stands for its driver
hand_result = PHASES.hand_result  # the contract's: how the last finished hand ended (None before any)
