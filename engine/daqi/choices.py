"""What a seat may do now (legal_actions) and what auto-play (托管) does for it on time-out
(deadline): the table clock deals; the timeout plays are the careful ones of bots.py."""

from __future__ import annotations

from typing import Any

from engine.core.contract import Deadline
from engine.daqi import bots
from engine.daqi.bidding import BIDDING_KINDS, possible_bids
from engine.daqi.commands import Bid, Bury, Command, DealNext, Pass, PlayCards
from engine.daqi.state import SEATS, Burying, Dealing, FinalBids, Overcalling, Playing, State


def legal_actions(state: State, seat: int) -> list[Command]:
    """Every legal command of `seat`, built by structure. Two lists are representative rather
    than complete, and `decide` judges any other choice: burials (any 8 held cards are legal;
    see bots.burials) and follows whose free cards allow more than 64 choices (follow.py)."""
    if isinstance(state, Playing):
        if seat != state.turn:
            return []
        hand = state.hands[seat]
        options = state.table.options
        if state.trick:
            plays = bots.follows(hand, state.trick[0].cards, state.trumps, options)
        else:
            plays = bots.leads(hand, state.trumps, options)
        return [PlayCards(seat, p) for p in plays]
    if isinstance(state, Dealing):
        # Asked for every seat on every card dealt: answer "nothing" as cheaply as possible.
        hand = state.hands[seat]
        if BIDDING_KINDS.isdisjoint(hand):
            return []
        return [Bid(seat, b) for b in possible_bids(hand, state.bids.best_rank)]
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
        return [Bury(seat, b) for b in bots.burials(state.hands[seat], state.trumps)]
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
        cards = bots.safe_bury(hand, state.trumps)
        return Deadline({state.declarer: Bury(state.declarer, cards)}, options.bury_timeout_ms, "bury")
    if isinstance(state, Overcalling):
        return Deadline({state.turn: Pass(state.turn)}, options.bid_window_ms, "overcall")
    if isinstance(state, Playing):
        seat = state.turn
        hand = state.hands[seat]
        if state.trick:
            cards = bots.default_follow(hand, state.trick[0].cards, state.trumps, options)
        else:
            cards = bots.default_lead(hand, state.trumps)
        return Deadline({seat: PlayCards(seat, cards)}, options.play_timeout_ms, "play")
    return None
