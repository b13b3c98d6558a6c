"""jj.md, "Scoring": 经典 and 血战 coefficients, 20% sharing, rounding, 积分最小化."""

from fractions import Fraction

from engine.jj.scoring import (
    CLASSIC,
    XUEZHAN,
    Payment,
    capped,
    deltas,
    payments,
    round_half_up,
    score,
)


def test_classic_score_is_fans_times_base_times_one_and_a_half_on_a_self_draw():
    assert score(8, 2, self_drawn=True, mode=CLASSIC) == 24
    assert score(8, 2, self_drawn=False, mode=CLASSIC) == 16


def test_xuezhan_self_draw_coefficient_is_three():
    assert score(8, 1, self_drawn=True, mode=XUEZHAN) == 24
    assert score(8, 1, self_drawn=False, mode=XUEZHAN) == 8


def test_on_a_discard_the_discarder_pays_everything_when_nothing_was_claimed():
    assert payments(Fraction(10), 0, 2, (), (1, 2, 3), CLASSIC) == (Payment(2, 0, 10, "discard"),)


def test_each_claimed_set_costs_its_feeder_twenty_percent_and_the_discarder_the_rest():
    got = payments(Fraction(10), 0, 2, (3, 1), (1, 2, 3), CLASSIC)
    assert got == (Payment(3, 0, 2, "part"), Payment(1, 0, 2, "part"), Payment(2, 0, 6, "discard"))


def test_a_set_claimed_from_the_discarder_is_part_of_the_discarders_payment():
    got = payments(Fraction(10), 0, 2, (2,), (1, 2, 3), CLASSIC)
    assert got == (Payment(2, 0, 10, "discard"),)


def test_on_a_self_draw_the_rest_is_split_among_the_three_others():
    got = payments(Fraction(12), 0, None, (3,), (1, 2, 3), CLASSIC)
    # 12 × 20% = 2.4 -> 2 from seat 3 for its pong; the other 10 split 4 / 3 / 3 in turn order.
    assert got == (Payment(3, 0, 2, "part"), Payment(1, 0, 4, "self_draw"), Payment(2, 0, 3, "self_draw"), Payment(3, 0, 3, "self_draw"))


def test_payments_are_rounded_half_up_and_sum_exactly_to_the_score():
    exact = score(9, 1, self_drawn=True, mode=CLASSIC)  # 13.5
    got = payments(exact, 1, None, (0, 0, 3), (2, 3, 0), CLASSIC)
    assert sum(p.points for p in got) == round_half_up(exact) == 14
    assert round_half_up(Fraction(27, 10)) == 3 and round_half_up(Fraction(5, 2)) == 3


def test_xuezhan_has_no_sharing():
    got = payments(Fraction(10), 0, 2, (3, 1), (1, 2, 3), XUEZHAN)
    assert got == (Payment(2, 0, 10, "discard"),)


def test_xuezhan_self_draw_is_split_among_the_seats_still_in_the_hand():
    got = payments(Fraction(24), 0, None, (), (1, 3), XUEZHAN)
    assert got == (Payment(1, 0, 12, "self_draw"), Payment(3, 0, 12, "self_draw"))


def test_minimum_of_three_caps_each_payment_at_either_players_table_chips():
    pays = (Payment(1, 0, 50, "self_draw"), Payment(2, 0, 50, "self_draw"), Payment(3, 0, 50, "self_draw"))
    got = capped(pays, (60, 30, 200, 200))
    # seat 1 has only 30; the others owe 50 each, under the winner's 60.
    assert [p.points for p in got] == [30, 50, 50]
    got = capped(pays, (10, 100, 100, 100))
    # the winner brought 10: nobody pays it more than that.
    assert [p.points for p in got] == [10, 10, 10]
    two = (Payment(1, 0, 50, "self_draw"), Payment(1, 2, 50, "part"))
    # a payer owing twice never pays more than it holds.
    assert [p.points for p in capped(two, (100, 70, 100, 0))] == [50, 20]


def test_deltas_sum_to_zero():
    got = payments(Fraction(27, 2), 1, None, (0, 3), (2, 3, 0), CLASSIC)
    d = deltas(got, 4)
    assert sum(d) == 0 and d[1] == 14
