"""What one seat may see: its own hand, everything played, the shown bids and the 翻牌; the bottom
only as the 庄家 who buried it; the friend only once revealed. Never another seat's unplayed
card, the deck, the seed or the salt before the hand's end reveals them."""

from __future__ import annotations

from typing import Any

from engine.core.frozen import replace
from engine.core.memo import ByIdentity
from engine.core.messages import value
from engine.daqi.cards import Card
from engine.daqi.events import (
    BottomBuried,
    BottomTaken,
    CardDealt,
    Event,
    HandEnded,
    HandStarted,
    PlayStarted,
)
from engine.daqi.friend import friend_card
from engine.daqi.options import Options
from engine.daqi.state import (
    DEALT,
    SEATS,
    Burying,
    Dealing,
    FinalBids,
    NoTable,
    Overcalling,
    Playing,
    SeatCards,
    State,
    Waiting,
)
from engine.daqi.trumps import Trumps

PHASES = {
    NoTable: "no_table",
    Waiting: "waiting",
    Dealing: "dealing",
    FinalBids: "final_bids",
    Burying: "burying",
    Overcalling: "overcalling",
    Playing: "playing",
}


@value("daqi.View")
class View:
    """One seat's picture of the table (seat None: a spectator, who sees no hand). While the
    cards are dealt `hand` is in the order received; from the final window on it is sorted."""

    seat: int | None
    phase: str
    options: Options | None
    scores: tuple[int, ...]
    hand_number: int = 0
    hand: tuple[Card, ...] = ()
    hand_sizes: tuple[int, ...] = (0,) * SEATS
    dealer: int | None = None
    dealt: int = 0
    flip: SeatCards | None = None
    bids: tuple[SeatCards, ...] = ()
    best_bid: SeatCards | None = None
    passed: tuple[bool, ...] = (False,) * SEATS
    declarer: int | None = None
    trumps: Trumps | None = None
    friend_card: Card | None = None
    friend: int | None = None
    bottom: tuple[Card, ...] | None = None
    turn: int | None = None
    trick: tuple[SeatCards, ...] = ()
    played: tuple[SeatCards, ...] = ()
    tricks_done: int = 0
    won: tuple[int, ...] = (0,) * SEATS
    last_hand: HandEnded | None = None


def view(state: State, seat: int | None) -> View:
    """The table as `seat` sees it."""
    phase = PHASES[type(state)]
    if isinstance(state, NoTable):
        return View(seat, phase, None, (0,) * SEATS)
    table = state.table
    if isinstance(state, Waiting):
        return View(
            seat, phase, table.options, table.scores, table.hands_played, last_hand=table.last
        )
    deal = state.deal
    hands = state.hands
    dealt = state.dealt if isinstance(state, Dealing) else DEALT
    fields: dict[str, Any] = {
        "hand": hands[seat] if seat is not None else (),
        "hand_sizes": tuple(len(h) for h in hands),
        "dealer": deal.dealer,
        "dealt": dealt,
        "flip": SeatCards(deal.flip_seat, (deal.flip_card,)) if dealt > deal.flip_index else None,
        "bids": state.bids.shown,
        "best_bid": state.bids.best,
    }
    if isinstance(state, FinalBids):
        fields["passed"] = state.passed
    elif not isinstance(state, Dealing):
        fields["declarer"] = state.declarer
        fields["trumps"] = state.trumps
        fields["friend_card"] = friend_card(state.trumps.trump_suit)
        if not isinstance(state, Burying):
            fields["bottom"] = state.bottom if seat == state.declarer else None
            fields["turn"] = state.turn
        if isinstance(state, Playing):
            fields["friend"] = state.partnership.friend if state.revealed else None
            fields["trick"] = state.trick
            fields["played"] = state.played
            fields["tricks_done"] = state.tricks_done
            fields["won"] = state.won
    return View(
        seat, phase, table.options, table.scores, deal.number, last_hand=table.last, **fields
    )


# Another seat's dealt card, hidden once per card for every seat it is hidden from (each card
# is redacted for every seat for its numbering and again for its stream).
_HIDDEN_CARDS = ByIdentity(1024)


def _hidden_card(ev: CardDealt) -> CardDealt:
    return replace(ev, card=None)


def redact(ev: Event, seat: int | None) -> Event:
    """`ev` as `seat` may see it: the deck, 翻牌 position, seed and salt are blanked until the
    hand's end; dealt cards, the bottom taken and the bottom buried only reach their seat; the
    partnership never (FriendRevealed announces the friend)."""
    if isinstance(ev, CardDealt):
        return ev if ev.face_up or ev.seat == seat else _HIDDEN_CARDS.get(ev, _hidden_card)
    if isinstance(ev, BottomTaken | BottomBuried):
        return ev if ev.seat == seat else replace(ev, cards=None)
    if isinstance(ev, HandStarted):
        return replace(ev, deck=None, flip_index=None, seed=None, salt=None)
    if isinstance(ev, PlayStarted):
        return replace(ev, partnership=None)
    return ev
