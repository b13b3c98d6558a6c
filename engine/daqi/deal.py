"""The deal: deck order, who receives each card, the 翻牌, and checks of a scripted (fixed) deal.

Card `i` (0..99) of the deck goes to seat `(dealer + i) % 5`; cards 100..107 are the bottom. The
翻牌's position is `sha256(deck order) mod 100`, so the public commitment to the deck order also
commits to which card is turned up. The first hand's dealing seat is drawn from the hand's seed.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

from engine.core.shuffle import commitment, derived_rng, seeded_shuffle
from engine.daqi.cards import DECK, Card
from engine.daqi.commands import FixedDeal
from engine.daqi.events import HandStarted
from engine.daqi.state import DEALT, SEATS


def receiver(dealer: int, index: int) -> int:
    """The seat that receives card number `index` of the deal."""
    return (dealer + index) % SEATS


def flip_index(deck: Sequence[Card]) -> int:
    """The position (0..99) of the face-up 翻牌, fixed by the deck order itself."""
    digest = hashlib.sha256(" ".join(map(str, deck)).encode()).digest()
    return int.from_bytes(digest[:8], "big") % DEALT


def first_dealer(seed: bytes) -> int:
    """The first hand's dealing seat: random, from the hand's seed."""
    return derived_rng(seed, "daqi-first-dealer").randrange(SEATS)


def shuffled_hand(number: int, dealer: int | None, seed: bytes, salt: bytes) -> HandStarted:
    """The HandStarted event of a shuffled hand (`dealer` None: draw it from the seed)."""
    deck = seeded_shuffle(DECK, seed)
    return HandStarted(
        number=number,
        dealer=first_dealer(seed) if dealer is None else dealer,
        commitment=commitment([str(c) for c in deck], salt),
        deck=deck,
        flip_index=flip_index(deck),
        seed=seed,
        salt=salt,
    )


def fixed_hand(number: int, cmd: FixedDeal) -> HandStarted:
    """The HandStarted event of a scripted deal."""
    return HandStarted(
        number=number,
        dealer=cmd.dealer,
        commitment=commitment([str(c) for c in cmd.deck], cmd.salt),
        deck=cmd.deck,
        flip_index=cmd.flip_index,
        seed=None,
        salt=cmd.salt,
    )


def check_fixed_deck(deck: Sequence[Card], flip: int, dealer: int) -> None:
    """ValueError unless `deck` is the 108 cards, `flip` a dealt position and `dealer` a seat."""
    if len(deck) != len(DECK) or Counter(deck) != Counter(DECK):
        missing = Counter(DECK) - Counter(deck)
        extra = Counter(deck) - Counter(DECK)
        raise ValueError(
            "the deal must use the 108 cards of two decks exactly once each"
            f" (missing: {' '.join(map(str, sorted(missing.elements()))) or 'none'};"
            f" too many: {' '.join(map(str, sorted(extra.elements()))) or 'none'})"
        )
    if not 0 <= flip < DEALT:
        raise ValueError(f"the 翻牌 must be one of the 100 dealt cards, got position {flip}")
    if not 0 <= dealer < SEATS:
        raise ValueError(f"'dealer' must be a seat 0..4, got {dealer}")
