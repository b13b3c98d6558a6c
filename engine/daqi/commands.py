"""The orders a 打七 table accepts, and their human form for scenario files and terminals.

`StartHand` (engine.core) deals a shuffled hand; `DealFixedHand` deals a scripted one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.messages import command
from engine.daqi.cards import Card, parse_cards


@command("daqi.DealFixedHand")
class DealFixedHand:
    """Deal `deck` (108 cards: the 100 dealt in order, then the bottom) from `dealer`, the card
    at `flip_index` (0..99) face up. Scenario files and tests; the service shuffles."""

    deck: tuple[Card, ...]
    flip_index: int
    dealer: int
    salt: bytes


@command("daqi.DealNext")
class DealNext:
    """The table clock deals the next card (every `deal_interval_ms`)."""


@command("daqi.Bid")
class Bid:
    """Show a single 7, a pair of 7s or a joker pair to bid (叫主) or overcall (反主)."""

    seat: int
    cards: tuple[Card, ...]


@command("daqi.Pass")
class Pass:
    """Decline to bid: in the final window after the deal, or in the one overcall after burying."""

    seat: int


@command("daqi.Bury")
class Bury:
    """The 庄家 buries 8 cards face down (埋底)."""

    seat: int
    cards: tuple[Card, ...]


@command("daqi.PlayCards")
class PlayCards:
    """Lead or follow in the current trick."""

    seat: int
    cards: tuple[Card, ...]


_WITH_CARDS = {"bid": Bid, "bury": Bury, "play": PlayCards}
_ACTIONS = ("deal_next", "bid", "pass", "bury", "play")


def parse_command(spec: Mapping[str, Any]) -> Any:
    """A command from its human form: `{"action": "deal_next"}`, `{"seat": 1, "action": "bid",
    "cards": "♥7 ♥7"}`, `{"seat": 0, "action": "bury", "cards": "..."}`, `{"seat": 0, "action":
    "play", "cards": "♠A ♠A"}`, `{"seat": 2, "action": "pass"}`. Raises ValueError naming the
    bad part."""
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
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 5:
        raise ValueError(f"action {action!r} needs a 'seat' 0..4, got {seat!r}")
    if action == "pass":
        return Pass(seat)
    text = spec.get("cards")
    if not isinstance(text, str):
        raise ValueError(f"action {action!r} needs 'cards' as text, e.g. \"♠A ♠A\"")
    return _WITH_CARDS[action](seat, parse_cards(text))
