"""Koudian's own events (the shared mahjong ones live in engine.mahjong.actions)."""

from __future__ import annotations

from engine.core.contract import DeckReveal
from engine.core.messages import event
from engine.koudian.options import Options
from engine.mahjong.actions import ClaimAnswered, Konged, Ponged, TileDiscarded, TileDrawn
from engine.mahjong.tiles import Tile
from engine.mahjong.wall import Dice


@event("koudian.TableCreated")
class TableCreated:
    table_id: str
    options: Options


@event("koudian.DealerChosen")
class DealerChosen:
    """The first dealer of the match: each round of dice (a round per tie; (0, 0) for a seat that
    did not roll again; no rounds for a fixed deal). The highest roll deals."""

    rolls: tuple[tuple[tuple[int, int], ...], ...]
    dealer: int


@event("koudian.HandStarted")
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


@event("koudian.ClaimWindowOpened")
class ClaimWindowOpened:
    """Seats may claim `tile` (a discard, or with `robbing` an added kong). Each seat's copy lists
    only its own options: who could claim is hidden. With `claim_window` 2 a window opens after
    every face-up discard and added kong, even when `options` is empty."""

    tile: Tile
    source: int
    options: tuple[tuple[int, tuple[str, ...]], ...]
    robbing: bool = False


@event("koudian.ReadyDeclared")
class ReadyDeclared:
    """报听: `seat` discarded `tile` face down and locked its hand, waiting on `waits`.
    Both are None/empty in the other seats' copies until the hand ends."""

    seat: int
    tile: Tile | None
    waits: tuple[Tile, ...] = ()


@event("koudian.HandEnded")
class HandEnded:
    """The hand is over, with the settlement and the reveal of every hidden tile, deck and salt.

    `outcome` (engine.koudian.scoring): self_draw, kong_self_draw (concealed-kong replacement),
    kong_replacement_win (exposed or added kong replacement, a discard win), discard_win,
    robbed_kong; or draw / kong_draw. `source` is the discarder or kong maker, `payer` the seat
    that pays for all three (包) or None. `hands` are the concealed hands, `concealed_kongs` each
    seat's concealed kong tiles, `face_down` each seat's 报听 discard.
    """

    outcome: str
    deltas: tuple[int, ...]
    next_dealer: int
    passes: int
    order: tuple[Tile, ...]
    salt: bytes
    hands: tuple[tuple[Tile, ...], ...]
    concealed_kongs: tuple[tuple[Tile, ...], ...]
    face_down: tuple[Tile | None, ...]
    seed: bytes | None = None
    winner: int | None = None
    tile: Tile | None = None
    source: int | None = None
    points: int = 0
    payer: int | None = None


@event("koudian.MatchEnded")
class MatchEnded:
    """The dealership went around `rounds_per_match` times. `seating` is the seat each player
    takes at the next match (display only: drawn from the wind tiles, as the seed describes)."""

    scores: tuple[int, ...]
    seating: tuple[int, ...]


Event = (
    TableCreated | DealerChosen | HandStarted | TileDrawn | TileDiscarded | ReadyDeclared
    | ClaimWindowOpened | ClaimAnswered | Ponged | Konged | HandEnded | MatchEnded
)


def deck_commitment(ev: Event) -> str | None:
    """The commitment a hand's start publishes."""
    return ev.commitment if isinstance(ev, HandStarted) else None


def deck_reveal(ev: Event) -> DeckReveal | None:
    """The wall's order and the salt a hand's end reveals."""
    return DeckReveal(tuple(str(t) for t in ev.order), ev.salt) if isinstance(ev, HandEnded) else None
