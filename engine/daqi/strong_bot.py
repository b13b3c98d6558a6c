"""打七's strong bot: careful bidding, the safe burial, and card play that reads the partnership.

Bidding: it shows a 7 only for a hand that can carry the 庄家's side, most of it trumps and the
top trumps among them (jokers, 7s, 2s), since a 庄家 plays one or two against three or four.
Partners (找朋友): once the friend card is played the sides are known; before that a seat that
holds the friend card knows it is the friend, and any other seat but the 庄家 counts everyone
except the 庄家 as a likely ally. Card play: it adds its points to a trick an ally is sure to
keep (nobody after it is an opponent, or it plays last), takes a trick worth points when it can
(high when opponents still play), and otherwise gives away as little as it can.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.daqi.bidding import bid_rank, bid_suit
from engine.daqi.cards import KINDS, Card
from engine.daqi.choices import cheapest, safe_bury
from engine.daqi.commands import Bid, Bury, Pass, PlayCards
from engine.daqi.points import POINTS
from engine.daqi.state import SEATS
from engine.daqi.trick import winning_index
from engine.daqi.trumps import TRUMP, Trumps

LATE_BID_CARDS = 18
"""A hand is judged for a bid only once it holds this many cards: a few cards say little."""

TOP_TRUMP_STRENGTH = 40
"""Strength from which a trump counts as a top one (the 2s, the 7s and the jokers: above the trump suit's ace)."""


def hand_strength(hand: Sequence[int], suit: int | None) -> tuple[float, int]:
    """(share of trumps, top trumps) of `hand` were `suit` the trump suit."""
    trumps = Trumps(suit)
    follow, strength = trumps.follow_suits, trumps.strengths
    n = sum(follow[c] == TRUMP for c in hand)
    top = sum(follow[c] == TRUMP and strength[c] >= TOP_TRUMP_STRENGTH for c in hand)
    return (n / len(hand) if hand else 0.0), top


def choose_bid(hand: Sequence[int], bids: Sequence[Bid]) -> Bid | None:
    """The highest bid that leaves a hand able to carry the 庄家's side (module docstring)."""
    if len(hand) < LATE_BID_CARDS:
        return None
    for bid in sorted(bids, key=lambda b: bid_rank(b.cards) or 0, reverse=True):
        share, top = hand_strength(hand, bid_suit(bid.cards))
        alone = len(bid.cards) == 2  # a pair bid plays 1 vs 4
        if share >= (0.55 if alone else 0.5) and top >= len(hand) // 4:
            return bid
    return None


def allies(view: Any) -> frozenset[int]:
    """The seats on this seat's side, as far as it can tell (module docstring)."""
    me, declarer, friend = view.seat, view.declarer, view.friend
    everyone = frozenset(range(SEATS))
    if declarer is None:
        return frozenset({me})
    if friend is not None:
        side = frozenset({declarer, friend})
        return side if me in side else everyone - side
    if me == declarer:
        return frozenset({me})
    if view.friend_card is not None and view.friend_card in view.hand:
        return frozenset({me, declarer})
    return everyone - {declarer}


def strong_bot(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """See the module docstring."""
    if not legal:
        return None
    first = legal[0]
    if isinstance(first, Bid | Pass):
        chosen = choose_bid(view.hand, [a for a in legal if isinstance(a, Bid)])
        if chosen is not None:
            return chosen
        return next((a for a in legal if isinstance(a, Pass)), None)
    if isinstance(first, Bury):
        return Bury(first.seat, safe_bury(view.hand, view.trumps))
    if isinstance(first, PlayCards):
        plays = [a.cards for a in legal]
        cards = follow(view, plays) if view.trick else lead(view, plays)
        return PlayCards(first.seat, cards)
    return None


def seen(view: Any) -> list[int]:
    """Copies of each card kind this seat has seen: its hand, the tricks played, its bottom."""
    out = [0] * KINDS
    for c in view.hand:
        out[c] += 1
    for group in (view.played, view.trick):
        for sc in group:
            for c in sc.cards:
                out[c] += 1
    for c in view.bottom or ():
        out[c] += 1
    return out


def stands(play: Sequence[int], trumps: Trumps, counts: Sequence[int]) -> bool:
    """Whether a side-suit lead cannot be beaten in its suit: no higher card of the suit is
    unseen (for a pair: no higher kind has both copies unseen). It may still be trumped."""
    strength, follow_suit = trumps.strengths, trumps.follow_suits
    suit = follow_suit[play[0]]
    if suit == TRUMP:
        return False
    top = max(strength[c] for c in play)
    need = 1 if len(play) == 1 else 2
    return not any(
        follow_suit[k] == suit and strength[k] > top and 2 - counts[k] >= need for k in range(KINDS)
    )


def lead(view: Any, plays: Sequence[tuple[Card, ...]]) -> tuple[Card, ...]:
    """A side-suit lead nobody can beat in its suit, the richest first; else long side
    combinations topped by an ace or a king, which tend to stand; else the cheapest."""
    trumps = view.trumps
    strength, follow_suit = trumps.strengths, trumps.follow_suits
    counts = seen(view)
    sure = [p for p in plays if stands(p, trumps, counts)]
    if sure:
        return max(sure, key=lambda p: (len(p), sum(POINTS[c] for c in p), p))
    strong = [p for p in plays if follow_suit[p[0]] != TRUMP and max(strength[c] for c in p) >= 13]
    if strong:
        return max(strong, key=lambda p: (len(p), max(strength[c] for c in p), p))
    return cheapest(plays, trumps)


def follow(view: Any, plays: Sequence[tuple[Card, ...]]) -> tuple[Card, ...]:
    """Points to a trick an ally keeps; a trick worth taking taken; else the cheapest play."""
    trumps, options = view.trumps, view.options
    so_far = [t.cards for t in view.trick]
    me = len(so_far)
    side = allies(view)
    after = [(view.seat + k) % SEATS for k in range(1, SEATS - me)]
    leading = view.trick[winning_index(so_far, trumps, options)].seat
    at_stake = sum(POINTS[c] for p in so_far for c in p)
    if leading in side and all(s in side for s in after):
        return max(plays, key=lambda p: (sum(POINTS[c] for c in p), [-c for c in p]))
    winners = [p for p in plays if winning_index([*so_far, p], trumps, options) == me]
    if winners and (at_stake or not after or any(POINTS[c] for p in winners for c in p)):
        if all(s in side for s in after):
            return cheapest(winners, trumps)
        strength = trumps.strengths
        return max(winners, key=lambda p: (sum(strength[c] for c in p), p))
    return cheapest(plays, trumps)
