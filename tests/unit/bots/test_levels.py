"""Bot levels: every ruleset has easy / normal / strong; a bot decides from its seat's view
alone (the same command on two tables that differ only in what the seat cannot see), and the
same seed gives the same decision; the strong bots play whole hands with only legal commands."""

from __future__ import annotations

import random

import pytest

from engine import rulesets
from engine.bots.levels import LEVELS, bot, check_level, command_for
from engine.daqi.cards import HEARTS
from engine.driver import apply, fold
from engine.selfplay import play
from tests.unit.daqi.tables import endgame

MAHJONG_DEALS = {
    "koudian": (
        {"dealer": 0, "hands": ["1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C", "123m 456m 789m 45p 99s",
                                "2m 5m 8m 3p 6p 9p 2s 5s 8s E S W F", "3m 6m 9m 1p 7p 1s 3s 6s 9s N C F P"],
         "wall": "9s 4s 1s N"},
        {"dealer": 0, "hands": ["1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C", "2m 5m 8m 3p 6p 9p 2s 5s 8s E S W F",
                                "3m 6m 9m 1p 7p 1s 3s 6s 9s N C F P", "123m 456m 789m 45p 99s"],
         "wall": "3p 3p 7m N"},
    ),
    "wuhan": (
        {"dealer": 0, "hands": ["1m 4m 7m 2p 5p 8p 3s 6s 9s E S F P 9m", "123m 456p 789s 5m 9p EE",
                                "2m 6m 8m 3p 7p 9p 1s 4s 8s S F P 2s", "3m 5m 9m 1p 6p 1s 2s 5s 7s S F P E"],
         "indicator": "N", "wall": "9s 4s 1s N", "tail": "5m"},
        {"dealer": 0, "hands": ["1m 4m 7m 2p 5p 8p 3s 6s 9s E S F P 9m", "3m 5m 9m 1p 6p 1s 2s 5s 7s S F P E",
                                "123m 456p 789s 5m 9p EE", "2m 6m 8m 3p 7p 9p 1s 4s 8s S F P 2s"],
         "indicator": "N", "wall": "1s 1s 3p N", "tail": "6m"},
    ),
    "jj": (
        {"dealer": 0, "hands": ["123m 456m 789m 11p 2p 9s C", "147m 258p 369s ESWN",
                                "111s 222s 333s 444s 5s", "ENWCF 55p 66p 77p 88p"], "indicator": "P", "tail": "9p"},
        {"dealer": 0, "hands": ["123m 456m 789m 11p 2p 9s C", "ENWCF 55p 66p 77p 88p",
                                "147m 258p 369s ESWN", "111s 222s 333s 444s 5s"], "indicator": "P", "tail": "9m"},
    ),
}


def dealt(name: str, deal: dict) -> object:
    rs = rulesets.get(name)
    state = fold(rs, rs.create("t", rs.new_options(None)))
    return apply(rs, state, rs.fixed_deal(deal, b"salt"), [])


@pytest.mark.parametrize("name", rulesets.available())
def test_every_ruleset_has_every_level(name):
    rs = rulesets.get(name)
    assert all(bot(rs, level) is rs.bots[level] for level in LEVELS)


def test_an_unknown_level_is_refused_by_name():
    with pytest.raises(ValueError, match="levels: easy, normal, strong"):
        check_level("grandmaster")


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(MAHJONG_DEALS))
def test_a_bot_decides_the_same_on_tables_that_differ_only_in_what_it_cannot_see(name, level):
    rs = rulesets.get(name)
    a, b = (dealt(name, deal) for deal in MAHJONG_DEALS[name])
    assert a != b and rs.view(a, 0) == rs.view(b, 0)
    for seed in (b"1", b"2", b"3"):
        assert command_for(rs, a, 0, level, seed) == command_for(rs, b, 0, level, seed)


@pytest.mark.parametrize("level", LEVELS)
def test_a_daqi_bot_decides_the_same_whoever_holds_the_cards_it_cannot_see(level):
    rs = rulesets.get("daqi")
    mine = "♠10 ♠K ♦6"
    a = endgame({0: "♠J ♦8 ♣3", 1: mine, 2: "♠A ♠Q ♣4", 3: "♦3 ♦9 ♣5", 4: "♦4 ♦J ♣6"},
                declarer=4, leader=1, trump_suit=HEARTS)
    b = endgame({0: "♦4 ♦J ♣6", 1: mine, 2: "♦3 ♦9 ♣5", 3: "♠A ♠Q ♣4", 4: "♠J ♦8 ♣3"},
                declarer=4, leader=1, trump_suit=HEARTS)
    assert a != b and rs.view(a, 1) == rs.view(b, 1)
    for seed in (b"1", b"2"):
        assert command_for(rs, a, 1, level, seed) == command_for(rs, b, 1, level, seed)


@pytest.mark.parametrize("name", rulesets.available())
def test_the_same_seed_gives_the_same_decisions(name):
    rs = rulesets.get(name)
    first = play(name, 2, 11, "strong", verify=False)
    again = play(name, 2, 11, "strong", verify=False)
    assert first.as_dict() == again.as_dict()
    assert rs.bots["strong"] is not rs.bots["normal"]


@pytest.mark.parametrize("name", rulesets.available())
def test_strong_bots_play_whole_checked_hands(name):
    # selfplay checks every hand: only legal commands, conservation, zero-sum, replay.
    summary = play(name, 6, 3, "strong")
    assert summary.hands == 6


def test_easy_is_the_tuo_guan_default():
    rs = rulesets.get("koudian")
    state = dealt("koudian", MAHJONG_DEALS["koudian"][0])
    assert command_for(rs, state, 0, "easy", b"x") is None
    assert bot(rs, "easy")(rs.view(state, 0), rs.legal_actions(state, 0), random.Random(1)) is None
