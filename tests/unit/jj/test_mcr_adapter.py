"""The 81 MCR fans come from PyMahjongGB: classic hands spot-checked through the adapter, so a
mistake in the input format (tile names, packs, the winning tile) cannot hide."""

from engine.jj.mcr import pack_of
from engine.mahjong.melds import CHOW, KONG_CONCEALED, PONG, Meld
from engine.mahjong.tiles import parse_tile
from tests.unit.jj.hands import fans, score


def test_thirteen_orphans_is_88():
    assert fans("19m 19p 19s ESWNCFP 9s", win="9s")["十三幺"] == 88


def test_seven_pairs_is_24():
    assert fans("1133m 5577p 22s EE CC", win="C")["七对"] == 24


def test_pure_triple_chow_is_24():
    # Concealed, 111222333m would read better as pungs (一色三节高 + 三暗刻); melded chows cannot.
    got = fans("123m 456p 99s", win="9s", melded=("chow 1m", "chow 1m"))
    assert got["一色三同顺"] == 24


def test_knitted_straight_is_12():
    got = fans("147m 258p 369s 123m EE", win="E")
    assert got["组合龙"] == 12


def test_lesser_honors_and_knitted_tiles_is_12():
    got = fans("147m 258p 36s ESWNCF", win="F")
    assert got["全不靠"] == 12


def test_nine_gates_is_88():
    assert fans("1112345678999m 5m", win="5m")["九莲宝灯"] == 88


def test_dragon_pungs_wind_pungs_and_seat_wind_from_the_situation():
    got = fans("CCC FFF 123m 456p SS", win="S", seat_wind=1)
    assert got["双箭刻"] == 6
    got = fans("SSS 234m 456p 789s CC", win="C", seat_wind=1, round_wind=1)
    assert got["圈风刻"] == 2 and got["门风刻"] == 2


def test_melds_are_packs_all_pungs_and_fully_concealed():
    got = fans("99s", win="9s", melded=("pong 1m", "pong 3s", "pong E", "pong 7p"))
    assert got["碰碰和"] == 6
    got = fans("123m 456m 789m 234p 55s", win="5s", self_drawn=True)
    assert got["不求人"] == 4 and got["清龙"] == 16


def test_flowers_are_never_passed_to_pymahjonggb():
    # PyMahjongGB counts 1 per flower; jj's 花牌 is 2 per flower and its own fan.
    got = fans("123m 456m 789m 234p 55s", win="5s", flowers=3)
    assert got["花牌"] == 6


def test_pack_of_a_chow_names_its_middle_tile_and_a_pong_its_feeder():
    assert pack_of(Meld(CHOW, parse_tile("3s"), 3), 0) == ("CHI", "T4", 1)
    assert pack_of(Meld(PONG, parse_tile("C"), 3), 0) == ("PENG", "J1", 1)
    assert pack_of(Meld(PONG, parse_tile("E"), 2), 0) == ("PENG", "F1", 2)
    assert pack_of(Meld(KONG_CONCEALED, parse_tile("9p"), None), 0) == ("GANG", "B9", 0)


def test_a_hand_that_does_not_win_scores_nothing():
    assert score("123m 456p 789s EE 1p", win="1p") is None
