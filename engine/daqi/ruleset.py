"""The 吕梁打七 ruleset object: the engine contract (engine.core.contract.Ruleset) for `daqi`.

A daqi table never reaches MATCH_OVER: every hand is played at 7 and the 庄家 is won anew, so a
table simply deals hand after hand (scores accumulate) until the service closes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from engine.core.contract import Deadline, HandResult, Status
from engine.core.errors import RuleViolation
from engine.daqi import bots as daqi_bots
from engine.daqi.bidding import BIDDING_KINDS, possible_bids
from engine.daqi.bots import follows, leads
from engine.daqi.cards import DECK
from engine.daqi.commands import Bid, Bury, DealNext, Pass, PlayCards, parse_command
from engine.daqi.deal import fixed_deal
from engine.daqi.events import TableCreated
from engine.daqi.game import decide, evolve
from engine.daqi.options import DaqiOptions, daqi_options
from engine.daqi.phases import (
    SEATS,
    Burying,
    Dealing,
    FinalBids,
    NoTable,
    Overcalling,
    Playing,
    Waiting,
)
from engine.daqi.points import points
from engine.daqi.settlement import deltas as settle
from engine.daqi.settlement import grade
from engine.daqi.view import redact, view

TOTAL_POINTS = 200


class DaqiRuleset:
    """吕梁打七 on the engine contract."""

    name = "daqi"
    bots = daqi_bots.BOTS

    def options(self, overrides: Mapping[str, Any] | None = None) -> DaqiOptions:
        return daqi_options(overrides)

    def seats(self, options: Any) -> int:
        return SEATS

    def create(self, table_id: str, options: DaqiOptions) -> list[Any]:
        return [TableCreated(table_id, options)]

    def initial(self) -> NoTable:
        return NoTable()

    decide = staticmethod(decide)
    evolve = staticmethod(evolve)
    view = staticmethod(view)
    redact = staticmethod(redact)
    parse_command = staticmethod(parse_command)
    fixed_deal = staticmethod(fixed_deal)

    def status(self, state: Any) -> Status:
        if isinstance(state, Waiting | NoTable):
            return Status.WAITING_FOR_HAND
        return Status.IN_HAND

    def deadline(self, state: Any) -> Deadline | None:
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
            cards = daqi_bots.safe_bury(hand, state.trumps)
            return Deadline({state.declarer: Bury(state.declarer, cards)}, options.bury_timeout_ms, "bury")
        if isinstance(state, Overcalling):
            return Deadline({state.turn: Pass(state.turn)}, options.bid_window_ms, "overcall")
        if isinstance(state, Playing):
            seat = state.turn
            hand = state.hands[seat]
            if state.trick:
                cards = daqi_bots.default_follow(hand, state.trick[0].cards, state.trumps, options)
            else:
                cards = daqi_bots.default_lead(hand, state.trumps)
            return Deadline({seat: PlayCards(seat, cards)}, options.play_timeout_ms, "play")
        return None

    def legal_actions(self, state: Any, seat: int) -> list[Any]:
        """Every legal command of `seat`, built by structure. Two lists are representative rather
        than complete, and `decide` judges any other choice: burials (any 8 held cards are legal;
        see bots.burials) and follows whose free cards allow more than 64 choices (follow.py)."""
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
            return [Bury(seat, b) for b in daqi_bots.burials(state.hands[seat], state.trumps)]
        return []

    def is_legal(self, state: Any, cmd: Any) -> bool:
        """Whether `decide` accepts `cmd` (for UIs and bots checking a play of their own)."""
        try:
            decide(state, cmd)
        except RuleViolation:
            return False
        return True

    def command_seat(self, cmd: Any) -> int | None:
        return getattr(cmd, "seat", None)

    def hand_result(self, state: Any) -> HandResult | None:
        table = getattr(state, "table", None)
        return None if table is None else table.last_result

    def check(self, state: Any) -> list[str]:
        """108 cards conserved; 200 points in hands, bottom and tricks; the last hand's 抓分方
        points, grade and payments consistent; scores zero-sum."""
        problems: list[str] = []
        if isinstance(state, NoTable):
            return problems
        table = state.table
        if sum(table.scores) != 0:
            problems.append(f"scores do not sum to zero: {table.scores}")
        last = table.last
        if last is not None:
            problems += _check_settlement(last, table.options)
        if isinstance(state, Waiting):
            return problems
        cards = [c for hand in state.hands for c in hand]
        if isinstance(state, Dealing):
            cards += state.deal.deck[state.dealt :]
        elif isinstance(state, FinalBids):
            cards += state.deal.bottom
        elif isinstance(state, Burying | Overcalling | Playing):
            cards += state.bottom
        if isinstance(state, Playing):
            cards += [c for play in (*state.played, *state.trick) for c in play.cards]
            in_play = points(c for hand in state.hands for c in hand)
            in_play += points(c for play in state.trick for c in play.cards)
            total = sum(state.won) + in_play + points(state.bottom)
            if total != TOTAL_POINTS:
                problems.append(f"points in tricks, hands and bottom add up to {total}, not 200")
        if Counter(cards) != Counter(DECK):
            problems.append("the cards in hands, deck, bottom and tricks are not the 108 cards")
        return problems


def _check_settlement(last: Any, options: DaqiOptions) -> list[str]:
    problems = []
    if sum(last.won) + last.bottom_points != TOTAL_POINTS:
        problems.append(f"trick points {sum(last.won)} + bottom {last.bottom_points} != 200")
    takers = sum(p for s, p in enumerate(last.won) if s not in (last.declarer, last.friend))
    if last.taker_points != takers + last.bottom_points * last.kou_di:
        problems.append("the 抓分方's points do not match their tricks plus 抠底")
    if last.grade != grade(last.taker_points, options):
        problems.append(f"grade {last.grade} does not match {last.taker_points} points")
    if last.deltas != settle(last.grade, last.declarer, last.friend, SEATS, options.base):
        problems.append("the payments do not match the grade")
    if sum(last.deltas) != 0:
        problems.append(f"the payments do not sum to zero: {last.deltas}")
    return problems


RULESET = DaqiRuleset()
