"""One test per JJ addition (jj.md's table), with its default exclusions."""

from tests.unit.jj.hands import fans, score

PLAIN = "123m 456m 789p 234s 55p"  # a plain concealed hand with a 2-5-8 pair


def test_heavenly_win_is_48_and_drops_fully_concealed_self_drawn_and_concealed_hand():
    s = score(PLAIN, win="5p", self_drawn=True, heavenly=True)
    assert s is not None
    names = {f.name: f.total for f in s.fans}
    assert names["天胡"] == 48
    assert "不求人" not in names and "自摸" not in names and "门前清" not in names
    assert "不求人" in s.excluded


def test_four_wilds_is_32_and_drops_no_wild():
    got = fans("123m 456p 789s 1s CCCC", win="1s", wild="C")
    assert got["四混"] == 32 and "无混" not in got


def test_earthly_win_is_24_and_drops_fully_concealed_self_drawn_and_concealed_hand():
    got = fans(PLAIN, win="5p", self_drawn=True, earthly=True)
    assert got["地胡"] == 24 and not {"不求人", "自摸", "门前清"} & set(got)


def test_four_gentlemen_is_24_and_drops_the_flower_fans():
    got = fans(PLAIN, win="5p", flowers=4)
    assert got["四君子"] == 24 and "花牌" not in got


def test_human_win_is_16_and_drops_concealed_hand():
    got = fans(PLAIN, win="5p", human=True)
    assert got["人胡"] == 16 and "门前清" not in got


def test_heavenly_ready_is_16_and_drops_declared_ready():
    got = fans(PLAIN, win="5p", declared_ready=True, heavenly_ready=True)
    assert got["天听"] == 16 and "报听" not in got


def test_declared_ready_is_3_and_2_in_xuezhan():
    assert fans(PLAIN, win="5p", declared_ready=True)["报听"] == 3
    assert fans(PLAIN, win="5p", declared_ready=True, xuezhan=True)["报听"] == 2


def test_no_wild_is_2_only_when_the_table_plays_with_wilds():
    assert fans(PLAIN, win="5p", wild="E")["无混"] == 2
    assert "无混" not in fans(PLAIN, win="5p")


def test_mixed_dragon_is_2_for_123_456_789_in_two_suits():
    assert fans(PLAIN, win="5p")["混龙"] == 2


def test_mixed_dragon_is_not_counted_with_pure_straight_or_knitted_dragon():
    got = fans("123m 456m 789m 234s 55p", win="5p")
    assert got["清龙"] == 16 and "混龙" not in got
    got = fans("123m 456p 789s 234s 55p", win="5p")
    assert got["花龙"] == 8 and "混龙" not in got


def test_win_is_2_on_any_win_but_not_in_xuezhan():
    assert fans(PLAIN, win="5p")["胡"] == 2
    assert "胡" not in fans(PLAIN, win="5p", xuezhan=True)


def test_pair_of_2_5_8_is_2():
    assert fans(PLAIN, win="5p")["二五八将"] == 2
    assert "二五八将" not in fans("123m 456m 789p 234s EE", win="E")


def test_pair_of_1_or_9_is_1_but_not_with_all_terminals():
    assert fans("123m 456m 789p 234s 99s", win="9s")["幺九头"] == 1
    got = fans("111m 999m 111p 999p 11s", win="1s")
    assert "清幺九" in got and "幺九头" not in got


def test_flowers_are_2_fans_each():
    assert fans(PLAIN, win="5p", flowers=2)["花牌"] == 4


def test_declared_ready_and_no_wild_do_not_count_toward_the_minimum():
    s = score(PLAIN, win="5p", wild="E", declared_ready=True)
    assert s is not None and s.total - s.counted == 3 + 2


def test_a_wild_counts_as_the_tile_it_stands_for_for_every_fan():
    # 1m..9m with one 混 (C) for the missing 5m: 清龙 as if 5m were held.
    got = fans("12346789m 234s 55p C", win="9m", wild="C")
    assert got["清龙"] == 16 and "无混" not in got


def test_the_wild_winning_tile_may_count_as_any_tile_it_completes():
    s = score("123m 456m 789m 234s 5p C", win="C", wild="C", self_drawn=True)
    assert s is not None and s.win_as == s.wild_for[0]


# Rules revision 3: the pair and the set beside a 组合龙 are read like any hand's.
KNITTED_WITH_258_PAIR = "147m 258p 369s 456m 55p"


def test_pair_of_2_5_8_counts_beside_a_knitted_straight():
    s = score(KNITTED_WITH_258_PAIR, win="6m", wild="E")
    assert s is not None and {f.name: f.total for f in s.fans}["二五八将"] == 2
    # 组合龙 12, 门前清 2, 平和 2, 无混 2, 胡 2 and 二五八将 2.
    assert s.total == 22
    assert fans("147m 258p 369s 55p", win="5p", melded=("chow 4m",))["二五八将"] == 2  # the set melded
    assert fans("147m 258p 369s 5p C", win="5p", melded=("pong E",), wild="C")["二五八将"] == 2  # a 混 in the pair
    assert fans("147m 258p 369s 999m 88s", win="9m")["二五八将"] == 2


def test_pair_of_1_or_9_counts_beside_a_knitted_straight():
    assert fans("147m 258p 369s 789p 11m", win="1m")["幺九头"] == 1
    assert fans("147m 258p 369s 123p 99s", win="9s")["幺九头"] == 1


def test_a_knitted_straight_is_no_chows_for_mixed_dragon():
    # 147m 258p 369s is not 123 456 789: beside it one chow, never 混龙.
    assert "混龙" not in fans("147m 258p 369s 123m 55p", win="5p")
    assert "混龙" not in fans("147m 258p 369s 55p", win="5p", melded=("chow 7p",))


def test_a_table_recorded_before_rules_3_read_no_pair_beside_a_knitted_straight():
    s = score(KNITTED_WITH_258_PAIR, win="6m", wild="E", knitted_reads_pair=False)
    assert s is not None and s.total == 20 and "二五八将" not in {f.name for f in s.fans}
