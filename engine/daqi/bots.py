"""Bots for 打七, with the contract's signature `bot(view, legal_actions, rng) -> command | None`.

While the cards are dealt, bidding is optional: the driver offers a seat its possible bids and a
bot returns None to let the deal go on. Also the safe burial and the timeout plays (托管) that
`deadline` offers.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Any

from engine.daqi.bidding import bid_rank, bid_suit
from engine.daqi.cards import CARDS, Card
from engine.daqi.commands import Bid, Bury, Pass, PlayCards
from engine.daqi.follow import legal_follows, legal_leads
from engine.daqi.points import POINTS
from engine.daqi.state import BOTTOM_SIZE
from engine.daqi.trick import winning_index
from engine.daqi.trumps import TRUMP, Trumps

DEAL_BID_CHANCE = 0.1
"""How often the random bot shows a bid it could make while the cards are dealt (per card)."""


def _sorted(cards: Sequence[int]) -> tuple[Card, ...]:
    return tuple(CARDS[c] for c in sorted(cards))


# ---- burying ---------------------------------------------------------------------------------


def safe_bury(hand: Sequence[int], trumps: Trumps) -> tuple[Card, ...]:
    """8 cards a careful 庄家 buries: side cards before trumps, no points if avoidable, short
    suits first (a void lets one trump), unpaired and low cards first."""
    strength, follow = trumps.strengths, trumps.follow_suits
    counts: dict[int, int] = {}
    suit_len: dict[int, int] = {}
    for c in hand:
        counts[c] = counts.get(c, 0) + 1
        suit_len[follow[c]] = suit_len.get(follow[c], 0) + 1
    order = sorted(
        hand,
        key=lambda c: (
            follow[c] == TRUMP,
            POINTS[c] > 0,
            strength[c] >= 13,
            counts[c] == 2,
            suit_len[follow[c]],
            strength[c],
            c,
        ),
    )
    return _sorted(order[:BOTTOM_SIZE])


def burials(hand: Sequence[int], trumps: Trumps) -> list[tuple[Card, ...]]:
    """A few distinct burials covering the choices that matter (any 8 held cards are legal):
    the safe one, the 8 weakest cards, the 8 richest side cards, and the 8 lowest by id."""
    strength, follow = trumps.strengths, trumps.follow_suits
    options = [
        safe_bury(hand, trumps),
        _sorted(sorted(hand, key=lambda c: (strength[c], c))[:BOTTOM_SIZE]),
        _sorted(sorted(hand, key=lambda c: (follow[c] == TRUMP, -POINTS[c], c))[:BOTTOM_SIZE]),
        _sorted(sorted(hand)[:BOTTOM_SIZE]),
    ]
    return list(dict.fromkeys(options))


# ---- playing ---------------------------------------------------------------------------------


def _cost_table(trumps: Trumps) -> tuple[int, ...]:
    # One int per card ordering plays by (points, trumps, strength) when summed over a play:
    # a play has at most 20 trumps (< 1000) and strength below 1000.
    strength, follow = trumps.strengths, trumps.follow_suits
    return tuple(
        POINTS[c] * 1_000_000 + (follow[c] == TRUMP) * 1000 + strength[c]
        for c in range(len(strength))
    )


_COSTS = {suit: _cost_table(Trumps(suit)) for suit in (0, 1, 2, 3, None)}


def cheapest(plays: Sequence[tuple[Card, ...]], trumps: Trumps) -> tuple[Card, ...]:
    """The play that gives away least: fewest points, then fewest trumps, then weakest cards
    (the timeout default and the bots' discard)."""
    cost = _COSTS[trumps.trump_suit]
    return min(plays, key=lambda p: (sum([cost[c] for c in p]), p))


def default_lead(hand: Sequence[int], trumps: Trumps) -> tuple[Card, ...]:
    """The timeout lead: the lowest single, a side card without points if there is one."""
    return cheapest([(CARDS[c],) for c in set(hand)], trumps)


@functools.lru_cache(maxsize=64)
def follows(
    hand: tuple[Card, ...], lead: tuple[Card, ...], trumps: Trumps, options: Any
) -> tuple[tuple[Card, ...], ...]:
    """`follow.legal_follows`, remembered: the timeout default, the legal actions and the bot
    all ask for the same answers to the same trick."""
    return tuple(legal_follows(hand, lead, trumps, options))


@functools.lru_cache(maxsize=64)
def leads(hand: tuple[Card, ...], trumps: Trumps, options: Any) -> tuple[tuple[Card, ...], ...]:
    """`follow.legal_leads`, remembered (see `follows`)."""
    return tuple(legal_leads(hand, trumps, options))


def default_follow(
    hand: tuple[Card, ...], lead: tuple[Card, ...], trumps: Trumps, options: Any
) -> tuple[Card, ...]:
    """The timeout answer to `lead`: the legal play that gives away least."""
    return cheapest(follows(hand, lead, trumps, options), trumps)


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


BOTS = {"random": random_bot, "greedy": greedy_bot}
