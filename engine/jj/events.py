"""jj's own events (the shared mahjong ones live in engine.mahjong.actions)."""

from __future__ import annotations

from engine.core.contract import DeckReveal
from engine.core.messages import event
from engine.jj.options import Options
from engine.jj.scoring import Payment
from engine.jj.winning import Scored
from engine.mahjong.actions import ClaimAnswered, Konged, Ponged, TileDiscarded, TileDrawn
from engine.mahjong.tiles import Tile


@event("jj.TableCreated")
class TableCreated:
    table_id: str
    options: Options


@event("jj.HandStarted")
class HandStarted:
    """A hand was dealt. `indicator` is the turned-up tile (None without one) and `wild` the 混
    kind (None at a table without 混); `turned` every tile turned over at the tail for it (flowers
turned before the indicator go out of play with it). `order`, `seed`, `salt` are secrets until HandEnded;
    `dealt` shows a seat only its own tiles."""

    number: int
    dealer: int
    commitment: str
    dealt: tuple[tuple[Tile, ...], ...]
    indicator: Tile | None
    wild: Tile | None
    turned: tuple[Tile, ...] = ()
    order: tuple[Tile, ...] | None = None
    seed: bytes | None = None
    salt: bytes | None = None


@event("jj.FlowerShown")
class FlowerShown:
    """补花: `seat` laid out `flower`; its replacement is the next TileDrawn from the tail."""

    seat: int
    flower: Tile


@event("jj.Chowed")
class Chowed:
    seat: int
    low: Tile
    tile: Tile
    source: int


@event("jj.ChowClaimed")
class ChowClaimed:
    """`seat` answered the open window with a chow into the run from `low` (seen only by that seat)."""

    seat: int
    low: Tile


@event("jj.ClaimWindowOpened")
class ClaimWindowOpened:
    """Seats may claim `tile` (a discard, or with `robbing` an added kong). Each seat's copy lists
    only its own options."""

    tile: Tile
    source: int
    options: tuple[tuple[int, tuple[str, ...]], ...]
    robbing: bool = False


@event("jj.ReadyDeclared")
class ReadyDeclared:
    """报听 with the face-up discard `tile`: the hand is locked. `heavenly` for 天听."""

    seat: int
    tile: Tile
    heavenly: bool = False


@event("jj.Won")
class Won:
    """A win, with every fan and its value, the fans jj's exclusions removed, and who pays what.
    `how` is self_draw, discard_win or robbed_kong; `hand` the winner's concealed tiles."""

    seat: int
    how: str
    tile: Tile
    source: int | None
    scored: Scored
    payments: tuple[Payment, ...]
    deltas: tuple[int, ...]
    hand: tuple[Tile, ...]


@event("jj.HandEnded")
class HandEnded:
    """The hand is over: `outcome` (a win's how, "xuezhan" when several may have won, or "draw"
    for 荒庄), the hand's deltas (every Won's summed), the next dealer, and the reveal."""

    outcome: str
    deltas: tuple[int, ...]
    next_dealer: int
    passes: int
    order: tuple[Tile, ...]
    salt: bytes
    hands: tuple[tuple[Tile, ...], ...]
    seed: bytes | None = None
    points: int = 0


@event("jj.DealFinished")
class DealFinished:
    """Every dealt flower is replaced (补花): the dealer's first turn begins."""


@event("jj.MatchEnded")
class MatchEnded:
    scores: tuple[int, ...]


Event = (
    TableCreated | HandStarted | FlowerShown | DealFinished | TileDrawn | TileDiscarded | ReadyDeclared
    | ClaimWindowOpened | ClaimAnswered | ChowClaimed | Ponged | Chowed | Konged | Won | HandEnded | MatchEnded
)


def deck_commitment(ev: Event) -> str | None:
    """The commitment a hand's start publishes."""
    return ev.commitment if isinstance(ev, HandStarted) else None


def deck_reveal(ev: Event) -> DeckReveal | None:
    """The wall's order (flowers included) and the salt a hand's end reveals."""
    return DeckReveal(tuple(str(t) for t in ev.order), ev.salt) if isinstance(ev, HandEnded) else None
