"""Every scenario file of tests/scenarios/wuhan/ runs through `qipai scenario` as the rules say."""

from __future__ import annotations

import pytest

from engine.scenario import ScenarioError, run_scenario

from .table import FOLDER, scenario

# file -> (outcome, points, deltas)
EXPECTED = {
    "small_win_on_a_discard": ("discard_win", 20, (-8, 20, -4, -8)),
    "discarded_laizi_is_a_laizi_kong": ("discard_win", 44, (-8, 44, -4, -32)),
    "skin_kong_replacement_wins_kong_bloom": ("self_draw", 360, (-120, 360, -120, -120)),
    "robbed_added_kong_maker_pays_for_everyone": ("robbed_kong", 200, (0, 200, -200, 0)),
    "first_winner_from_the_dealer_takes_the_discard": ("discard_win", 40, (40, -16, -16, -8)),
    "first_winner_from_the_discarder_with_the_option": ("discard_win", 28, (-16, -8, 28, -4)),
    "last_four_self_draw_wins_hai_di_lao": ("self_draw", 180, (-60, 180, -60, -60)),
    "last_four_without_a_win_is_a_drawn_hand": ("draw", 0, (0, 0, 0, 0)),
    "unready_discarder_of_quan_qiu_ren_pays_for_everyone": ("discard_win", 2100, (0, 2100, -2100, 0)),
    "third_opening_of_one_suit_pays_for_everyone": ("self_draw", 720, (0, 720, 0, -720)),
}
STOPS = {"below_min_win_cannot_be_won": ("below_min_win", 6)}
UNFINISHED = {"exposed_kong_from_a_discard"}


def test_every_scenario_file_is_checked_here():
    assert {p.stem for p in FOLDER.glob("*.json")} == {*EXPECTED, *STOPS, *UNFINISHED}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_scenario_settles_as_the_rules_say_and_explains_itself(name):
    result = run_scenario(scenario(name)).result
    assert (result.outcome, result.points, result.deltas) == EXPECTED[name]
    assert len(result.explanation) == (0 if result.outcome == "draw" else 4)


@pytest.mark.parametrize("name", sorted(STOPS))
def test_a_scenario_stops_at_the_action_the_rules_refuse(name):
    with pytest.raises(ScenarioError) as exc:
        run_scenario(scenario(name))
    assert (exc.value.code, exc.value.action_number) == STOPS[name]


def test_an_unfinished_scenario_leaves_the_hand_in_play():
    assert run_scenario(scenario("exposed_kong_from_a_discard")).result is None
