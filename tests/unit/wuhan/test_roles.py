"""赖子 and 赖子皮 (rules/wuhan.md, "赖子 (wild) and 赖子皮"): every example of the spec."""

from __future__ import annotations

import pytest

from engine.mahjong.tiles import parse_tile
from engine.wuhan.roles import Roles


def roles(indicator: str) -> tuple[str, tuple[str, str]]:
    r = Roles(parse_tile(indicator))
    return str(r.laizi), (str(r.skins[0]), str(r.skins[1]))


@pytest.mark.parametrize(
    "indicator, laizi, skins",
    [
        ("5m", "6m", ("5m", "4m")),
        ("9m", "1m", ("9m", "8m")),
        ("C", "F", ("C", "N")),
        ("P", "E", ("P", "F")),
    ],
)
def test_the_laizi_is_the_kind_after_the_indicator_and_the_skins_the_indicator_and_the_kind_before(indicator, laizi, skins):
    assert roles(indicator) == (laizi, skins)


def test_number_tiles_wrap_within_their_suit_both_ways():
    assert roles("1p") == ("2p", ("1p", "9p"))
    assert roles("9s") == ("1s", ("9s", "8s"))


def test_honors_cycle_east_south_west_north_red_green_white():
    assert [roles(t)[0] for t in "ESWNCFP"] == ["S", "W", "N", "C", "F", "P", "E"]
    assert roles("E")[1] == ("E", "P")


def test_laizi_and_skins_are_special_tiles():
    r = Roles(parse_tile("5m"))
    assert [t for t in ("4m", "5m", "6m", "7m") if r.is_special(parse_tile(t))] == ["4m", "5m", "6m"]
    assert r.is_laizi(parse_tile("6m")) and r.is_skin(parse_tile("4m")) and not r.is_skin(parse_tile("6m"))
