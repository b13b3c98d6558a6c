"""Rules revision 3 (issue 27; docs/rules/jj.md): the pair beside a 组合龙, 血战 winners' hands
seen for 和绝张, each payment rounded on its own. A table created now plays them; a table
recorded before replays and verifies exactly as it was recorded."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engine import table as tables
from engine.core.messages import encode, message_to_json
from engine.jj import RULESET
from services.eventstore.records import GlobalPosition, RecordedEvent
from services.game.verify import verify
from tests.unit.jj.test_claimed_tile_river import played, recorded

REVISION_3 = ("knitted_straight_reads_pair", "winners_hands_seen", "each_payment_rounded")


def recorded_without_revision_3(steps: list[tuple[Any, list[Any]]]) -> list[RecordedEvent]:
    """The steps as the event store holds them, the creation events without the options of rules
    revision 3 (as a table recorded before it holds them)."""
    out, version = [], 0
    for cmd, events in steps:
        for i, ev in enumerate(events):
            version += 1
            name, schema, data = encode(ev)
            if name in ("table.Created", "jj.TableCreated"):
                data = {**data, "options": {k: v for k, v in data["options"].items() if k not in REVISION_3}}
            meta = {"command": message_to_json(cmd)} if i == 0 else {}
            out.append(RecordedEvent("t", version, GlobalPosition(0, version), name, schema, data, meta,
                                     datetime.now(UTC)))
    return out


def test_only_a_table_created_now_plays_the_rules_of_revision_3():
    old, new = RULESET.options(), RULESET.new_options()
    assert [getattr(old, name) for name in REVISION_3] == [0, 0, 0]
    assert [getattr(new, name) for name in REVISION_3] == [1, 1, 1]


def test_a_table_created_under_rules_2_keeps_the_old_scoring_and_verifies_as_recorded():
    steps = played(rules=2)
    created, jj_created = steps[0][1][:2]
    assert not set(REVISION_3) & set(created.options)
    assert [getattr(jj_created.options, name) for name in REVISION_3] == [0, 0, 0]
    check = verify(recorded_without_revision_3(steps))
    assert check.ok and check.commands_checked == len(steps), check.problems


def test_a_record_without_the_options_reads_the_old_rules():
    steps = played(rules=2)
    (stored,) = [r for r in recorded_without_revision_3(steps) if r.type == "jj.TableCreated"]
    options = stored.decode().options
    assert [getattr(options, name) for name in REVISION_3] == [0, 0, 0]


def test_a_table_created_now_records_the_rules_of_revision_3_and_verifies():
    steps = played(rules=tables.RULES)
    assert tables.RULES >= 3
    assert all(steps[0][1][0].options[name] == 1 for name in REVISION_3)
    check = verify(recorded(steps))
    assert check.ok and check.commands_checked == len(steps), check.problems

