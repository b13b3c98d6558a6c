"""Bots for 打七, with the contract's signature `bot(view, legal_actions, rng) -> command | None`.

While the cards are dealt, bidding is optional: the driver offers a seat its possible bids and a
bot returns None to let the deal go on. They bury and discard as auto-play does (choices.py).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.bots.levels import easy
from engine.daqi.bidding import bid_rank, bid_suit
from engine.daqi.cards import Card
from engine.daqi.choices import cheapest, safe_bury
from engine.daqi.commands import Bid, Bury, Pass, PlayCards
from engine.daqi.points import POINTS
from engine.daqi.strong_bot import strong_bot
from engine.daqi.trick import winning_index
from engine.daqi.trumps import TRUMP, Trumps

DEAL_BID_CHANCE = 0.1
"""How often the random bot shows a bid it could make while the cards are dealt (per card)."""


# ---- bidding ---------------------------------------------------------------------------------


def trump_share(hand: Sequence[int], suit: int | None) -> float:
    """The share of `hand` that would be trumps with `suit` as trump suit."""
    if not hand:
        return 0.0
    follow = Trumps(suit).follow_suits
    return sum(follow[c] == TRUMP for c in hand) / len(hand)


def _strong_bid(hand: Sequence[int], bids: Sequence[Bid]) -> Bid | None:
    """The highest bid whose trump suit would leave `hand` strong (about 2 cards in 5 trumps);
    a pair bid, which plays 1 vs 4, wants a little more."""
    if len(hand) < 8:
        return None
    for bid in sorted(bids, key=lambda b: bid_rank(b.cards) or 0, reverse=True):
        need = 0.45 if len(bid.cards) == 2 else 0.38
        if trump_share(hand, bid_suit(bid.cards)) >= need:
            return bid
    return None


def _bid_or_pass(view: Any, legal: Sequence[Any]) -> Any:
    bids = [a for a in legal if isinstance(a, Bid)]
    chosen = _strong_bid(view.hand, bids)
    if chosen is not None:
        return chosen
    for a in legal:
        if isinstance(a, Pass):
            return a
    return None


# ---- bots ------------------------------------------------------------------------------------


def random_bot(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """Any legal command; while dealing, it shows a possible bid now and then."""
    if not legal:
        return None
    if view.phase == "dealing" and rng.random() >= DEAL_BID_CHANCE:
        return None
    return rng.choice(legal)


def greedy_bot(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """Bids with strong 7s, buries safely, takes a trick cheaply when it holds points, else
    gives away as little as it can; leads its strongest side combinations."""
    if not legal:
        return None
    first = legal[0]
    if isinstance(first, Bid | Pass):
        return _bid_or_pass(view, legal)
    if isinstance(first, Bury):
        return Bury(first.seat, safe_bury(view.hand, view.trumps))
    if isinstance(first, PlayCards):
        plays = [a.cards for a in legal]
        if view.trick:
            cards = _follow(view, plays)
        else:
            cards = _lead(view, plays)
        return PlayCards(first.seat, cards)
    return rng.choice(legal)


def _lead(view: Any, plays: Sequence[tuple[Card, ...]]) -> tuple[Card, ...]:
    trumps = view.trumps
    strength, follow = trumps.strengths, trumps.follow_suits
    # Long side combinations topped by an ace (or a K) tend to stand; otherwise lead low.
    strong = [
        p for p in plays if follow[p[0]] != TRUMP and max(strength[c] for c in p) >= 13
    ]
    if strong:
        return max(strong, key=lambda p: (len(p), max(strength[c] for c in p), p))
    return cheapest(plays, trumps)


def _partner_winning(view: Any, winner_seat: int) -> bool:
    """Whether the trick's current winner is surely on this seat's side (a revealed friend and
    the 庄家; before the reveal nobody is sure of anyone)."""
    me, declarer, friend = view.seat, view.declarer, view.friend
    if friend is None or winner_seat == me:
        return False
    return {me, winner_seat} == {declarer, friend}


def _follow(view: Any, plays: Sequence[tuple[Card, ...]]) -> tuple[Card, ...]:
    trumps, options = view.trumps, view.options
    so_far = [t.cards for t in view.trick]
    at_stake = sum(POINTS[c] for p in so_far for c in p)
    last_to_play = len(so_far) == 4
    leading = view.trick[winning_index(so_far, trumps, options)].seat
    if _partner_winning(view, leading):
        if last_to_play:  # the trick is ours: add points to it
            return max(plays, key=lambda p: (sum(POINTS[c] for c in p), [-c for c in p]))
        return cheapest(plays, trumps)
    if at_stake or last_to_play:
        me = len(so_far)
        winners = [p for p in plays if winning_index([*so_far, p], trumps, options) == me]
        if winners and (at_stake or any(POINTS[c] for p in winners for c in p)):
            if last_to_play:
                return cheapest(winners, trumps)
            # Others still play: take it high so that it holds.
            strength = trumps.strengths
            return max(winners, key=lambda p: (sum(strength[c] for c in p), p))
    return cheapest(plays, trumps)


BOTS = {"random": random_bot, "greedy": greedy_bot, "easy": easy, "normal": greedy_bot, "strong": strong_bot}
