"""The scenario files of tests/scenarios/koudian/ (the seed's examples) run as the rules say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.scenario import ScenarioError, run_scenario

FOLDER = Path(__file__).resolve().parents[2] / "scenarios" / "koudian"

# file -> (outcome, points, deltas)
EXPECTED = {
    "seed_self_drawn_3p_wins_6.json": ("self_draw", 6, (-6, 18, -6, -6)),
    "seed_discarded_6p_wins_6.json": ("discard_win", 6, (0, 18, -18, 0)),
    "seed_self_drawn_6p_wins_12.json": ("self_draw", 12, (-12, 36, -12, -12)),
    "concealed_kong_replacement_wins_as_self_draw.json": ("kong_self_draw", 12, (-12, 36, -12, -12)),
    "robbed_kong_maker_pays_for_three.json": ("robbed_kong", 8, (0, 24, -24, 0)),
}


def load(name: str) -> dict:
    return json.loads((FOLDER / name).read_text(encoding="utf-8"))


def test_every_scenario_file_is_checked_here():
    assert {p.name for p in FOLDER.glob("*.json")} == {*EXPECTED, "seed_discarded_3p_cannot_be_won.json"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_scenario_settles_as_the_rules_say(name):
    result = run_scenario(load(name)).result
    assert (result.outcome, result.points, result.deltas) == EXPECTED[name]


def test_the_seeds_discarded_3p_stops_the_scenario_with_the_rule():
    with pytest.raises(ScenarioError) as exc:
        run_scenario(load("seed_discarded_3p_cannot_be_won.json"))
    assert exc.value.code == "below_threshold"
    assert exc.value.action_number == 4
    assert "6 or more" in exc.value.message
