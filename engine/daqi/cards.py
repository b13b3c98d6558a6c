"""Cards of two 54-card decks and their compact notation ("♠A ♠A ♥10 SJ BJ").

A card is its kind id: `suit * 13 + (rank - 2)` for the four suits and ranks 2..14 (J=11 Q=12
K=13 A=14), 52 for the small joker and 53 for the big joker. Both copies of a kind are the same
value, so hands are multisets of ints and equal hands compare equal.

The ASCII form writes suits as S H C D (for terminals). "SJ" is always the small joker, so the
♠ jack is written "S11" in ASCII; every face card may also be written by its number (J=11 ... A=14).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.core.messages import scalar

SPADES, HEARTS, CLUBS, DIAMONDS = 0, 1, 2, 3
SUITS = (SPADES, HEARTS, CLUBS, DIAMONDS)
SUIT_SYMBOLS = ("♠", "♥", "♣", "♦")
SUIT_LETTERS = ("S", "H", "C", "D")
SMALL_JOKER_ID = 52
BIG_JOKER_ID = 53
KINDS = 54

_RANK_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
_RANKS_BY_NAME = {"J": 11, "Q": 12, "K": 13, "A": 14, "T": 10}
_SUITS_BY_NAME = {
    "♠": SPADES, "♤": SPADES, "S": SPADES,
    "♥": HEARTS, "♡": HEARTS, "H": HEARTS,
    "♣": CLUBS, "♧": CLUBS, "C": CLUBS,
    "♦": DIAMONDS, "♢": DIAMONDS, "D": DIAMONDS,
}


class CardNotationError(ValueError):
    """Card notation that names no card; `token` is the bad token, `position` its offset in the text."""

    def __init__(self, token: str, position: int, reason: str) -> None:
        super().__init__(f"bad card {token!r} at position {position}: {reason}")
        self.token = token
        self.position = position
        self.reason = reason


class Card(int):
    """One card, by kind id (0..53). `str(card)` is its notation: "♠A", "♥10", "SJ", "BJ"."""

    __slots__ = ()

    def __new__(cls, kind: int) -> Card:
        if not 0 <= kind < KINDS:
            raise ValueError(f"card kind must be 0..53, got {kind}")
        return int.__new__(cls, kind)

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card({_TEXT[self]})"

    @property
    def ascii(self) -> str:
        """The ASCII notation ("SA", "H10", "S11" for the ♠ jack, "SJ", "BJ")."""
        return _ASCII[self]


def _rank_text(rank: int) -> str:
    return _RANK_NAMES.get(rank, str(rank))


def _text(kind: int, symbols: tuple[str, ...]) -> str:
    if kind == SMALL_JOKER_ID:
        return "SJ"
    if kind == BIG_JOKER_ID:
        return "BJ"
    suit, rank = divmod(kind, 13)
    return symbols[suit] + _rank_text(rank + 2)


def _ascii_text(kind: int) -> str:
    # "SJ" is taken by the small joker.
    return "S11" if kind == SPADES * 13 + 11 - 2 else _text(kind, SUIT_LETTERS)


_TEXT = tuple(_text(k, SUIT_SYMBOLS) for k in range(KINDS))
_ASCII = tuple(_ascii_text(k) for k in range(KINDS))
CARDS: tuple[Card, ...] = tuple(Card(k) for k in range(KINDS))
"""One card of each kind, indexed by kind id."""

SJ = CARDS[SMALL_JOKER_ID]
BJ = CARDS[BIG_JOKER_ID]
DECK: tuple[Card, ...] = tuple(sorted(CARDS * 2))
"""The 108 cards of two decks, sorted by kind."""


def card_of(suit: int, rank: int) -> Card:
    """The card of `suit` (SPADES..DIAMONDS) and `rank` (2..14)."""
    if suit not in SUITS or not 2 <= rank <= 14:
        raise ValueError(f"no card of suit {suit} and rank {rank}")
    return CARDS[suit * 13 + rank - 2]


def is_joker(card: int) -> bool:
    return card >= SMALL_JOKER_ID


def suit_of(card: int) -> int | None:
    """SPADES..DIAMONDS, or None for a joker."""
    return None if card >= SMALL_JOKER_ID else card // 13


def rank_of(card: int) -> int | None:
    """2..14 (J=11 Q=12 K=13 A=14), or None for a joker."""
    return None if card >= SMALL_JOKER_ID else card % 13 + 2


def _parse_token(token: str, position: int) -> Card:
    upper = token.upper()
    if upper == "SJ":
        return SJ
    if upper == "BJ":
        return BJ
    suit = _SUITS_BY_NAME.get(upper[:1])
    if suit is None:
        raise CardNotationError(
            token, position, "a card starts with a suit (♠ ♥ ♣ ♦ or S H C D), or is SJ / BJ"
        )
    rank_text = upper[1:]
    rank = _RANKS_BY_NAME.get(rank_text)
    if rank is None and rank_text.isdigit():
        rank = int(rank_text)
    if rank is None or not 2 <= rank <= 14:
        raise CardNotationError(token, position, f"unknown rank {token[1:]!r} (use 2..10 J Q K A)")
    return CARDS[suit * 13 + rank - 2]


def parse_card(text: str) -> Card:
    """One card from its notation: "♠A", "♥10", "SJ", "BJ" or ASCII "SA", "H10", "S11"."""
    token = text.strip()
    if not token or _SEPARATORS.search(token):
        raise CardNotationError(text, 0, "expected exactly one card")
    return _parse_token(token, text.index(token))


_TOKENS = re.compile(r"[^\s,]+")
_SEPARATORS = re.compile(r"[\s,]")


def parse_cards(text: str) -> tuple[Card, ...]:
    """Cards separated by spaces or commas, in the order written: "♠A ♠A ♥10 SJ BJ"."""
    return tuple(_parse_token(m.group(), m.start()) for m in _TOKENS.finditer(text))


def format_cards(cards: Iterable[int]) -> str:
    """The cards' notation, space-separated, in the given order."""
    return " ".join(_TEXT[c] for c in cards)


def ascii_cards(cards: Iterable[int]) -> str:
    """The cards' ASCII notation, space-separated, in the given order (parse_cards reads it back)."""
    return " ".join(_ASCII[c] for c in cards)


scalar(Card, str, parse_card)
