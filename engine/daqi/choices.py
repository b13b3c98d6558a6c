"""What a seat may do now (legal_actions) and what auto-play (托管) does for it on time-out
(deadline): the table clock deals, the 庄家 buries safely, a seat passes on bids and plays the
legal play that gives away least. The bots bury and discard the same way."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from engine.core.contract import Deadline
from engine.daqi.bidding import BIDDING_KINDS, possible_bids
from engine.daqi.cards import CARDS, Card
from engine.daqi.commands import Bid, Bury, Command, DealNext, Pass, PlayCards
from engine.daqi.follow import legal_follows, legal_leads
from engine.daqi.points import POINTS
from engine.daqi.state import (
    BOTTOM_SIZE,
    SEATS,
    Burying,
    Dealing,
    FinalBids,
    Overcalling,
    Playing,
    State,
)
from engine.daqi.trumps import TRUMP, Trumps


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


@functools.lru_cache(maxsize=4096)
def _bids(hand: tuple[Card, ...], above: int) -> tuple[tuple[Card, ...], ...]:
    """possible_bids while dealing: each card dealt changes one seat's hand, and every seat's
    legal actions are asked for after it, so the others' answers repeat."""
    return tuple(possible_bids(hand, above))


def legal_actions(state: State, seat: int) -> list[Command]:
    """Every legal command of `seat`, built by structure. Two lists are representative rather
    than complete, and `decide` judges any other choice: burials (any 8 held cards are legal;
    see burials) and follows whose free cards allow more than 64 choices (follow.py)."""
    if isinstance(state, Playing):
        if seat != state.turn:
            return []
        hand = state.hands[seat]
        options = state.table.options
        if state.trick:
            plays = follows(hand, state.trick[0].cards, state.trumps, options)
        else:
            plays = leads(hand, state.trumps, options)
        return [PlayCards(seat, p) for p in plays]
    if isinstance(state, Dealing):
        # Asked for every seat on every card dealt: answer "nothing" as cheaply as possible.
        hand = state.hands[seat]
        if BIDDING_KINDS.isdisjoint(hand):
            return []
        return [Bid(seat, b) for b in _bids(hand, state.bids.best_rank)]
    if isinstance(state, FinalBids):
        if state.passed[seat]:
            return []
        bids = possible_bids(state.hands[seat], state.bids.best_rank)
        return [Pass(seat), *(Bid(seat, b) for b in bids)]
    if isinstance(state, Overcalling):
        if seat != state.turn or state.asked >= SEATS:
            return []
        bids = possible_bids(state.hands[seat], state.bids.best_rank)
        return [Pass(seat), *(Bid(seat, b) for b in bids)]
    if isinstance(state, Burying):
        if seat != state.declarer:
            return []
        return [Bury(seat, b) for b in burials(state.hands[seat], state.trumps)]
    return []


def deadline(state: State) -> Deadline | None:
    """The table clock deals; in the final window every seat that has not passed owes an
    answer (default: pass); the 庄家 owes the burial (default: the safe one); the extra
    overcall goes round (default: pass); the seat to play owes a play (default: the legal
    play that gives away least)."""
    options: Any = getattr(getattr(state, "table", None), "options", None)
    if isinstance(state, Dealing):
        return Deadline({None: DealNext()}, options.deal_interval_ms, "deal")
    if isinstance(state, FinalBids):
        defaults = {s: Pass(s) for s in range(SEATS) if not state.passed[s]}
        return Deadline(defaults, options.bid_window_ms, "final_bids")
    if isinstance(state, Burying):
        hand = state.hands[state.declarer]
        cards = safe_bury(hand, state.trumps)
        return Deadline({state.declarer: Bury(state.declarer, cards)}, options.bury_timeout_ms, "bury")
    if isinstance(state, Overcalling):
        return Deadline({state.turn: Pass(state.turn)}, options.bid_window_ms, "overcall")
    if isinstance(state, Playing):
        seat = state.turn
        hand = state.hands[seat]
        if state.trick:
            cards = default_follow(hand, state.trick[0].cards, state.trumps, options)
        else:
            cards = default_lead(hand, state.trumps)
        return Deadline({seat: PlayCards(seat, cards)}, options.play_timeout_ms, "play")
    return None


def follow_up(state: Any) -> Command | None:
    """Daqi has no step the table takes right after a move: every hidden card stays in hand
    until played, and a play answers nobody's question (docs/hidden-information.md)."""
    return None
