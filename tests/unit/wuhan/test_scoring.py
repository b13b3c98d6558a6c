"""口口番 scoring (rules/wuhan.md, "Scoring", "Who pays", "Caps"), every factor asserted."""

from __future__ import annotations

import pytest

from engine.wuhan.scoring import Factor, Settlement
from engine.wuhan.winning import Refusal

from .wins import LOOSE, Seat, added_kong, chow, concealed_kong, exposed_kong, pong, win

SMALL_SELF_DRAWN = "123m 456p 789s 55m"  # plus one meld: a 小胡 with a 5m pair


def factors(s: Settlement, seat: int) -> dict[str, float]:
    """A loser's own factors as {name: value}."""
    line = next(line for line in s.lines if line.seat == seat)
    return {f.name: float(f.value) for f in line.factors}


def amounts(s: Settlement) -> dict[int, int]:
    return {line.seat: line.amount for line in s.lines}


def test_each_loser_pays_base_times_own_multiplier_times_the_winners():
    s = win(1, [Seat(), Seat(SMALL_SELF_DRAWN, pong("E")), Seat(), Seat()], dealer=0)
    assert s.base == 1 and s.big_wins == () and s.hard
    assert [(f.name, f.value) for f in s.winner_factors] == [("开口", 2), ("自摸", 2), ("硬胡", 2)]
    assert factors(s, 0) == {"庄家": 2} and factors(s, 2) == {} and factors(s, 3) == {}
    assert amounts(s) == {0: 16, 2: 8, 3: 8}
    assert s.deltas == (-16, 32, -8, -8)


def test_kou_kou_fan_every_opening_of_the_winner_doubles():
    s = win(1, [Seat(), Seat("123m 55m", pong("E"), pong("S", 2), chow("4p", 0)), Seat(), Seat()])
    assert s.winner_factors[0] == Factor("开口", 2, 3)
    assert s.winner_multiplier == 8 * 2 * 2


def test_each_loser_doubles_for_each_of_their_own_openings():
    s = win(1, [Seat(), Seat(SMALL_SELF_DRAWN, pong("E")), Seat(LOOSE[:-4], pong("9m"), chow("1p")), Seat()], dealer=0)
    assert factors(s, 2) == {"开口": 4}
    assert amounts(s)[2] == 4 * 8


def test_own_kongs_multiply_concealed_4_exposed_2_skin_2_laizi_4():
    loser = Seat("1m 4m 7m 2p", concealed_kong("9s"), exposed_kong("8s"), added_kong("E"), laid="F C P P")
    s = win(1, [Seat(), Seat(SMALL_SELF_DRAWN, pong("S")), loser, Seat()], dealer=0)
    # The exposed and added kongs are an opening (×2) and an exposed kong (×2) each.
    assert factors(s, 2) == {"开口": 4, "暗杠": 4, "明杠": 4, "皮杠": 4, "赖子杠": 16}


def test_the_discarder_pays_double_in_a_small_win():
    s = win(1, [Seat(), Seat("123m 456p 789s 5m", pong("E")), Seat(), Seat()], how="discard", tile="5m", source=2)
    assert [f.name for f in s.winner_factors] == ["开口", "硬胡"]
    assert factors(s, 2) == {"放冲": 2}
    assert amounts(s) == {0: 1 * 2 * 4, 2: 2 * 4, 3: 4}


def test_players_who_did_not_discard_also_pay():
    s = win(1, [Seat(), Seat("123m 456p 789s 5m", pong("E")), Seat(), Seat()], how="discard", tile="5m", source=2)
    assert all(line.amount > 0 and line.payer == line.seat for line in s.lines)


def test_when_the_dealer_wins_every_loser_pays_double():
    s = win(0, [Seat(SMALL_SELF_DRAWN, pong("E")), Seat(), Seat(), Seat()], dealer=0)
    assert all(factors(s, seat) == {"庄家": 2} for seat in (1, 2, 3))


def test_a_big_win_is_base_10_self_draw_1_5_and_no_dealer_factor():
    s = win(1, [Seat(), Seat("111m 444p 777s 99s", pong("E")), Seat(), Seat()], dealer=0)
    assert s.big_wins == ("all_pungs",) and s.base == 10
    assert [(f.name, float(f.value)) for f in s.winner_factors] == [("开口", 2), ("自摸", 1.5), ("硬胡", 2)]
    assert factors(s, 0) == {}  # no dealer factor
    assert amounts(s) == {0: 60, 2: 60, 3: 60}


def test_in_a_big_win_the_discarder_pays_1_5():
    s = win(1, [Seat(), Seat("111m 444p 777s 9s", pong("E")), Seat(), Seat()], how="discard", tile="9s", source=3)
    assert factors(s, 3) == {"放冲": 1.5}
    assert amounts(s) == {0: 40, 2: 40, 3: 60}


def test_big_wins_add_up():
    # 碰碰胡 + 清一色: base 20.
    s = win(1, [Seat(), Seat("111m 444m 777m 99m", pong("2m")), Seat(), Seat()])
    assert s.big_wins == ("all_pungs", "one_suit") and s.base == 20


def test_a_hard_win_doubles_a_soft_win_does_not():
    soft = win(1, [Seat(), Seat("123m 456p 789s 5m P", pong("E")), Seat(), Seat()])
    assert not soft.hard and [f.name for f in soft.winner_factors] == ["开口", "自摸"]


def test_the_better_of_hard_and_soft_is_scored():
    # With P (the 赖子) as itself this is 碰碰胡 (PPP); as a wild it can only be worse.
    s = win(1, [Seat(), Seat("111m 444p PPP 55s", pong("E")), Seat(), Seat()])
    assert s.hard and s.big_wins == ("all_pungs",)


def test_a_loser_pays_at_most_the_cap():
    # The loser holds three kongs: 10 × 1.5(放冲) × 64 × ... far over 400.
    loser = Seat("1m 4m 7m 2p", concealed_kong("9s"), concealed_kong("8s"), concealed_kong("E"))
    s = win(1, [Seat(), Seat("111m 444p 777s 9s", pong("S")), loser, Seat()], how="discard", tile="9s", source=2)
    line = next(line for line in s.lines if line.seat == 2)
    assert line.raw == 10 * 64 * 1.5 * 4 and line.cap == "封顶" and line.amount == 400
    assert amounts(s)[0] == 40


def test_when_every_loser_reaches_the_cap_each_pays_the_golden_cap():
    opened = [Seat("1m 4m 7m 2p", pong("1p", 1), pong("2s", 1), pong("3s", 1)) for _ in range(3)]
    s = win(0, [Seat("111m 444p 99s", concealed_kong("E"), pong("S", 2)), *opened])
    # Each loser: 10 × 8(开口×3) × the winner's 24 = 2(开口) × 4(暗杠) × 1.5(自摸) × 2(硬胡).
    assert s.winner_multiplier == 24 and all(line.raw == 1920 for line in s.lines)
    assert [(line.cap, line.amount) for line in s.lines] == [("金顶", 500)] * 3


def test_at_the_golden_cap_a_loser_who_never_opened_pays_the_sunshine_cap():
    opened = Seat("1m 4m 7m 2p", pong("1p", 1), pong("2s", 1), pong("3s", 1))
    closed = Seat("1m 4m 7m 2p", concealed_kong("1p"), concealed_kong("2s"), concealed_kong("3s"))
    s = win(0, [Seat("111m 444p 99s", concealed_kong("E"), pong("S", 2)), opened, closed, opened])
    assert [(line.cap, line.amount) for line in s.lines] == [("金顶", 500), ("阳光顶", 600), ("金顶", 500)]


def test_at_the_golden_cap_with_no_loser_opened_each_pays_the_ha_cap():
    closed = Seat("1m 4m 7m 2p", concealed_kong("1p"), concealed_kong("2s"), concealed_kong("3s"))
    s = win(0, [Seat("111m 444p 99s", concealed_kong("E"), pong("S", 2)), closed, closed, closed])
    assert [(line.cap, line.amount) for line in s.lines] == [("哈顶", 700)] * 3


def test_the_caps_are_options():
    closed = Seat("1m 4m 7m 2p", concealed_kong("1p"), concealed_kong("2s"), concealed_kong("3s"))
    s = win(0, [Seat("111m 444p 99s", concealed_kong("E"), pong("S", 2)), closed, closed, closed],
            cap=20_000, golden_cap=30_000, sunshine_cap=30_000, ha_cap=30_000)
    assert [(line.cap, line.amount) for line in s.lines] == [(None, 10 * 64 * 24)] * 3


def test_the_base_score_multiplies_every_delta():
    s = win(1, [Seat(), Seat(SMALL_SELF_DRAWN, pong("E")), Seat(), Seat()], dealer=0, base_score=5)
    assert s.deltas == (-80, 160, -40, -40)


# --- 承包 ---------------------------------------------------------------------------------------


ALL_CLAIMED = Seat("5m", pong("E", 2), pong("S", 2), chow("1p", 0), exposed_kong("9s", 3))


def test_an_unready_discarder_of_a_quan_qiu_ren_pays_for_everyone():
    s = win(1, [Seat(), ALL_CLAIMED, Seat(LOOSE), Seat()], how="discard", tile="5m", source=2)
    assert "all_claimed" in s.big_wins
    assert (s.liable, s.liable_for) == (2, "全求人")
    assert all(line.payer == 2 for line in s.lines)
    assert s.deltas[2] == -s.total and s.deltas[0] == s.deltas[3] == 0


def test_a_ready_discarder_of_a_quan_qiu_ren_pays_only_their_own():
    ready = Seat("123m 456m 789m 123p 5p")  # waits on 5p
    s = win(1, [Seat(), ALL_CLAIMED, ready, Seat()], how="discard", tile="5m", source=2)
    assert s.liable is None and all(line.payer == line.seat for line in s.lines)


def test_the_seat_a_one_suit_winner_made_the_third_opening_from_pays_for_everyone():
    winner = Seat("456m 9m", pong("2m", 2), chow("7m", 0), pong("1m", 3))
    s = win(1, [Seat(), winner, Seat(), Seat()], tile="9m", how="discard", source=2)
    assert "one_suit" in s.big_wins
    assert (s.liable, s.liable_for) == (3, "清一色")


def test_the_seat_whose_kong_is_robbed_pays_for_everyone():
    s = win(1, [Seat(), Seat("123m 456p 789s 5m", pong("E")), Seat(), Seat()], how="robbed_kong", tile="5m", source=3)
    assert "robbed_kong" in s.big_wins
    assert (s.liable, s.liable_for) == (3, "抢杠")
    assert factors(s, 3) == {"放冲": 1.5}


# --- Winning conditions ---------------------------------------------------------------------------


def test_a_player_must_have_opened_to_win():
    r = win(1, [Seat(), Seat("123m 456p 789s 234s 55m"), Seat(), Seat()])
    assert r == Refusal("not_opened", r.message)


def test_a_concealed_kong_is_not_an_opening():
    r = win(1, [Seat(), Seat("123m 456p 789s 55m", concealed_kong("E")), Seat(), Seat()])
    assert isinstance(r, Refusal) and r.code == "not_opened"


def test_holding_a_skin_forbids_winning():
    r = win(1, [Seat(), Seat("123m 456p 789s CC", pong("E")), Seat(), Seat()])  # C is a skin
    assert isinstance(r, Refusal) and r.code == "holds_skin"


def test_two_laizi_allow_only_a_big_win():
    r = win(1, [Seat(), Seat("123m 456p 789s 5m P", pong("E")), Seat(), Seat()])
    assert isinstance(r, Settlement)
    r = win(1, [Seat(), Seat("123m 456p 78s 5m PP", pong("E")), Seat(), Seat()])
    assert isinstance(r, Refusal) and r.code == "big_win_only"
    big = win(1, [Seat(), Seat("111m 444p 77s 9s PP", pong("E")), Seat(), Seat()])
    assert isinstance(big, Settlement) and big.big_wins == ("all_pungs",)


def test_a_win_needs_one_loser_paying_min_win_before_caps():
    seats = [Seat(), Seat(SMALL_SELF_DRAWN, pong("E")), Seat(), Seat()]
    assert isinstance(win(1, seats, dealer=0, min_win=16), Settlement)  # the dealer pays 16
    r = win(1, seats, dealer=0, min_win=32)
    assert isinstance(r, Refusal) and r.code == "below_min_win" and "16" in r.message


# --- Explanation -------------------------------------------------------------------------------


def test_every_line_explains_itself_as_a_formula():
    s = win(1, [Seat(), Seat("111m 444p 777s 9s", pong("E"), ), Seat(), Seat()], how="discard", tile="9s", source=3)
    line = next(line for line in s.lines if line.seat == 3)
    assert s.formula(line) == "10 × 1.5(放冲) × 4 = 60"
    assert s.winner_formula() == "4 = 2(开口) × 2(硬胡)"
    assert s.hand_name() == "硬胡 碰碰胡"


def test_a_capped_line_shows_the_cap():
    loser = Seat("1m 4m 7m 2p", concealed_kong("9s"), concealed_kong("8s"), concealed_kong("E"))
    s = win(1, [Seat(), Seat("111m 444p 777s 9s", pong("S")), loser, Seat()], how="discard", tile="9s", source=2)
    line = next(line for line in s.lines if line.seat == 2)
    assert s.formula(line) == "10 × 64(暗杠×3) × 1.5(放冲) × 4 = 3840 → 封顶 400"


@pytest.mark.parametrize("how", ["self_draw", "discard"])
def test_deltas_sum_to_zero(how):
    s = win(1, [Seat(), Seat("111m 444p 777s 9s" + (" 9s" if how == "self_draw" else ""), pong("E")), Seat(), Seat()],
            how=how, tile=None if how == "self_draw" else "9s", source=None if how == "self_draw" else 2)
    assert sum(s.deltas) == 0


# --- The 大胡 that come from the way the hand is won ------------------------------------------------


def test_self_drawn_on_one_of_the_last_four_draws_is_hai_di_lao():
    s = win(1, [Seat(), Seat(SMALL_SELF_DRAWN, pong("E")), Seat(), Seat()], last_four=True)
    assert s.big_wins == ("last_four",) and s.base == 10


def test_self_drawn_on_a_kong_replacement_is_gang_shang_kai_hua():
    s = win(1, [Seat(), Seat(SMALL_SELF_DRAWN, pong("E")), Seat(), Seat()], kong_replacement=True)
    assert s.big_wins == ("kong_bloom",)


def test_the_situational_big_wins_still_need_a_winning_shape():
    r = win(1, [Seat(), Seat("123m 456p 789s 33m", pong("E")), Seat(), Seat()], kong_replacement=True)
    assert isinstance(r, Refusal) and r.code == "not_a_winning_hand"


def test_quan_qiu_ren_is_won_on_a_discard_only():
    s = win(1, [Seat(), ALL_CLAIMED, Seat(), Seat()], how="discard", tile="5m", source=0)
    assert s.big_wins == ("all_claimed",)
    drawn = Seat("5m 5m", *ALL_CLAIMED.tiles.melds)
    s = win(1, [Seat(), drawn, Seat(), Seat()])
    assert s.big_wins == ()


def test_all_258_and_all_honors_are_big_wins_in_any_shape():
    s = win(1, [Seat(), Seat("2m 5m 8m 2p 5p 8p 2s 5s 8s 2m 5m", pong("8s")), Seat(), Seat()])
    assert s.big_wins == ("all_258",)
    s = win(1, [Seat(), Seat("ESWNC ESWNC E", pong("P", 2)), Seat(), Seat()], indicator="3m")
    assert s.big_wins == ("all_honors",)


def test_holding_a_skin_forbids_robbing_a_kong():
    # Seat 1 would complete 123m 456p 789s 55m with the robbed 5m, but it holds the skin C.
    r = win(1, [Seat(), Seat("123m 456p 789s 5m", pong("E")), Seat(), Seat()], how="robbed_kong", tile="5m", source=3)
    assert isinstance(r, Settlement)
    r = win(1, [Seat(), Seat("123m 456p 78s 5m C", pong("E")), Seat(), Seat()], how="robbed_kong", tile="5m", source=3)
    assert isinstance(r, Refusal) and r.code == "holds_skin"


def test_each_line_is_a_pairwise_payment_adding_up_to_the_deltas():
    s = win(1, [Seat(), ALL_CLAIMED, Seat(LOOSE), Seat()], how="discard", tile="5m", source=2, base_score=2)
    assert s.payments() == tuple((2, 1, line.amount * 2) for line in s.lines)
    deltas = [0] * 4
    for payer, payee, score in s.payments():
        deltas[payer] -= score
        deltas[payee] += score
    assert tuple(deltas) == s.deltas
