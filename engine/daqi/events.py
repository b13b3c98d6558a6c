"""What happens at a 打七 table, in the past tense. Fields a seat may not see are optional: the
server's log holds them, `redact` blanks them for a seat (see view.py)."""

from __future__ import annotations

from engine.core.contract import DeckReveal
from engine.core.messages import event
from engine.daqi.cards import Card
from engine.daqi.friend import Partnership
from engine.daqi.options import Options


@event("daqi.TableCreated")
class TableCreated:
    table_id: str
    options: Options


@event("daqi.HandStarted")
class HandStarted:
    """A hand begins. `commitment` = sha256(deck order || salt) is public; `deck`, `flip_index`,
    `seed` and `salt` are the server's secrets until HandEnded reveals deck and salt."""

    number: int
    dealer: int
    commitment: str
    deck: tuple[Card, ...] | None = None
    flip_index: int | None = None
    seed: bytes | None = None
    salt: bytes | None = None


@event("daqi.CardDealt")
class CardDealt:
    """Card number `index` (0..99) of the deal went to `seat`; `card` is None for the other seats
    unless it is the face-up 翻牌."""

    index: int
    seat: int
    card: Card | None = None
    face_up: bool = False


@event("daqi.BidMade")
class BidMade:
    """`seat` showed `cards` (they stay in the hand); `overcall` when it replaced another
    seat's bid (反主), not the seat's own (加固)."""

    seat: int
    cards: tuple[Card, ...]
    overcall: bool = False


@event("daqi.Passed")
class Passed:
    seat: int


@event("daqi.BiddingClosed")
class BiddingClosed:
    """The 庄家 and the trump suit (None: no trump suit); `by_flip` when nobody bid."""

    declarer: int
    trump_suit: int | None
    by_flip: bool = False


@event("daqi.BottomTaken")
class BottomTaken:
    """The 庄家 took the 8 bottom cards into hand (`cards` only for that seat)."""

    seat: int
    cards: tuple[Card, ...] | None = None


@event("daqi.BottomBuried")
class BottomBuried:
    """The 庄家 buried 8 cards face down (`cards` only for that seat)."""

    seat: int
    cards: tuple[Card, ...] | None = None


@event("daqi.PlayStarted")
class PlayStarted:
    """Bidding and burying are over; the 庄家 leads. `partnership` is secret (None for seats)."""

    declarer: int
    trump_suit: int | None
    partnership: Partnership | None = None


@event("daqi.CardsPlayed")
class CardsPlayed:
    seat: int
    cards: tuple[Card, ...]


@event("daqi.ThrowFailed")
class ThrowFailed:
    """`seat` tried to throw (甩牌) `cards`, but another player could beat `forced`, a part of it:
    only that part is played (the CardsPlayed that follows); the rest goes back to the hand."""

    seat: int
    cards: tuple[Card, ...]
    forced: tuple[Card, ...]


@event("daqi.FriendRevealed")
class FriendRevealed:
    """`seat` played the friend card: it is the 庄家's friend."""

    seat: int


@event("daqi.TrickWon")
class TrickWon:
    """Trick number `trick` (1, 2, ...) went to `seat` with `points` in it."""

    trick: int
    seat: int
    points: int


@event("daqi.HandEnded")
class HandEnded:
    """Every card is played: 抠底, the 抓分方's points `taker_points`, the grade and the payments.
    Reveals the bottom, the deck order and the salt (check them against the commitment)."""

    declarer: int
    friend: int | None
    won: tuple[int, ...]
    bottom: tuple[Card, ...]
    bottom_points: int
    kou_di: int
    taker_points: int
    grade: int
    deltas: tuple[int, ...]
    deck: tuple[Card, ...]
    salt: bytes


Event = (
    TableCreated | HandStarted | CardDealt | BidMade | Passed | BiddingClosed | BottomTaken
    | BottomBuried | PlayStarted | CardsPlayed | ThrowFailed | FriendRevealed | TrickWon | HandEnded
)


def deck_commitment(ev: Event) -> str | None:
    """The commitment a hand's start publishes."""
    return ev.commitment if isinstance(ev, HandStarted) else None


def deck_reveal(ev: Event) -> DeckReveal | None:
    """The deck's order and the salt a hand's end reveals."""
    return DeckReveal(tuple(str(c) for c in ev.deck), ev.salt) if isinstance(ev, HandEnded) else None
