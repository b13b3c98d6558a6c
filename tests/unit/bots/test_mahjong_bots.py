"""The strong mahjong bot's decisions, one test per decision, on views written as a player reads
the table (koudian, wuhan and jj configure the same player, engine.bots.mahjong)."""

from __future__ import annotations

import random

from engine.bots.pair258 import shanten_258
from engine.jj.bots import strong_bot as jj_strong
from engine.koudian.bots import strong_bot as koudian_strong
from engine.mahjong.actions import DeclareReady, Discard, Kong, Pass, Pong, Win
from engine.mahjong.melds import Meld
from engine.mahjong.shanten import shanten
from engine.mahjong.tiles import counts, face_value, parse_tile, parse_tiles
from engine.wuhan.bots import strong_bot as wuhan_strong

from .views import discards, jj, koudian, wuhan


def rng() -> random.Random:
    return random.Random(7)


def t(text: str):
    return parse_tile(text)


def test_wins_whenever_it_may():
    view = koudian("123m 456m 789m 123p 55s")
    assert koudian_strong(view, [*discards(view), Win(0)], rng()) == Win(0)


def test_discards_the_isolated_honour_first():
    view = koudian("123m 456m 789m 1p 5p 99s E")
    assert koudian_strong(view, discards(view), rng()) == Discard(0, t("E"))


def test_breaks_the_edge_wait_before_a_two_sided_one():
    # 12p waits on 3p alone, 45p on 3p and 6p, 78s on 6s and 9s: the edge goes.
    view = koudian("123m 456m 99s 12p 45p 78s")
    assert koudian_strong(view, discards(view), rng()).tile in parse_tiles("1p 2p")


def test_declares_ready_on_a_wait_it_may_win_on():
    # Either single makes the hand ready on the other, but a 1 can never win in koudian
    # (a self-draw needs 3 points, a discard 6); the E wait is worth 10.
    view = koudian("123m 456m 789m 234s 1p E")
    legal = [*discards(view), DeclareReady(0, t("1p")), DeclareReady(0, t("E"))]
    assert koudian_strong(view, legal, rng()) == DeclareReady(0, t("1p"))


def test_does_not_declare_ready_on_waits_it_may_never_win_on():
    view = koudian("123m 456m 789m 234s 1p 2p")
    legal = [*discards(view), DeclareReady(0, t("1p")), DeclareReady(0, t("2p"))]
    assert not isinstance(koudian_strong(view, legal, rng()), DeclareReady)


FAR_FROM_READY = "19m 19p 19s 8m 8p 8s 5m E S W N"


def test_far_from_ready_it_does_not_feed_a_ready_seat_a_tile_it_may_win_on():
    # Seat 1 has declared ready (its face-down discard is "?"); a discard under 6 cannot be won
    # on in koudian, and one that is not ready pays for all three when it feeds a ready seat.
    view = koudian(FAR_FROM_READY, rivers=("", "3m ?", "", ""), ready=(False, True, False, False))
    choice = koudian_strong(view, discards(view), rng())
    assert face_value(choice.tile) < 6


def test_without_a_threat_the_same_hand_throws_a_loose_honour():
    view = koudian(FAR_FROM_READY)
    assert koudian_strong(view, discards(view), rng()).tile >= 27


def test_does_not_feed_a_ready_seat_a_possible_wait_but_throws_what_it_let_pass():
    # Seat 2 declared ready ("?" is its face-down discard), then let 9p go by: it would have
    # won on it, so 9p is safe; every other tile here is worth 6 or more and might be its wait.
    view = koudian("679m 9p 689s E S W N C F P", rivers=("", "", "1m ? 9p", ""), ready=(False, False, True, False))
    assert koudian_strong(view, discards(view), rng()) == Discard(0, t("9p"))


def test_pongs_when_it_brings_the_hand_closer_to_ready():
    view = koudian("123m 456m 55p 19s E S W", phase="claims", claim_tile="5p", turn=3, seat=1)
    assert koudian_strong(view, [Pong(1, t("5p")), Pass(1)], rng()) == Pong(1, t("5p"))


def test_does_not_pong_a_pair_its_ready_hand_needs():
    view = koudian("123m 456m 789m 55p 67s", phase="claims", claim_tile="5p", turn=3, seat=1)
    assert koudian_strong(view, [Pong(1, t("5p")), Pass(1)], rng()) == Pass(1)


def test_passes_a_claim_while_folding_against_a_ready_seat():
    view = koudian("19m 19p 55s E S W N C F", phase="claims", claim_tile="5s", turn=2, seat=1,
                   rivers=("", "", "", "2m ?"), ready=(False, False, False, True))
    assert koudian_strong(view, [Pong(1, t("5s")), Pass(1)], rng()) == Pass(1)


def test_a_two_five_eight_pair_is_what_wuhan_s_small_win_needs():
    assert shanten(counts(parse_tiles("123m 456m 789m 123p 66s"))) == -1
    assert shanten_258(counts(parse_tiles("123m 456m 789m 123p 66s"))) > -1
    assert shanten_258(counts(parse_tiles("123m 456m 789m 123p 55s"))) == -1


def test_keeps_a_two_five_eight_pair_in_wuhan():
    # Counting shanten without the 2-5-8 rule, breaking 556m at a 5 looks as good as anything;
    # but 11p cannot be a 小胡's pair, so the 55m pair stays.
    view = wuhan("556m 11456p 345789s", laizi="E")
    assert wuhan_strong(view, discards(view), rng()).tile != t("5m")


def test_never_throws_the_laizi_in_wuhan():
    view = wuhan("123m 456m 789m 55p 3s E 9p", laizi="E")
    assert wuhan_strong(view, discards(view), rng()).tile != t("E")


def test_lays_out_a_skin_at_once_in_wuhan():
    view = wuhan("123m 456m 789m 55p 3s N 9p", laizi="E", skins="N")
    legal = [*discards(view), Kong(0, t("N"))]
    assert wuhan_strong(view, legal, rng()) == Kong(0, t("N"))


def test_counts_the_hun_as_wild_in_jj():
    # With 混 = 2m, 123m 456m 789m 55p 3s 2m is one tile from ready whatever it throws of 9p / E;
    # it keeps the 混 (never offered) and throws a loose tile.
    view = jj("123m 456m 789m 55p 3s 2m 9p E", wild="2m")
    assert jj_strong(view, discards(view, but="2m"), rng()).tile in parse_tiles("9p E 3s")


def test_concealed_kong_only_when_the_hand_stays_as_close():
    view = koudian("1111m 456m 789m 55p 67s")
    legal = [*discards(view), Kong(0, t("1m"))]
    assert koudian_strong(view, legal, rng()) == Kong(0, t("1m"))
    melded = koudian("456m 789m 55p 67s 1m", melds=((Meld("pong", t("1m")),), (), (), ()))
    assert koudian_strong(melded, [*discards(melded), Kong(0, t("1m"))], rng()) == Kong(0, t("1m"))
