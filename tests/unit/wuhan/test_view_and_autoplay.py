"""A seat's view, what auto-play (托管) does on a time-out, and the errors of illegal moves."""

from __future__ import annotations

import pytest

from engine.core.errors import RuleViolation
from engine.mahjong.actions import Discard, Pass, Win
from engine.mahjong.tiles import parse_tile, parse_tiles
from engine.wuhan import RULESET
from engine.wuhan.options import make_options

from .table import Table, scenario

SMALL = "small_win_on_a_discard"


def test_a_seat_sees_its_own_hand_the_public_table_and_the_indicator():
    t = Table.of(SMALL, 2)  # seat 1 ponged E
    v = RULESET.view(t.state, 1)
    assert v.phase == "turn" and v.turn == 1 and v.hand == tuple(sorted(parse_tiles("123m 456p 789s 5m 9p")))
    assert (v.indicator, v.laizi, v.skins) == (parse_tile("N"), parse_tile("C"), parse_tiles("N W"))
    assert v.hand_sizes == (13, 11, 13, 13) and v.wall_live == 72
    other = RULESET.view(t.state, 2)
    assert other.hand == tuple(sorted(parse_tiles("2m 6m 8m 3p 7p 9p 1s 4s 8s S F P 2s"))) and other.drawn is None
    assert RULESET.view(t.state, None).hand == ()


def test_another_seats_concealed_kong_shows_no_tile():
    d = dict(scenario(SMALL)["deal"])
    d["hands"] = ["1m 4m 7m 2p 5p 8p 3s 9s 6666s S F", *d["hands"][1:]]
    t = Table(d)
    t.act(0, "kong", "6s")
    assert RULESET.view(t.state, 0).melds[0][0].tile == parse_tile("6s")
    assert RULESET.view(t.state, 1).melds[0][0].tile is None


def test_auto_play_wins_when_it_may_and_passes_every_claim():
    t = Table.of(SMALL, 5)
    assert RULESET.deadline(t.state).defaults == {1: Win(1)}
    t = Table.of(SMALL, 0)
    t.act(0, "discard", "E")
    assert RULESET.deadline(t.state).defaults == {1: Pass(1)}


def test_auto_play_discards_the_tile_just_drawn():
    t = Table.of(SMALL, 3)
    d = RULESET.deadline(t.state)
    assert d.defaults == {2: Discard(2, parse_tile("9s"))} and d.reason == "turn" and d.timeout_ms == 15_000


def test_auto_play_after_a_claim_discards_the_highest_ordinary_tile():
    t = Table.of(SMALL, 2)
    assert RULESET.deadline(t.state).defaults == {1: Discard(1, parse_tile("9s"))}


@pytest.mark.parametrize(
    "played, seat, action, tile, code",
    [
        (0, 1, "discard", "5m", "not_your_turn"),
        (0, 0, "discard", "5m", "tile_not_held"),
        (0, 0, "kong", "E", "no_kong"),
        (0, 0, "win", None, "nothing_to_win_on"),
        (1, 2, "pong", "E", "cannot_claim"),
        (1, 1, "pong", "9s", "wrong_tile"),
        (1, 1, "chow", "E", "cannot_chow"),
        (1, 3, "chow", "E", "cannot_chow"),
        (3, 2, "pass", None, "nothing_to_claim"),
    ],
)
def test_an_illegal_move_is_refused_with_its_rule(played, seat, action, tile, code):
    t = Table.of(SMALL, played)
    with pytest.raises(RuleViolation) as exc:
        t.act(seat, action, tile)
    assert exc.value.code == code


def test_bad_options_are_refused_by_name():
    with pytest.raises(ValueError, match="min_win"):
        make_options({"min_win": -1})
    with pytest.raises(ValueError, match="win_priority"):
        make_options({"win_priority": "random"})
    with pytest.raises(ValueError, match="unknown wuhan option 'seven_pairs'"):
        make_options({"seven_pairs": True})
    with pytest.raises(ValueError, match="caps must rise"):
        make_options({"cap": 900})


def test_a_bad_deal_names_the_bad_part():
    with pytest.raises(ValueError, match="indicator"):
        RULESET.fixed_deal({"hands": ["1m"] * 4}, b"")
    with pytest.raises(ValueError, match="last_four"):
        RULESET.fixed_deal({**scenario(SMALL)["deal"], "last_four": "1m 2m 3m 4m 5m"}, b"")
