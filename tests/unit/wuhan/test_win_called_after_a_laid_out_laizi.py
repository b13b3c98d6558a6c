"""A win called right after a seat laid out a 赖子 is refused (nobody may claim a laid-out 赖子)
with a sentence about that 赖子, not about the discard before it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.scenario import ScenarioError, run_scenario

SPEC = Path(__file__).resolve().parents[2] / "scenarios" / "wuhan" / "discarded_laizi_is_a_laizi_kong.json"


def test_a_win_called_on_a_laid_out_laizi_is_refused_naming_the_laizi():
    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    # Seat 2 discards 9s, seat 3 lays out the 赖子 C and draws its replacement; seat 1 calls a win.
    spec["actions"] = [*spec["actions"][:5], {"seat": 1, "action": "win"}]
    with pytest.raises(ScenarioError) as stopped:
        run_scenario(spec)
    assert (stopped.value.action_number, stopped.value.code) == (6, "cannot_win")
    assert stopped.value.message == "You cannot win on C: a laid-out 赖子 is no discard, nobody may claim it."
