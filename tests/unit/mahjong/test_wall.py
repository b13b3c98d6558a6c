"""The wall: deal order, live draws from the front, replacements and the reserve at the tail."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.mahjong.tiles import FULL_SET, parse_tiles
from engine.mahjong.wall import (
    Wall,
    deal,
    deal_order,
    dealt_count,
    roll_dice,
    roll_for_dealer,
    stacked,
)


def test_the_dealer_takes_three_rounds_of_four_then_two_the_others_one_each():
    order = deal_order(dealer=2, seats=4)
    assert len(order) == dealt_count(4) == 53
    assert order[:16] == (2,) * 4 + (3,) * 4 + (0,) * 4 + (1,) * 4
    assert order[48:] == (2, 2, 3, 0, 1)
    assert [order.count(s) for s in range(4)] == [13, 13, 14, 13]


def test_live_draws_come_from_the_front_and_replacements_from_the_tail():
    wall = Wall(tuple(FULL_SET), front=53, reserve=12)
    assert wall.next_live() == FULL_SET[53]
    assert wall.next_replacement() == FULL_SET[-1]
    wall = wall.drawn(from_tail=True)
    assert wall.next_replacement() == FULL_SET[-2]
    assert wall.standing == 136 - 53 - 1


def test_live_draws_stop_at_the_reserve_and_a_grown_reserve_stops_them_sooner():
    wall = Wall(tuple(FULL_SET), front=136 - 13, reserve=12)
    assert wall.live == 1
    wall = wall.drawn(from_tail=False)
    assert wall.live == 0
    with pytest.raises(IndexError):
        wall.next_live()
    assert Wall(tuple(FULL_SET), front=53, reserve=12).reserving(2).live == 136 - 53 - 14


def test_an_indicator_is_turned_over_from_the_tail():
    wall = Wall(tuple(FULL_SET), front=53)
    shown, after = wall.take_indicator()
    assert shown == FULL_SET[-1] and after.back == 1


def test_the_dice_are_two_pairs_and_point_at_a_side_and_a_stack():
    dice = roll_dice(b"seed", dealer=1, seats=4)
    assert dice == roll_dice(b"seed", dealer=1, seats=4)
    assert all(1 <= d <= 6 for d in (*dice.first, *dice.second))
    assert dice.side == (1 + sum(dice.first) - 1) % 4
    assert dice.stack == sum(dice.first) + sum(dice.second)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32))
def test_the_highest_roll_deals_first_and_ties_roll_again(seed):
    rounds, dealer = roll_for_dealer(random.Random(seed), 4)
    for earlier, later in zip(rounds, rounds[1:], strict=False):
        best = max(sum(r) for r in earlier)
        assert [sum(r) == best for r in earlier] == [r != (0, 0) for r in later]
    totals = [sum(r) for r in rounds[-1]]
    assert totals[dealer] == max(totals) and totals.count(max(totals)) == 1


def test_a_stacked_deck_deals_the_given_hands_then_the_given_draws_and_tail():
    hands = [
        parse_tiles("123m 456m 789m 11p 234p"),
        parse_tiles("123s 456s 789s EEE S"),
        parse_tiles("123s 456s 789s WWW N"),
        parse_tiles("456p 789p CCC FFF P"),
    ]
    order = stacked(hands, parse_tiles("5m 6m"), parse_tiles("P"), dealer=0, full_set=FULL_SET)
    assert sorted(order) == sorted(FULL_SET)
    assert [sorted(h) for h in deal(order, 0, 4)] == [sorted(h) for h in hands]
    assert order[53:55] == parse_tiles("5m 6m") and order[-1] == parse_tiles("P")[0]


def test_a_stacked_deck_refuses_a_fifth_copy_or_a_short_hand():
    four_e = [parse_tiles(h) for h in ("EEEE 123m 456m 789m 1p", "123s 456s 789s NN E W", "123p 456p 789p SSS C", "234p 567p 89p FFF PP")]
    with pytest.raises(ValueError, match="more than 4 of E"):
        stacked(four_e, (), (), 0, FULL_SET)
    with pytest.raises(ValueError, match="seat 1 must be dealt 13"):
        stacked([parse_tiles("123m 456m 789m 11p 234p"), parse_tiles("1s")] * 2, (), (), 0, FULL_SET)
