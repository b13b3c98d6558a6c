"""The bots pick only legal commands: greedy wins, declares ready and keeps useful tiles."""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.mahjong.actions import DeclareReady, Discard, Pass, Pong, Win
from engine.mahjong.bots import greedy_bot, random_bot
from engine.mahjong.melds import Meld
from engine.mahjong.tiles import parse_tile, parse_tiles


@dataclass
class View:
    seat: int
    hand: tuple
    melds: tuple = ((), (), (), ())


def discards(hand: str) -> list[Discard]:
    return [Discard(0, t) for t in sorted(set(parse_tiles(hand)))]


def test_the_random_bot_picks_a_legal_command():
    legal = discards("123m 456m 789m 1p 5p 9p E S")
    rng = random.Random(1)
    assert all(random_bot(None, legal, rng) in legal for _ in range(50))


def test_greedy_wins_when_it_can():
    assert greedy_bot(View(0, parse_tiles("123m 456m")), [Discard(0, parse_tile("1m")), Win(0)], random.Random(0)) == Win(0)


def test_greedy_discards_the_loose_honor_and_keeps_its_sets():
    hand = "123m 456m 789m 45p 9s N"
    choice = greedy_bot(View(0, parse_tiles(hand)), discards(hand), random.Random(0))
    assert choice.tile in parse_tiles("9s N")


def test_greedy_declares_ready_keeping_the_most_waits():
    hand = "123m 456m 789m 45p 9s E"
    legal = discards(hand) + [DeclareReady(0, parse_tile("E")), DeclareReady(0, parse_tile("9s"))]
    choice = greedy_bot(View(0, parse_tiles(hand)), legal, random.Random(0))
    assert isinstance(choice, DeclareReady)


def test_greedy_pongs_only_when_it_brings_the_hand_closer_to_ready():
    five = parse_tile("5p")
    useful = "123m 456m 55p 19s E S W"  # 55p is a loose pair: the pong makes a set
    legal = [Pong(1, five), Pass(1)]
    assert greedy_bot(View(1, parse_tiles(useful)), legal, random.Random(0)) == Pong(1, five)
    ready = "123m 456m 789m 55p 67s"  # already ready: a pong of the pair only breaks the pair
    assert greedy_bot(View(1, parse_tiles(ready)), legal, random.Random(0)) == Pass(1)


def test_greedy_counts_its_melds():
    view = View(0, parse_tiles("456m 789m 45p 9s E"), melds=((Meld("pong", parse_tile("C")),), (), (), ()))
    choice = greedy_bot(view, discards("456m 789m 45p 9s E"), random.Random(0))
    assert choice.tile in parse_tiles("9s E")
