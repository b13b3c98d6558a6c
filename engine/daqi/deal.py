"""The deal: deck order, who receives each card, the 翻牌, and scripted (fixed) deals.

Card `i` (0..99) of the deck goes to seat `(dealer + i) % 5`; cards 100..107 are the bottom. The
翻牌's position is `sha256(deck order) mod 100`, so the public commitment to the deck order also
commits to which card is turned up. The first hand's dealing seat is drawn from the hand's seed.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.shuffle import commitment, derived_rng, seeded_shuffle
from engine.daqi.cards import DECK, Card, parse_cards
from engine.daqi.commands import DealFixedHand
from engine.daqi.events import HandStarted
from engine.daqi.phases import BOTTOM_SIZE, DEALT, HAND_SIZE, SEATS


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


def fixed_hand(number: int, cmd: DealFixedHand) -> HandStarted:
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


def fixed_deal(deal: Mapping[str, Any], salt: bytes) -> DealFixedHand:
    """The command dealing a scenario's `deal` (format: docs/scenarios/daqi.md):
    `{"dealer": 0, "hands": ["20 cards in the order seat 0 receives them", ...5],
    "bottom": "8 cards", "flip": {"seat": 2, "card": 5}}` — the 翻牌 is the 6th card seat 2
    receives (0-based)."""
    if not isinstance(deal, Mapping):
        raise ValueError("a daqi deal is an object with 'dealer', 'hands', 'bottom' and 'flip'")
    unknown = set(deal) - {"dealer", "hands", "bottom", "flip"}
    if unknown:
        raise ValueError(
            f"unknown deal key(s) {sorted(unknown)}; allowed: dealer, hands, bottom, flip"
        )
    dealer = deal.get("dealer", 0)
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < SEATS:
        raise ValueError(f"'dealer' must be a seat 0..4, got {dealer!r}")
    hands_text = deal.get("hands")
    if not isinstance(hands_text, list) or len(hands_text) != SEATS:
        raise ValueError("'hands' must list the 5 seats' cards, seat 0 first")
    hands = []
    for seat, text in enumerate(hands_text):
        if not isinstance(text, str):
            raise ValueError(f"'hands'[{seat}] must be card text like \"♠A ♠A ♥10\"")
        cards = parse_cards(text)
        if len(cards) != HAND_SIZE:
            raise ValueError(f"'hands'[{seat}] has {len(cards)} cards; each seat receives 20")
        hands.append(cards)
    bottom_text = deal.get("bottom")
    bottom = parse_cards(bottom_text) if isinstance(bottom_text, str) else ()
    if len(bottom) != BOTTOM_SIZE:
        raise ValueError("'bottom' must be the 8 bottom cards as text")
    flip = deal.get("flip")
    if not isinstance(flip, Mapping) or set(flip) != {"seat", "card"}:
        raise ValueError(
            "'flip' must be {\"seat\": s, \"card\": n}: the n-th card (0-based) seat s receives"
        )
    seat, nth = flip["seat"], flip["card"]
    seat_ok = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS
    if not seat_ok or not isinstance(nth, int) or not 0 <= nth < HAND_SIZE:
        raise ValueError(f"'flip' needs a seat 0..4 and a card 0..19, got {dict(flip)!r}")
    deck = tuple(hands[receiver(dealer, i)][i // SEATS] for i in range(DEALT)) + bottom
    flip_at = nth * SEATS + (seat - dealer) % SEATS
    check_fixed_deck(deck, flip_at, dealer)
    return DealFixedHand(deck=deck, flip_index=flip_at, dealer=dealer, salt=salt)
