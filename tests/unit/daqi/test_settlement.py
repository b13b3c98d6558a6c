"""End of hand, 抠底 and settlement (daqi.md, "End of hand and 抠底", "Settlement")."""

import pytest

from engine.core.contract import StartHand
from engine.core.payments import Payment
from engine.daqi import RULESET
from engine.daqi.cards import HEARTS
from engine.daqi.events import HandEnded
from engine.daqi.friend import Partnership
from engine.daqi.options import make_options
from engine.daqi.settlement import OUTCOMES, deltas, grade, payments
from engine.daqi.state import Waiting

from .tables import (
    deal,
    endgame,
    finish_by_defaults,
    fixed_deal,
    play,
    run,
    started,
    table,
)

BOTTOM_25 = "♣5 ♣10 ♣K ♣3 ♣4 ♣6 ♣8 ♣9"  # 25 points in the bottom


def _last_trick(plays, **kw):
    state = endgame({seat: text for seat, text in plays}, leader=plays[0][0], **kw)
    events = []
    for seat, text in plays:
        state, evs = play(state, seat, text)
        events += evs
    assert isinstance(events[-1], HandEnded)
    return state, events[-1]


# Seat 2 (a 抓分方 player) leads the last trick and wins it; takers hold 50 points already.
WON = (125, 50, 0, 0, 0)


def test_kou_di_a_last_trick_won_by_the_takers_and_led_as_a_single_counts_the_bottom_once():
    plays = [(2, "♠A"), (3, "♠3"), (4, "♦3"), (0, "♦4"), (1, "♦6")]
    _, ended = _last_trick(plays, declarer=0, trump_suit=HEARTS, bottom=BOTTOM_25, won=WON)
    assert (ended.kou_di, ended.bottom_points) == (1, 25)
    assert ended.taker_points == 50 + 25


def test_kou_di_a_last_trick_won_by_the_takers_and_led_as_a_pair_counts_the_bottom_twice():
    plays = [(2, "♠A ♠A"), (3, "♠3 ♠4"), (4, "♦3 ♦4"), (0, "♦6 ♦8"), (1, "♦9 ♦J")]
    _, ended = _last_trick(plays, declarer=0, trump_suit=HEARTS, bottom=BOTTOM_25, won=WON)
    assert ended.kou_di == 2
    assert ended.taker_points == 50 + 2 * 25


def test_kou_di_a_last_trick_won_by_the_takers_and_led_as_a_tractor_counts_the_bottom_twice():
    plays = [
        (2, "♠J ♠J ♠Q ♠Q"),
        (3, "♠3 ♠4 ♠6 ♠8"),
        (4, "♦3 ♦4 ♦6 ♦8"),
        (0, "♦9 ♦J ♦Q ♦A"),
        (1, "♣3 ♣4 ♣6 ♣8"),
    ]
    _, ended = _last_trick(
        plays,
        declarer=0,
        trump_suit=HEARTS,
        bottom="♣5 ♣10 ♣K ♣9 ♣J ♣Q ♣A ♦5",
        won=(120, 50, 0, 0, 0),
    )
    assert ended.kou_di == 2
    assert ended.taker_points == 50 + 2 * 30


def test_no_kou_di_when_the_declarer_wins_the_last_trick():
    plays = [(2, "♠K"), (3, "♠3"), (4, "♦3"), (0, "♠A"), (1, "♦6")]
    won = (115, 50, 0, 0, 0)
    _, ended = _last_trick(plays, declarer=0, trump_suit=HEARTS, bottom=BOTTOM_25, won=won)
    assert ended.kou_di == 0
    assert ended.taker_points == 50


def test_no_kou_di_when_the_friend_wins_the_last_trick():
    plays = [(2, "♠K"), (3, "♠A"), (4, "♦3"), (0, "♠3"), (1, "♦6")]
    _, ended = _last_trick(
        plays,
        declarer=0,
        partnership=Partnership("holder", 3),
        revealed=True,
        trump_suit=HEARTS,
        bottom=BOTTOM_25,
        won=(100, 50, 0, 15, 0),
    )
    assert (ended.friend, ended.kou_di) == (3, 0)
    assert ended.taker_points == 50


def test_a_taker_trumping_the_last_single_takes_the_bottom_once():
    plays = [(0, "♠A"), (1, "♥3"), (2, "♠3"), (3, "♠4"), (4, "♠6")]
    _, ended = _last_trick(plays, declarer=0, trump_suit=HEARTS, bottom=BOTTOM_25, won=WON)
    assert ended.kou_di == 1


def test_the_points_of_the_last_trick_count_for_its_winner():
    plays = [(2, "♠K"), (3, "♠5"), (4, "♦3"), (0, "♦4"), (1, "♦10")]
    won = (100, 50, 0, 0, 0)
    _, ended = _last_trick(plays, declarer=0, trump_suit=HEARTS, bottom=BOTTOM_25, won=won)
    assert ended.won == (100, 50, 25, 0, 0)
    assert ended.taker_points == 75 + 25


# ---- grades ----------------------------------------------------------------------------------

GRADES = [
    (0, 3, "0 points: the 庄家方 wins big (大光)"),
    (1, 2, "1 point: 小光"),
    (39, 2, "39: still 小光"),
    (40, 1, "40: the 庄家方 wins"),
    (79, 1, "79: the 庄家方 still wins"),
    (80, -1, "80: the 抓分方 wins"),
    (119, -1, "119"),
    (120, -2, "120: the 抓分方 wins by two"),
    (159, -2, "159"),
    (160, -3, "160: the 抓分方 wins big"),
    (200, -3, "200"),
    (250, -3, "250 with 抠底"),
]


@pytest.mark.parametrize(("points", "g", "why"), GRADES, ids=[w for _, _, w in GRADES])
def test_settlement_grade_boundaries_with_the_default_thresholds(points, g, why):
    assert grade(points, make_options()) == g


def test_the_thresholds_option_moves_the_grade_boundaries():
    options = make_options({"thresholds": [100, 30]})
    assert [grade(p, options) for p in (0, 69, 70, 99, 100, 129, 130, 159, 160)] == [
        3, 2, 1, 1, -1, -1, -2, -2, -3,
    ]


def test_in_two_against_three_each_taker_pays_g_times_base_the_friend_gets_g_times_base_and_the_declarer_the_rest():
    assert deltas(2, declarer=1, friend=3, seats=5, base=1) == (-2, 4, -2, 2, -2)


def test_in_one_against_four_the_declarer_gets_it_all():
    assert deltas(1, declarer=4, friend=None, seats=5, base=1) == (-1, -1, -1, -1, 4)


def test_when_the_takers_win_each_taker_receives_g_times_base():
    assert deltas(-3, declarer=0, friend=2, seats=5, base=1) == (-6, 3, -3, 3, 3)


def test_as_payments_each_taker_pays_the_dealer_side_and_the_friends_share_comes_from_the_taker_after_the_friend():
    assert payments(2, declarer=1, friend=3, seats=5, base=1) == (
        Payment(0, 1, 2, OUTCOMES[2]), Payment(2, 1, 2, OUTCOMES[2]), Payment(4, 3, 2, OUTCOMES[2]))


def test_as_payments_in_one_against_four_each_taker_pays_the_declarer():
    assert [(p.payer, p.payee, p.points) for p in payments(1, declarer=4, friend=None, seats=5, base=1)] == [
        (0, 4, 1), (1, 4, 1), (2, 4, 1), (3, 4, 1)]


def test_as_payments_when_the_takers_win_the_dealer_side_pays_each_taker():
    assert [(p.payer, p.payee, p.points) for p in payments(-3, declarer=0, friend=2, seats=5, base=1)] == [
        (0, 1, 3), (2, 3, 3), (0, 4, 3)]


def test_the_base_option_multiplies_every_payment():
    assert deltas(-1, declarer=0, friend=None, seats=5, base=5) == (-20, 5, 5, 5, 5)


def test_settlement_pays_by_the_grade_of_the_takers_points():
    plays = [(2, "♠A"), (3, "♠3"), (4, "♦3"), (0, "♦4"), (1, "♦6")]
    state, ended = _last_trick(
        plays, declarer=0, trump_suit=HEARTS, bottom=BOTTOM_25, won=WON, base=2
    )
    assert ended.grade == 1  # 75 points
    assert ended.deltas == (8, -2, -2, -2, -2)
    assert isinstance(state, Waiting)
    assert state.table.scores == (8, -2, -2, -2, -2)
    result = RULESET.hand_result(state)
    assert (result.outcome, result.points, result.deltas) == (OUTCOMES[1], 75, ended.deltas)


def test_every_grade_has_an_outcome_label():
    assert set(OUTCOMES) == {3, 2, 1, -1, -2, -3}


def test_scores_accumulate_hand_after_hand_and_sum_to_zero():
    state = table()
    totals = [0] * 5
    for n in range(3):
        state, _ = run(state, StartHand(bytes([n]), b"salt"))
        state, _ = deal(state)
        state, events = finish_by_defaults(state)
        totals = [a + b for a, b in zip(totals, events[-1].deltas, strict=True)]
    assert list(state.table.scores) == totals and sum(totals) == 0
    assert RULESET.check(state) == []


def test_a_whole_hand_accounts_for_all_200_points():
    state, _ = deal(started(fixed_deal({1: "♥7"})))
    state, events = finish_by_defaults(state)
    ended = events[-1]
    assert sum(ended.won) + ended.bottom_points == 200
    assert RULESET.check(state) == []
