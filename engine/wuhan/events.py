"""Wuhan's own events (the shared mahjong ones live in engine.mahjong.actions)."""

from __future__ import annotations

from engine.core.contract import DeckReveal
from engine.core.messages import event
from engine.mahjong.actions import ClaimAnswered, Konged, Ponged, TileDiscarded, TileDrawn
from engine.mahjong.tiles import Tile
from engine.mahjong.wall import Dice
from engine.wuhan.options import Options
from engine.wuhan.scoring import Settlement


@event("wuhan.TableCreated")
class TableCreated:
    table_id: str
    options: Options


@event("wuhan.DealerChosen")
class DealerChosen:
    """The first dealer of the match: each round of dice (a round per tie; (0, 0) for a seat that
    did not roll again; no rounds for a fixed deal). The highest roll deals."""

    rolls: tuple[tuple[tuple[int, int], ...], ...]
    dealer: int


@event("wuhan.HandStarted")
class HandStarted:
    """A hand was dealt. `commitment` = sha256(deck order || salt) is public; `order`, `seed` and
    `salt` are server-side secrets (None in a seat's copy) until HandEnded reveals them.
    `dealt` is each seat's dealt tiles; a seat's copy shows only its own."""

    number: int
    dealer: int
    commitment: str
    dealt: tuple[tuple[Tile, ...], ...]
    dice: Dice | None = None
    order: tuple[Tile, ...] | None = None
    seed: bytes | None = None
    salt: bytes | None = None


@event("wuhan.IndicatorTurned")
class IndicatorTurned:
    """The tile after the deal was turned face up for everyone: the 赖子 is the kind after it,
    the skins (赖子皮) are its kind and the kind before. It stays out of play."""

    indicator: Tile
    laizi: Tile
    skins: tuple[Tile, Tile]


@event("wuhan.LaidOut")
class LaidOut:
    """`seat` laid out a 赖子 (赖子杠) or a skin (皮杠) by itself; a replacement draw follows and
    nobody may claim it. `discarded` when the seat played it as a discard (the same move)."""

    seat: int
    tile: Tile
    kong: str  # "赖子杠" or "皮杠"
    discarded: bool = False


@event("wuhan.ChowClaimed")
class ChowClaimed:
    """`seat` answered the open discard with a chow into the run starting at `low` (seen only by
    that seat, like every answer: a pong or a win may still take the tile)."""

    seat: int
    low: Tile


@event("wuhan.Chowed")
class Chowed:
    """`seat` claimed `tile` from `source` (the seat before it) into the run starting at `low`."""

    seat: int
    low: Tile
    tile: Tile
    source: int


@event("wuhan.ClaimWindowOpened")
class ClaimWindowOpened:
    """Seats may claim `tile` (a discard, or with `robbing` an added kong). Each seat's copy lists
    only its own options (and is dropped for seats with none): who could claim is hidden."""

    tile: Tile
    source: int
    options: tuple[tuple[int, tuple[str, ...]], ...]
    robbing: bool = False


@event("wuhan.KongRobbed")
class KongRobbed:
    """`winner` robbed the added kong of `tile` made by `seat` (抢杠): the kong goes back to a
    pong and the tile to the winner."""

    seat: int
    tile: Tile
    winner: int


@event("wuhan.HandEnded")
class HandEnded:
    """The hand is over, with the settlement and the reveal of every hidden tile, deck and salt.

    `outcome`: self_draw, discard_win, robbed_kong, or draw (荒庄: nobody won the last four).
    `settlement` explains every loser's amount (engine.wuhan.scoring). `hands` are the concealed
    hands, `concealed_kongs` each seat's concealed kong tiles."""

    outcome: str
    deltas: tuple[int, ...]
    next_dealer: int
    passes: int
    order: tuple[Tile, ...]
    salt: bytes
    hands: tuple[tuple[Tile, ...], ...]
    concealed_kongs: tuple[tuple[Tile, ...], ...]
    seed: bytes | None = None
    winner: int | None = None
    tile: Tile | None = None
    source: int | None = None
    settlement: Settlement | None = None


@event("wuhan.MatchEnded")
class MatchEnded:
    """The dealership went around `rounds_per_match` times."""

    scores: tuple[int, ...]


Event = (
    TableCreated
    | DealerChosen
    | HandStarted
    | IndicatorTurned
    | TileDrawn
    | TileDiscarded
    | LaidOut
    | ClaimWindowOpened
    | ClaimAnswered
    | ChowClaimed
    | Chowed
    | Ponged
    | Konged
    | KongRobbed
    | HandEnded
    | MatchEnded
)


def deck_commitment(ev: Event) -> str | None:
    """The commitment a hand's start publishes."""
    return ev.commitment if isinstance(ev, HandStarted) else None


def deck_reveal(ev: Event) -> DeckReveal | None:
    """The wall's order and the salt a hand's end reveals."""
    return DeckReveal(tuple(str(t) for t in ev.order), ev.salt) if isinstance(ev, HandEnded) else None
