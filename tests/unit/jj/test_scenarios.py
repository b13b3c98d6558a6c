"""The fixed deals of tests/scenarios/jj/ (docs/scenarios/jj.md) play out as jj.md says: one test
per JJ addition and per scoring rule, read off the Won events."""

from __future__ import annotations

import json
from pathlib import Path

from engine.jj.events import Won
from engine.scenario import run_scenario

FOLDER = Path(__file__).resolve().parents[2] / "scenarios" / "jj"


def play(name: str):
    return run_scenario(json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8")))


def wins(name: str) -> list[Won]:
    return [e for e in play(name).events if isinstance(e, Won)]


def fans_of(won: Won) -> dict[str, int]:
    return {f.name: f.total for f in won.scored.fans}


def test_heavenly_win_48_without_fully_concealed_and_paid_as_a_self_draw():
    (won,) = wins("heavenly_win")
    got = fans_of(won)
    assert won.seat == 0 and won.how == "self_draw" and got["天胡"] == 48
    assert not {"不求人", "自摸", "门前清"} & set(got)
    # 73 fans × 1.5 = 109.5, a third each: 36.5 -> 37 / 37 / 37 (each payment rounded on its own).
    assert won.scored.total == 73 and won.deltas == (111, -37, -37, -37)


def test_earthly_win_24_on_a_non_dealers_first_draw():
    (won,) = wins("earthly_win")
    assert won.seat == 1 and fans_of(won)["地胡"] == 24 and "不求人" in won.scored.excluded


def test_human_win_16_on_the_dealers_first_discard_which_the_discarder_pays():
    (won,) = wins("human_win")
    got = fans_of(won)
    assert got["人胡"] == 16 and "门前清" not in got
    assert won.deltas == (-won.scored.total, won.scored.total, 0, 0)


def test_four_wilds_32():
    (won,) = wins("four_wilds")
    got = fans_of(won)
    assert got["四混"] == 32 and "无混" not in got and len(won.scored.wild_for) == 4


def test_four_gentlemen_24_after_replacing_every_flower():
    (won,) = wins("four_gentlemen")
    got = fans_of(won)
    assert got["四君子"] == 24 and "花牌" not in got and "花牌" in won.scored.excluded


def test_heavenly_ready_16_instead_of_declared_ready():
    (won,) = wins("heavenly_ready")
    got = fans_of(won)
    assert got["天听"] == 16 and "报听" not in got


def test_declared_ready_3_and_the_locked_hand_discards_by_itself():
    result = play("declared_ready")
    (won,) = [e for e in result.events if isinstance(e, Won)]
    assert fans_of(won)["报听"] == 3 and "天听" not in fans_of(won)
    assert won.scored.total - won.scored.counted == 3 + 2  # 报听 and 无混 are not counted toward 8


def test_no_wild_win_and_pair_of_258_each_2():
    (won,) = wins("human_win")
    got = fans_of(won)
    assert got["无混"] == 2 and got["胡"] == 2 and got["二五八将"] == 2


def test_mixed_dragon_2_and_pair_of_terminals_1():
    (won,) = wins("mixed_dragon")
    got = fans_of(won)
    assert got["混龙"] == 2 and got["幺九头"] == 1


def test_a_claimed_pong_costs_its_feeder_20_percent_and_the_discarder_the_rest():
    (won,) = wins("claimed_pong_pays_its_share")
    total = won.scored.total  # 25 -> 20% = 5
    assert [(p.payer, p.points, p.reason) for p in won.payments] == [(0, 5, "part"), (2, total - 5, "discard")]


def test_xuezhan_self_draw_is_three_times_and_the_others_play_on():
    result = play("xuezhan_self_draw_and_play_on")
    first, *later = [e for e in result.events if isinstance(e, Won)]
    assert "胡" not in fans_of(first)
    assert first.deltas[1] == 3 * first.scored.total
    assert later and all(w.seat != first.seat for w in later)
    assert sum(result.result.deltas) == 0


def test_a_drawn_hand_keeps_the_dealer():
    result = play("drawn_hand_keeps_the_dealer")
    assert result.result.outcome == "draw"
    assert result.state.table.dealer == 2


def test_earthly_win_counts_after_a_flower_and_a_flower_replacement_is_not_a_kong_replacement():
    (won,) = wins("earthly_win_after_a_flower")
    got = fans_of(won)
    assert got["地胡"] == 24 and "杠上开花" not in got and got["花牌"] == 2


def test_pong_beats_chow():
    from engine.jj.events import Chowed
    from engine.mahjong.actions import Ponged

    events = play("pong_beats_chow").events
    assert [(e.seat, str(e.tile)) for e in events if isinstance(e, Ponged)] == [(2, "3p")]
    assert not [e for e in events if isinstance(e, Chowed)]


def test_robbing_an_added_kong_wins_with_its_mcr_fan_and_the_kong_maker_pays():
    (won,) = wins("robbing_a_kong")
    assert won.how == "robbed_kong" and fans_of(won)["抢杠和"] == 8
    assert [(p.payer, p.reason) for p in won.payments] == [(1, "discard")]


def test_xuezhan_the_last_tile_counts_an_earlier_winners_shown_tile_among_those_seen():
    # Seat 1 self-draws the first 3s; seats 2 and 3 discard one each; the dealer self-draws the
    # fourth, the three others seen: one of them only in seat 1's shown hand.
    first, last = wins("xuezhan_last_tile_shown_by_a_winner")
    assert (first.seat, str(first.tile), last.seat, str(last.tile)) == (1, "3s", 0, "3s")
    assert "3s" in [str(t) for t in first.hand]
    assert fans_of(last)["和绝张"] == 4


def test_xuezhan_a_table_recorded_before_rules_3_did_not_count_the_winners_tiles_as_seen():
    spec = json.loads((FOLDER / "xuezhan_last_tile_shown_by_a_winner.json").read_text(encoding="utf-8"))
    played = run_scenario({**spec, "options": {**spec["options"], "winners_hands_seen": 0}})
    last = [e for e in played.events if isinstance(e, Won)][-1]
    assert last.seat == 0 and "和绝张" not in fans_of(last)
