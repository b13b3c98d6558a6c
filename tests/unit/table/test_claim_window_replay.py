"""A table recorded before claim windows hid who could claim (issue 11) replays and verifies
exactly as it was played: its table.Created has no `claim_window`, which reads as the rule of
its day (engine.core.options.revised); a table created now records the new rule explicitly."""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from typing import Any

import pytest

from engine.core.contract import Status
from engine.core.messages import encode, message_to_json, to_json
from engine.table import RULES, CreateTable, Ready, Sit, Table, Timeout, decide, evolve
from services.eventstore.records import GlobalPosition, RecordedEvent
from services.game.verify import verify

PLAYERS = ["ann", "bob", "cy", "dee"]


def played(ruleset: str, options: dict[str, Any], rules: int, timeouts: int = 400) -> list[tuple[Any, list[Any]]]:
    """A table's commands with their events: created, four seated and ready, then every
    decision left to the clock (auto-play) until the hand ends."""
    table, steps = Table(), []

    def run(cmd: Any) -> None:
        nonlocal table
        events = decide(table, cmd)
        steps.append((cmd, events))
        table = functools.reduce(evolve, events, table)

    run(CreateTable("t", ruleset, options, "ann", private=False, rules=rules))
    for p in PLAYERS:
        run(Sit(p))
    for n, p in enumerate(PLAYERS):
        run(Ready(p, bytes([n + 7]) * 16, b"salt"))
    for _ in range(timeouts):
        if table.status is not Status.IN_HAND:
            break
        run(Timeout(table.version, b"seed", b"salt"))
    return steps


def recorded(steps: list[tuple[Any, list[Any]]], claim_window: int | None) -> list[RecordedEvent]:
    """The steps as the store holds them; `claim_window` None drops the option from the
    creation events, as a table recorded before it existed has them."""
    out, version = [], 0
    for cmd, events in steps:
        for i, ev in enumerate(events):
            version += 1
            name, schema, data = encode(ev)
            if "options" in data and isinstance(data["options"], dict):
                data = {**data, "options": {k: v for k, v in data["options"].items() if k != "claim_window"}}
                if claim_window is not None:
                    data["options"]["claim_window"] = claim_window
            meta = {"command": message_to_json(cmd)} if i == 0 else {}
            out.append(RecordedEvent("t", version, GlobalPosition(0, version), name, schema, data, meta,
                                     datetime.now(UTC)))
    return out


@pytest.mark.parametrize("ruleset", ["koudian", "wuhan", "jj"])
def test_a_table_recorded_before_claim_windows_hid_claims_replays_and_verifies_as_it_was_played(ruleset):
    steps = played(ruleset, {}, rules=0)  # a CreateTable as recorded before: the old rule
    names = [type(ev).__name__ for _, evs in steps for ev in evs]
    assert "ClaimWindowOpened" in names  # some discard could be claimed (and was passed) ...
    assert any(["TileDiscarded", "TileDrawn"] == [type(ev).__name__ for ev in evs][-2:] for _, evs in steps)  # ... others not
    old = recorded(steps, claim_window=None)
    assert "claim_window" not in old[0].data["options"]

    check = verify(old)
    assert check.ok, check.problems
    assert check.commands_checked == len(steps)
    replayed = functools.reduce(evolve, (rec.decode() for rec in old), Table())
    original = functools.reduce(evolve, (ev for _, evs in steps for ev in evs), Table())
    assert to_json(replayed.game) == to_json(original.game)
    # Read with today's rule instead, the same record would not verify: the option matters.
    assert not verify(recorded(steps, claim_window=2)).ok


@pytest.mark.parametrize("ruleset", ["koudian", "wuhan", "jj"])
def test_a_table_created_now_records_the_claim_rule_that_hides_who_can_claim(ruleset):
    steps = played(ruleset, {}, rules=RULES, timeouts=30)
    assert steps[0][1][0].options["claim_window"] == 2
    check = verify(recorded(steps, claim_window=2))
    assert check.ok, check.problems
