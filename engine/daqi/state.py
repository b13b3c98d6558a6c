"""The states of a 打七 table, one type per phase. All are frozen values compared by value.

NoTable → (TableCreated) → Waiting → (HandStarted) → Dealing → FinalBids → Burying →
[Overcalling → Burying] → Playing → (HandEnded) → Waiting ...
Hands are tuples of cards (sorted once dealt), `hands[seat]`. A seat never sees a state as is:
see view.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.contract import HandResult, Status
from engine.core.messages import value
from engine.daqi.cards import Card
from engine.daqi.events import HandEnded
from engine.daqi.friend import Partnership
from engine.daqi.options import Options
from engine.daqi.trumps import Trumps

SEATS = 5
HAND_SIZE = 20
BOTTOM_SIZE = 8
DEALT = SEATS * HAND_SIZE

Hands = tuple[tuple[Card, ...], ...]


@value("daqi.SeatCards")
class SeatCards:
    """A seat and the cards it showed (a bid) or played."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Table:
    """What outlives a hand: options, the next dealing seat, scores, the last hand's end."""

    table_id: str
    options: Options
    hands_played: int = 0
    next_dealer: int | None = None
    scores: tuple[int, ...] = (0,) * SEATS
    last: HandEnded | None = None
    last_result: HandResult | None = None


@dataclass(frozen=True, slots=True)
class Deal:
    """The hand's secrets and fixed facts: deck order (100 dealt, then the bottom), 翻牌 position."""

    number: int
    dealer: int
    deck: tuple[Card, ...]
    flip_index: int
    commitment: str
    salt: bytes

    @property
    def flip_seat(self) -> int:
        return (self.dealer + self.flip_index) % SEATS

    @property
    def flip_card(self) -> Card:
        return self.deck[self.flip_index]

    @property
    def bottom(self) -> tuple[Card, ...]:
        return self.deck[DEALT:]


@dataclass(frozen=True, slots=True)
class Bids:
    """Bids shown so far; `best` the standing one; `overcalled` once a 反主 happened."""

    shown: tuple[SeatCards, ...] = ()
    best: SeatCards | None = None
    best_rank: int = 0
    overcalled: bool = False


@dataclass(frozen=True, slots=True)
class NoTable:
    """Before the table's first event."""


@dataclass(frozen=True, slots=True)
class Waiting:
    """Between hands: the driver sends StartHand."""

    table: Table


@dataclass(frozen=True, slots=True)
class Dealing:
    """Cards go out one by one (DealNext); anyone may show 7s."""

    table: Table
    deal: Deal
    dealt: int
    hands: Hands
    bids: Bids


@dataclass(frozen=True, slots=True)
class FinalBids:
    """The window after the last card: it closes when every seat has passed since the last bid."""

    table: Table
    deal: Deal
    hands: Hands
    bids: Bids
    passed: tuple[bool, ...]


@dataclass(frozen=True, slots=True)
class Burying:
    """The 庄家 takes up the bottom (`bottom`, empty once taken: the hand then has 28 cards) and
    must bury 8. `again` after the extra overcall."""

    table: Table
    deal: Deal
    hands: Hands
    bids: Bids
    declarer: int
    trumps: Trumps
    again: bool
    bottom: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Overcalling:
    """The one extra overcall after burying: seats answer in play order from the 庄家."""

    table: Table
    deal: Deal
    hands: Hands
    bids: Bids
    declarer: int
    trumps: Trumps
    bottom: tuple[Card, ...]
    turn: int
    asked: int


@dataclass(frozen=True, slots=True)
class Playing:
    """Tricks. `leader` leads the current trick, `trick` holds its plays so far (leader first),
    `played` every play of earlier tricks; `won` trick points per seat;
    `revealed` once the friend is known to all."""

    table: Table
    deal: Deal
    hands: Hands
    bids: Bids
    declarer: int
    trumps: Trumps
    bottom: tuple[Card, ...]
    partnership: Partnership
    revealed: bool
    leader: int
    trick: tuple[SeatCards, ...]
    played: tuple[SeatCards, ...]
    tricks_done: int
    won: tuple[int, ...]

    @property
    def turn(self) -> int:
        """The seat to play next."""
        return (self.leader + len(self.trick)) % SEATS


InHand = Dealing | FinalBids | Burying | Overcalling | Playing
State = NoTable | Waiting | InHand


def initial() -> State:
    """The state before the table's creation event."""
    return NoTable()


def status(state: State) -> Status:
    """Where the table stands for its driver: never MATCH_OVER, a daqi table deals hand after
    hand (every hand is played at 7, the 庄家 won anew) until the service closes it."""
    return Status.WAITING_FOR_HAND if isinstance(state, (Waiting, NoTable)) else Status.IN_HAND


def hand_result(state: State) -> HandResult | None:
    """How the last finished hand ended (None before any)."""
    return None if isinstance(state, NoTable) else state.table.last_result
