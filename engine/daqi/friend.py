"""庄家的朋友: who partners the 庄家, fixed once the bottom is buried, secret until revealed.

The friend card is the 7 of the trump suit; with the bottom taken up, every card is in a hand:
- no trump suit (joker pair bid, joker 翻牌) → 1 vs 4 ("alone");
- the 庄家 holds both copies (bid with a pair, or took the other from the bottom) → 1 vs 4;
- the 庄家 holds one copy → the holder of the other copy is the friend ("holder"), 2 vs 3;
- the 庄家 holds none (only when nobody bid) → the first other player to play a trump-suit 7
  becomes the friend ("first_to_play"); the other copy then means nothing.
Holding is judged with the bottom in the 庄家's hand (before burying): burying a copy does not
make a friend of anyone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from engine.core.messages import value
from engine.daqi.bidding import SEVENS
from engine.daqi.cards import Card

Mode = Literal["alone", "holder", "first_to_play"]


@value("daqi.Partnership")
class Partnership:
    """How the 庄家方 is made up; `friend` is None until known (never in "alone")."""

    mode: Mode
    friend: int | None = None


def friend_card(trump_suit: int | None) -> Card | None:
    """The 7 of the trump suit (None without a trump suit)."""
    return None if trump_suit is None else SEVENS[trump_suit]


def partnership(
    declarer: int,
    trump_suit: int | None,
    hands: Sequence[Sequence[int]],
    bottom: Sequence[int],
) -> Partnership:
    """The partnership once `declarer` has buried `bottom`; `hands` are everyone's hands after."""
    card = friend_card(trump_suit)
    if card is None:
        return Partnership("alone")
    held = hands[declarer].count(card) + list(bottom).count(card)
    if held == 2:
        return Partnership("alone")
    if held == 1:
        for seat, hand in enumerate(hands):
            if seat != declarer and card in hand:
                return Partnership("holder", seat)
    return Partnership("first_to_play")


def reveals_friend(
    p: Partnership, declarer: int, trump_suit: int | None, seat: int, cards: Sequence[int]
) -> bool:
    """Whether `seat` playing `cards` reveals it as the friend (the play that shows the card)."""
    if p.mode == "alone" or seat == declarer:
        return False
    if p.mode == "holder" and seat != p.friend:
        return False
    return friend_card(trump_suit) in cards
