"""Which cards are trumps (主) and the single-card order, for one trump suit (or none).

Order, high to low: `BJ > SJ > 主7 > 副7 > 主2 > 副2 > trump-suit A K Q J 10 9 8 6 5 4 3`, then each
side suit `A K Q J 10 9 8 6 5 4 3` (comparable only within the led suit). Strengths are ints:
side cards are their rank (3..14), trump-suit cards 20 + rank, then 副2=40, 主2=41, 副7=42, 主7=43,
SJ=44, BJ=45; equal cards (two 副7 of different suits, identical copies) have equal strength.
"""

from __future__ import annotations

from engine.core.messages import value
from engine.daqi.cards import BIG_JOKER_ID, KINDS, SMALL_JOKER_ID, SUITS

TRUMP = 4
"""The follow suit of every trump: all trumps form one suit for following and tractors."""

SIDE_TWO, TRUMP_TWO, SIDE_SEVEN, TRUMP_SEVEN, SMALL_JOKER, BIG_JOKER = 40, 41, 42, 43, 44, 45
_TRUMP_SUIT_BASE = 20


def _tables(trump_suit: int | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    strength = []
    follow = []
    for kind in range(KINDS):
        if kind == SMALL_JOKER_ID:
            strength.append(SMALL_JOKER)
            follow.append(TRUMP)
            continue
        if kind == BIG_JOKER_ID:
            strength.append(BIG_JOKER)
            follow.append(TRUMP)
            continue
        suit, rank = divmod(kind, 13)
        rank += 2
        own = suit == trump_suit
        if rank == 7:
            strength.append(TRUMP_SEVEN if own else SIDE_SEVEN)
        elif rank == 2:
            strength.append(TRUMP_TWO if own else SIDE_TWO)
        elif own:
            strength.append(_TRUMP_SUIT_BASE + rank)
        else:
            strength.append(rank)
        follow.append(TRUMP if own or rank in (2, 7) else suit)
    return tuple(strength), tuple(follow)


_TABLES = {suit: _tables(suit) for suit in (*SUITS, None)}


@value("daqi.Trumps")
class Trumps:
    """The hand's trumps: the 常主 (jokers, 7s, 2s) and every card of `trump_suit` (None: no
    trump suit, when a joker decided it)."""

    trump_suit: int | None

    def __post_init__(self) -> None:
        if self.trump_suit not in _TABLES:
            raise ValueError(f"trump suit must be 0..3 or None, got {self.trump_suit!r}")

    def is_trump(self, card: int) -> bool:
        return _TABLES[self.trump_suit][1][card] == TRUMP

    def follow_suit(self, card: int) -> int:
        """TRUMP for every trump, else the card's suit (SPADES..DIAMONDS)."""
        return _TABLES[self.trump_suit][1][card]

    def strength(self, card: int) -> int:
        """The card's place in the single-card order: higher wins, equal cards are equal."""
        return _TABLES[self.trump_suit][0][card]

    @property
    def strengths(self) -> tuple[int, ...]:
        """`strength` of every kind, indexed by card id (for hot loops)."""
        return _TABLES[self.trump_suit][0]

    @property
    def follow_suits(self) -> tuple[int, ...]:
        """`follow_suit` of every kind, indexed by card id (for hot loops)."""
        return _TABLES[self.trump_suit][1]

    def sort_key(self, card: int) -> tuple[int, int, int]:
        """Display order: trumps first, then ♠ ♥ ♣ ♦; strongest first within each."""
        strength, follow = _TABLES[self.trump_suit]
        return (-1 if follow[card] == TRUMP else follow[card], -strength[card], card)
