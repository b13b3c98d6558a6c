"""What always holds at a 打七 table (checked by self-play and the property tests)."""

from __future__ import annotations

from collections import Counter

from engine.daqi.cards import DECK
from engine.daqi.events import HandEnded
from engine.daqi.options import Options
from engine.daqi.points import points
from engine.daqi.settlement import deltas as settle
from engine.daqi.settlement import grade
from engine.daqi.state import (
    SEATS,
    Burying,
    Dealing,
    FinalBids,
    NoTable,
    Overcalling,
    Playing,
    State,
    Waiting,
)

TOTAL_POINTS = 200


def check(state: State) -> list[str]:
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


def _check_settlement(last: HandEnded, options: Options) -> list[str]:
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
