"""积分最小化: each payment is the smallest of the winner's stack, the loser's stack and the
amount owed — every hand zero-sum, no stack below zero."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.core.payments import Paid, Payment, deltas, settle


def test_a_loser_with_fewer_chips_than_owed_pays_only_what_they_have():
    paid = settle([Payment(1, 0, 30, "discard_win")], stacks=[100, 12])
    assert paid == (Paid(1, 0, 12, 30, "discard_win"),)


def test_a_winner_with_fewer_chips_than_owed_wins_at_most_their_stack_from_each_loser():
    paid = settle([Payment(p, 0, 50, "self_draw") for p in (1, 2, 3)], stacks=[20, 100, 100, 100])
    assert [p.chips for p in paid] == [20, 20, 20]
    assert deltas(paid, 4) == (60, -20, -20, -20)


def test_a_self_draw_where_two_of_three_losers_are_short_stays_zero_sum_and_nobody_goes_below_zero():
    stacks = [100, 5, 3, 100]
    paid = settle([Payment(p, 0, 10, "self_draw") for p in (1, 2, 3)], stacks)
    assert [p.chips for p in paid] == [5, 3, 10]
    d = deltas(paid, 4)
    assert sum(d) == 0 and d == (18, -5, -3, -10)
    assert all(s + x >= 0 for s, x in zip(stacks, d, strict=True))


def test_the_stake_turns_points_into_chips_before_the_cap():
    paid = settle([Payment(1, 0, 6, "discard_win")], stacks=[1000, 1000], stake=10)
    assert paid[0].chips == 60 and paid[0].owed == 60
    assert settle([Payment(1, 0, 6, "discard_win")], stacks=[1000, 45], stake=10)[0].chips == 45


def test_a_loser_owing_two_winners_pays_in_order_until_their_stack_is_gone():
    paid = settle([Payment(2, 0, 8, "win"), Payment(2, 1, 8, "win")], stacks=[50, 50, 10])
    assert [p.chips for p in paid] == [8, 2]


def test_without_the_rule_the_winners_stack_is_no_limit_but_nobody_pays_more_than_they_have():
    assert settle([Payment(1, 0, 30, "discard_win")], stacks=[10, 100], minimise=False)[0].chips == 30
    assert settle([Payment(1, 0, 30, "discard_win")], stacks=[100, 12], minimise=False)[0].chips == 12


@given(
    stacks=st.lists(st.integers(0, 200), min_size=2, max_size=4),
    raw=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 80)), max_size=8),
    stake=st.integers(1, 5),
)
def test_any_hand_settled_by_the_rule_is_zero_sum_and_leaves_no_stack_below_zero(stacks, raw, stake):
    seats = len(stacks)
    payments = [Payment(a % seats, b % seats, n, "x") for a, b, n in raw if a % seats != b % seats]
    paid = settle(payments, stacks, stake)
    d = deltas(paid, seats)
    assert sum(d) == 0
    assert all(s + x >= 0 for s, x in zip(stacks, d, strict=True))
    assert all(0 <= p.chips <= p.owed and p.chips <= stacks[p.payee] for p in paid)
