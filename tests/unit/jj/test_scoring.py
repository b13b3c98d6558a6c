"""jj.md, "Scoring": 经典 and 血战 coefficients, 20% sharing, rounding, 积分最小化."""

from fractions import Fraction

from engine.core import payments as core
from engine.core.payments import settle
from engine.jj.scoring import (
    CLASSIC,
    XUEZHAN,
    Payment,
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


def test_on_a_self_draw_the_rest_is_split_equally_among_the_three_others():
    got = payments(Fraction(15), 0, None, (3,), (1, 2, 3), CLASSIC)
    # 15 × 20% = 3 from seat 3 for its pong; the other 12 split 4 / 4 / 4.
    assert got == (Payment(3, 0, 3, "part"), Payment(1, 0, 4, "self_draw"), Payment(2, 0, 4, "self_draw"), Payment(3, 0, 4, "self_draw"))


def test_round_half_up_at_each_payment_so_equal_payers_pay_alike():
    # 25 fans self-drawn: 37.5, a third each is 12.5 -> 13 / 13 / 13 (the winner gets 39).
    got = payments(score(25, 1, self_drawn=True, mode=CLASSIC), 0, None, (), (1, 2, 3), CLASSIC)
    assert [(p.payer, p.points) for p in got] == [(1, 13), (2, 13), (3, 13)]
    # 12 with seat 3's pong: its 20% is 2.4 -> 2; each third of the other 9.6 is 3.2 -> 3.
    got = payments(Fraction(12), 0, None, (3,), (1, 2, 3), CLASSIC)
    assert got == (Payment(3, 0, 2, "part"), Payment(1, 0, 3, "self_draw"), Payment(2, 0, 3, "self_draw"), Payment(3, 0, 3, "self_draw"))
    # 9 fans self-drawn, 13.5: seat 0 fed two sets (5.4 -> 5), seat 3 one (2.7 -> 3), and each
    # third of the other 40% (1.8) -> 2.
    got = payments(score(9, 1, self_drawn=True, mode=CLASSIC), 1, None, (0, 0, 3), (2, 3, 0), CLASSIC)
    assert [(p.payer, p.points, p.reason) for p in got] == [
        (0, 5, "part"), (3, 3, "part"), (2, 2, "self_draw"), (3, 2, "self_draw"), (0, 2, "self_draw")]
    # 血战, 25 fans self-drawn by one of three left in the hand: 75 / 2 = 37.5 -> 38 each.
    got = payments(score(25, 1, self_drawn=True, mode=XUEZHAN), 0, None, (), (1, 3), XUEZHAN)
    assert [p.points for p in got] == [38, 38]
    assert round_half_up(Fraction(27, 10)) == 3 and round_half_up(Fraction(5, 2)) == 3


def test_a_table_recorded_before_rules_3_rounded_the_score_once_and_gave_odd_chips_to_the_first_payers():
    got = payments(score(25, 1, self_drawn=True, mode=CLASSIC), 0, None, (), (1, 2, 3), CLASSIC, each_rounded=False)
    assert [(p.payer, p.points) for p in got] == [(1, 13), (2, 13), (3, 12)]
    got = payments(Fraction(12), 0, None, (3,), (1, 2, 3), CLASSIC, each_rounded=False)
    # 12 × 20% = 2.4 -> 2 from seat 3 for its pong; the other 10 split 4 / 3 / 3 in turn order.
    assert got == (Payment(3, 0, 2, "part"), Payment(1, 0, 4, "self_draw"), Payment(2, 0, 3, "self_draw"), Payment(3, 0, 3, "self_draw"))
    exact = score(9, 1, self_drawn=True, mode=CLASSIC)  # 13.5
    got = payments(exact, 1, None, (0, 0, 3), (2, 3, 0), CLASSIC, each_rounded=False)
    assert sum(p.points for p in got) == round_half_up(exact) == 14


def test_xuezhan_has_no_sharing():
    got = payments(Fraction(10), 0, 2, (3, 1), (1, 2, 3), XUEZHAN)
    assert got == (Payment(2, 0, 10, "discard"),)


def test_xuezhan_self_draw_is_split_among_the_seats_still_in_the_hand():
    got = payments(Fraction(24), 0, None, (), (1, 3), XUEZHAN)
    assert got == (Payment(1, 0, 12, "self_draw"), Payment(3, 0, 12, "self_draw"))


def capped(pays: tuple[Payment, ...], chips: tuple[int, ...]) -> tuple[Payment, ...]:
    """jj's payments through the engine core's 积分最小化, as the table settles them."""
    paid = settle([core.Payment(p.payer, p.payee, p.points, p.reason) for p in pays], chips)
    return tuple(Payment(p.payer, p.payee, p.chips, p.reason) for p in paid)


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


def test_deltas_sum_to_zero_and_the_winner_gets_every_payment():
    got = payments(Fraction(27, 2), 1, None, (0, 3), (2, 3, 0), CLASSIC)
    d = deltas(got, 4)
    assert sum(d) == 0 and d[1] == sum(p.points for p in got) == 15
