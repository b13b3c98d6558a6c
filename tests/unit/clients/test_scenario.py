"""`qipai scenario`: an `expect` block turns a reproduced dispute into a regression test;
`--seat N` shows what one seat saw; a run stopped by a rejected move still shows what came before."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from clients.scenario import main, run_and_check

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
WITH_EXPECT = sorted(p for p in SCENARIOS.glob("*/*.json") if "expect" in json.loads(p.read_text("utf-8")))
SELF_DRAW = SCENARIOS / "koudian" / "seed_self_drawn_6p_wins_12.json"
REJECTED = SCENARIOS / "koudian" / "seed_discarded_3p_cannot_be_won.json"


def load(path: Path, **expect) -> dict:
    spec = json.loads(path.read_text("utf-8"))
    if expect:
        spec["expect"] = expect
    return spec


def run_cli(tmp_path: Path, spec: dict, seat: int | None = None, capsys=None) -> tuple[int, dict | None, str]:
    file = tmp_path / "scenario.json"
    file.write_text(json.dumps(spec, ensure_ascii=False), "utf-8")
    code = main(SimpleNamespace(file=str(file), seat=seat))
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else None, err


@pytest.mark.parametrize("path", WITH_EXPECT, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_scenario_files_expectations_hold(path):
    assert run_and_check(json.loads(path.read_text("utf-8"))).problems == []


def test_the_scenario_folders_carry_expectations_of_every_kind():
    kinds = {key for p in WITH_EXPECT for key in json.loads(p.read_text("utf-8"))["expect"]}
    assert kinds == {"outcome", "points", "payments", "winners", "rejected", "views"}


def test_a_payment_that_differs_is_named_with_both_amounts():
    run = run_and_check(load(SELF_DRAW, payments=[-12, 36, -24, 0], winners=[1]))
    assert run.problems == ["payments: expected [-12, 36, -24, 0], got [-12, 36, -12, -12]"]


def test_the_wrong_winner_is_named():
    assert run_and_check(load(SELF_DRAW, winners=[2])).problems == ["winners: expected [2], got [1]"]


def test_a_seats_view_matches_tiles_in_notation_in_any_order_and_names_a_difference():
    good = {"seat": 1, "after": 2, "hand": "99s 45p 789m 456m 123m", "waits": "6p 3p"}
    assert run_and_check(load(SELF_DRAW, views=[good])).problems == []
    bad = {"seat": 1, "after": 2, "hand": "123m 456m 789m 45p 88s"}
    (problem,) = run_and_check(load(SELF_DRAW, views=[bad])).problems
    assert problem.startswith("seat 1's view at action 2: hand: expected \"123m 456m 789m 45p 88s\", got [")


def test_a_view_field_that_does_not_exist_lists_the_fields_there_are():
    (problem,) = run_and_check(load(SELF_DRAW, views=[{"seat": 0, "after": 0, "hands": "1m"}])).problems
    assert "has no field 'hands'; it has" in problem and "hand," in problem


def test_an_expected_rejection_at_another_action_or_with_another_rule_fails():
    run = run_and_check(load(REJECTED, rejected={"action": 3, "code": "below_threshold"}))
    assert run.problems == ["rejected: expected action 3 with below_threshold, got action 4 with "
                            "below_threshold (3p is worth 3; a discard must be worth 6 or more to win on.)"]
    accepted = run_and_check(load(SELF_DRAW, rejected={"action": 2, "code": "not_ready"}))
    assert accepted.problems == ["action 2 should have been rejected (not_ready), but every action was accepted"]


def test_an_unexpected_rejection_is_a_failed_expectation():
    assert run_and_check(load(REJECTED, outcome="discard_win")).problems == [
        "action 4 was rejected: below_threshold: 3p is worth 3; a discard must be worth 6 or more to win on."]


def test_the_cli_reports_met_expectations_and_exits_0(tmp_path, capsys):
    code, out, err = run_cli(tmp_path, load(SELF_DRAW), capsys=capsys)
    assert code == 0 and out["result"]["deltas"] == [-12, 36, -12, -12]
    assert "expect: all 8 expectation(s) met" in err


def test_the_cli_exits_1_naming_each_failed_expectation(tmp_path, capsys):
    code, _, err = run_cli(tmp_path, load(SELF_DRAW, points=6, outcome="discard_win"), capsys=capsys)
    assert code == 1
    assert "expect: outcome: expected \"discard_win\", got \"self_draw\"" in err
    assert "expect: points: expected 6, got 12" in err


def test_a_run_stopped_by_a_rejected_move_prints_the_events_before_it(tmp_path, capsys):
    spec = load(REJECTED)
    del spec["expect"]
    code, out, err = run_cli(tmp_path, spec, capsys=capsys)
    assert code == 1 and "stopped at action 4 (event 12): below_threshold" in err
    # Each face-up discard opens a claim window (docs/hidden-information.md): two more events.
    assert out["stopped"] == {"action": 4, "event": 12, "code": "below_threshold",
                              "message": "3p is worth 3; a discard must be worth 6 or more to win on."}
    assert [e["n"] for e in out["events"]] == list(range(1, 12))
    assert out["events"][-1]["type"] == "mahjong.TileDrawn" and out["result"] is None


def test_seat_shows_only_what_that_seat_saw(tmp_path, capsys):
    code, out, _ = run_cli(tmp_path, load(SELF_DRAW), seat=2, capsys=capsys)
    assert code == 0 and out["seat"] == 2 and out["view"]["seat"] == 2
    started = next(e for e in out["events"] if e["type"] == "koudian.HandStarted")
    assert [len(d) for d in started["data"]["dealt"]] == [0, 0, 13, 0]
    assert started["data"]["order"] is None and started["data"]["seed"] is None
    ready = next(e for e in out["events"] if e["type"] == "koudian.ReadyDeclared")
    assert ready["data"]["seat"] == 1 and ready["data"]["tile"] is None  # face down to seat 2
    draws = [e["data"] for e in out["events"] if e["type"] == "mahjong.TileDrawn"]
    assert all(d["tile"] is None for d in draws if d["seat"] != 2)


def test_seat_out_of_range_and_a_bad_expect_block_are_clear_errors(tmp_path, capsys):
    code, _, err = run_cli(tmp_path, load(SELF_DRAW), seat=4, capsys=capsys)
    assert code == 2 and "--seat 4: a koudian table has seats 0 to 3" in err
    code, _, err = run_cli(tmp_path, load(SELF_DRAW, payment=[1]), capsys=capsys)
    assert code == 2 and "expect: unknown key(s) ['payment']" in err
