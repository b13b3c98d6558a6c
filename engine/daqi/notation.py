"""Commands and deals in their human form (scenario files, the terminal client).

A command: `{"action": "deal_next"}`, `{"seat": 1, "action": "bid", "cards": "♥7 ♥7"}`,
`{"seat": 0, "action": "bury", "cards": "..."}`, `{"seat": 0, "action": "play", "cards": "♠A ♠A"}`,
`{"seat": 2, "action": "pass"}`. A deal: docs/scenarios/daqi.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.daqi.cards import parse_cards
from engine.daqi.commands import Bid, Bury, Command, DealNext, FixedDeal, Pass, PlayCards
from engine.daqi.deal import check_fixed_deck, receiver
from engine.daqi.state import BOTTOM_SIZE, DEALT, HAND_SIZE, SEATS

_WITH_CARDS: dict[str, type[Bid | Bury | PlayCards]] = {"bid": Bid, "bury": Bury, "play": PlayCards}
_ACTIONS = ("deal_next", "bid", "pass", "bury", "play")


def parse_command(spec: Mapping[str, Any]) -> Command:
    """A command from its human form (above); ValueError names the bad part."""
    if not isinstance(spec, Mapping):
        raise ValueError("a command is an object with an 'action'")
    action = spec.get("action")
    if action not in _ACTIONS:
        raise ValueError(f"unknown action {action!r}; daqi actions: {', '.join(_ACTIONS)}")
    allowed = {"action"} if action == "deal_next" else {"action", "seat"}
    if action in _WITH_CARDS:
        allowed.add("cards")
    unknown = set(spec) - allowed
    if unknown:
        raise ValueError(f"action {action!r} takes no {', '.join(sorted(unknown))}")
    if action == "deal_next":
        return DealNext()
    seat = spec.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEATS:
        raise ValueError(f"action {action!r} needs a 'seat' 0..4, got {seat!r}")
    if action == "pass":
        return Pass(seat)
    text = spec.get("cards")
    if not isinstance(text, str):
        raise ValueError(f"action {action!r} needs 'cards' as text, e.g. \"♠A ♠A\"")
    return _WITH_CARDS[action](seat, parse_cards(text))


def fixed_deal(deal: Mapping[str, Any], salt: bytes) -> FixedDeal:
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
    return FixedDeal(deck=deck, flip_index=flip_at, dealer=dealer, salt=salt)
