"""`qipai replay` shows every fan of a jj win with its value, and what was excluded."""

from clients.operator import fan_lines
from engine.jj.fans import Fan
from engine.jj.winning import Scored
from engine.mahjong.tiles import parse_tile


def test_a_win_lists_each_fan_name_and_value_and_the_exclusions():
    scored = Scored((Fan("天胡", 48), Fan("幺九刻", 1, 2)), ("不求人",), 50, 50, (), parse_tile("5s"))

    class Won:
        pass

    ev = Won()
    ev.scored = scored
    assert fan_lines(ev) == ["        天胡 48番", "        幺九刻 2番 (1×2)", "        = 50番; 不计 不求人"]


def test_events_without_fans_print_nothing():
    assert fan_lines(object()) == []
