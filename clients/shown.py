"""The seat's own half of a deal check (docs/fairness.md, step 7): the tiles or cards this seat
was dealt and drew, and the pieces turned face up for everyone, must be the ones the revealed deck
order holds at the positions the ruleset deals from. Without this, a server could reveal a deck
that follows from every seed and nonce and still have shown the seat other pieces.

Positions follow the rulesets' dealing: mahjong (koudian, wuhan, jj) deals the wall's front by
`engine.mahjong.wall.deal_order`, live draws take the front in turn, replacement draws and jj's
indicator the tail, wuhan's indicator the tile after the deal; 打七 (daqi) deals card `i` to seat
`(dealer + i) % 5`, the bottom first taken is cards 100..107 (an overcaller then takes the
burial instead) and the 翻牌's place is fixed by the deck order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import rulesets
from engine import table as tables
from engine.core.contract import AnyRuleset
from engine.daqi.deal import flip_index, receiver
from engine.daqi.state import DEALT
from engine.mahjong.wall import deal_order, dealt_count

MAHJONG_SEATS = 4
BOTTOM = 8


@dataclass(frozen=True, slots=True)
class Shown:
    """Pieces the seat was shown at deck positions (negative: from the deck's end, -1 the last),
    compared as a multiset with what the revealed order holds there."""

    positions: tuple[int, ...]
    pieces: tuple[str, ...]
    what: str


@dataclass
class _Hand:
    ruleset: str = ""
    dealer: int | None = None
    front: int = 0
    back: int = 0
    shown: list[Shown] = field(default_factory=list)
    flip: int | None = None
    bottom_taken: bool = False
    deck: tuple[str, ...] | None = None
    problems: list[str] = field(default_factory=list)


class ShownPieces:
    """Follows one seat's events; `ended()` at a hand's DealRevealed gives what did not match."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.rs: AnyRuleset | None = None
        self._hand: _Hand | None = None

    def feed(self, ev: Any) -> None:
        if isinstance(ev, tables.TableCreated):
            self.rs = rulesets.get(ev.ruleset)
            return
        if isinstance(ev, tables.DealCommitted):
            self._hand = _Hand(ruleset=self.rs.name if self.rs else "")
            return
        hand = self._hand
        if hand is None or self.rs is None:
            return
        if isinstance(ev, tables.DealAbandoned):
            self._hand = None
        elif (reveal := self.rs.deck_reveal(ev)) is not None:
            hand.deck = reveal.order
        elif type(ev).__name__ == "HandStarted":
            self._started(hand, ev)
        else:
            self._shown(hand, ev)

    def ended(self) -> list[str]:
        """At the hand's DealRevealed: every piece shown that the revealed deck does not hold."""
        hand, self._hand = self._hand, None
        if hand is None or hand.deck is None:
            return []  # the deal check itself reports a missing reveal
        return hand.problems + problems_of(hand.shown, hand.deck, hand.flip if hand.ruleset == "daqi" else None)

    def _started(self, hand: _Hand, ev: Any) -> None:
        hand.dealer = ev.dealer
        if hand.ruleset == "daqi":
            return  # its cards come one by one (CardDealt)
        hand.front = dealt_count(MAHJONG_SEATS)
        dealt = ev.dealt[self.seat] if 0 <= self.seat < len(ev.dealt) else ()
        if dealt:
            positions = tuple(i for i, s in enumerate(deal_order(ev.dealer, MAHJONG_SEATS)) if s == self.seat)
            hand.shown.append(Shown(positions, tuple(map(str, dealt)), "the tiles you were dealt"))
        turned = getattr(ev, "turned", ())  # jj's indicator, turned over at the tail, last tile first
        for k, tile in enumerate(turned):
            hand.shown.append(Shown((-1 - k,), (str(tile),), "the turned-over indicator"))
        hand.back = len(turned)

    def _shown(self, hand: _Hand, ev: Any) -> None:
        name = type(ev).__name__
        if name == "TileDrawn":
            if ev.from_tail:
                position, hand.back = -1 - hand.back, hand.back + 1
            else:
                position, hand.front = hand.front, hand.front + 1
            if ev.seat == self.seat and ev.tile is not None:
                hand.shown.append(Shown((position,), (str(ev.tile),), "a tile you drew"))
        elif name == "IndicatorTurned":
            hand.shown.append(Shown((hand.front,), (str(ev.indicator),), "the indicator (翻牌)"))
            hand.front += 1
        elif name == "CardDealt" and ev.card is not None:
            if ev.face_up:
                hand.flip = ev.index
            if ev.seat == self.seat or ev.face_up:
                hand.shown.append(Shown((ev.index,), (str(ev.card),), f"card {ev.index} of the deal"))
            if ev.seat == self.seat and hand.dealer is not None and receiver(hand.dealer, ev.index) != self.seat:
                hand.problems.append(f"card {ev.index} was dealt to you but belongs to seat "
                                     f"{receiver(hand.dealer, ev.index)}")
        elif name == "BottomTaken":
            # Only the first: after a 反主 the overcaller takes the cards the declarer buried.
            if not hand.bottom_taken and ev.seat == self.seat and ev.cards is not None:
                hand.shown.append(Shown(tuple(range(DEALT, DEALT + BOTTOM)), tuple(map(str, ev.cards)),
                                        "the bottom cards you took"))
            hand.bottom_taken = True


def problems_of(shown: Sequence[Shown], deck: Sequence[str], flip: int | None = None) -> list[str]:
    """What of `shown` the deck order does not hold where it was dealt from; with `flip` (daqi),
    also whether the face-up card sits where the deck order puts it."""
    problems = []
    for s in shown:
        want = [deck[p] if -len(deck) <= p < len(deck) else "?" for p in s.positions]
        if Counter(want) != Counter(s.pieces):
            problems.append(f"{s.what}: you were shown {' '.join(s.pieces)}, the deck order gives {' '.join(want)}")
    if flip is not None and flip != flip_index(deck):  # type: ignore[arg-type]  # notation tokens hash alike
        problems.append(f"the face-up card is card {flip}, not the one the deck order fixes")
    return problems
