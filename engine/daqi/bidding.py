"""叫主 and 反主: which shown cards make a bid, how bids rank, and what a hand can still bid.

Only 7s bid. Order, low to high: any single 7 < pair ♦7 < pair ♣7 < pair ♥7 < pair ♠7 <
pair of small jokers < pair of big jokers. Equal bids do not overcall; a joker pair names no trump
suit. A standing 翻牌 (nobody bid) ranks below every bid, so any bid overcalls it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.daqi.cards import (
    BIG_JOKER_ID,
    CARDS,
    CLUBS,
    DIAMONDS,
    HEARTS,
    SMALL_JOKER_ID,
    SPADES,
    SUITS,
    Card,
)

NO_BID = 0
SINGLE_SEVEN = 1
_PAIR_RANK = {DIAMONDS: 2, CLUBS: 3, HEARTS: 4, SPADES: 5}
SMALL_JOKER_PAIR = 6
BIG_JOKER_PAIR = 7

SEVENS = tuple(CARDS[suit * 13 + 5] for suit in SUITS)
"""The four 7s, indexed by suit."""
BIDDING_KINDS = frozenset((*SEVENS, CARDS[SMALL_JOKER_ID], CARDS[BIG_JOKER_ID]))
"""Every card that can take part in a bid."""


def bid_rank(cards: Sequence[int]) -> int | None:
    """The bid's place in the overcall order (1 = single 7 ... 7 = big joker pair), or None when
    the cards are not a bid."""
    if len(cards) == 1:
        card = cards[0]
        return SINGLE_SEVEN if card < SMALL_JOKER_ID and card % 13 == 5 else None
    if len(cards) != 2 or cards[0] != cards[1]:
        return None
    card = cards[0]
    if card == SMALL_JOKER_ID:
        return SMALL_JOKER_PAIR
    if card == BIG_JOKER_ID:
        return BIG_JOKER_PAIR
    if card % 13 == 5:
        return _PAIR_RANK[card // 13]
    return None


def bid_suit(cards: Sequence[int]) -> int | None:
    """The trump suit a (valid) bid names: the 7's suit, None for a joker pair."""
    card = cards[0]
    return None if card >= SMALL_JOKER_ID else card // 13


def possible_bids(held: Iterable[int], above: int) -> list[tuple[Card, ...]]:
    """Every bid that `held` cards can show and that ranks strictly above `above`, lowest first."""
    counts: dict[int, int] = {}
    for card in held:
        if card in BIDDING_KINDS:
            counts[card] = counts.get(card, 0) + 1
    bids: list[tuple[int, tuple[Card, ...]]] = []
    for card, n in counts.items():
        if above < SINGLE_SEVEN and card < SMALL_JOKER_ID:
            bids.append((SINGLE_SEVEN, (CARDS[card],)))
        if n == 2:
            rank = bid_rank((card, card))
            if rank is not None and rank > above:
                bids.append((rank, (CARDS[card], CARDS[card])))
    bids.sort()
    return [cards for _, cards in bids]
