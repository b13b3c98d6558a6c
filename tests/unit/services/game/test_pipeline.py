"""The command pipeline on the in-memory backends: clock steps behind a command, logging,
version conflicts, a fenced-out writer."""

from __future__ import annotations

import pytest
from structlog.contextvars import (
    bind_contextvars,
    clear_contextvars,
    get_contextvars,
    merge_contextvars,
)
from structlog.testing import capture_logs

from engine.core.errors import RuleViolation
from engine.table import Act, Sit
from services.game.feed import MOVED
from services.game.leases import NotHolder
from services.game.pipeline import VersionConflict
from tests.unit.services.game.conftest import DAQI, FAST_DAQI, other_node, seated


async def test_the_pipeline_chains_every_clock_step_due_at_once_behind_the_command(node):
    table_id = await seated(node)  # the last Ready deals 100 cards at 0 ms each
    assert type((await node.get(table_id)).game).__name__ == "FinalBids"


async def test_the_pipeline_logs_a_rejected_command_at_debug_with_its_context(node):
    table_id = (await node.create("daqi", {}, "ann")).table.table_id
    with capture_logs([merge_contextvars]) as logs, pytest.raises(RuleViolation):
        await node.execute(table_id, Sit("bob", seat=9), command_id="bob:1", actor="bob")
    (entry,) = [e for e in logs if e["event"] == "command_rejected"]
    assert entry["log_level"] == "debug" and entry["code"] == "no_such_seat"
    assert (entry["table_id"], entry["command_id"], entry["node"]) == (table_id, "bob:1", "node-a")


async def test_the_pipeline_leaves_the_log_context_as_it_found_it(node):
    table_id = (await node.create("daqi", {}, "ann")).table.table_id
    bind_contextvars(request_id="r1", actor="outer")
    try:
        await node.pipeline.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob")
        with pytest.raises(RuleViolation):
            await node.pipeline.execute(table_id, Sit("cat", seat=9), command_id="cat:1", actor="cat")
        assert get_contextvars() == {"request_id": "r1", "actor": "outer"}
    finally:
        clear_contextvars()


async def test_the_pipeline_refuses_an_action_decided_on_an_older_version(node):
    table_id = await seated(node, options=FAST_DAQI)
    table = await node.get(table_id)
    seat = next(s for s in table.rules.deadline(table.game).defaults if s is not None)
    legal = table.rules.legal_actions(table.game, seat)
    with pytest.raises(VersionConflict):
        await node.execute(table_id, Act(DAQI[seat], legal[0]), command_id="x", actor=DAQI[seat],
                           expected_version=table.version - 1)


async def test_a_fenced_out_pipeline_tells_its_local_watchers_and_warns(node, store, live, clock):
    table_id = (await node.create("daqi", {}, "ann")).table.table_id
    queue = node.ownership.local.subscribe(table_id)
    lease = node.leases.held[table_id]
    await live.release(lease)  # node a paused: its lease ran out, node b took the table
    other = other_node(store, live, clock)
    await other.serve(table_id)
    with capture_logs([merge_contextvars]) as logs, pytest.raises(NotHolder):
        await node.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob")
    assert queue.get_nowait() is MOVED
    assert table_id not in node.leases.held
    (entry,) = [e for e in logs if e["event"] == "fenced_out"]
    assert entry["log_level"] == "warning" and entry["table_id"] == table_id and entry["node"] == "node-a"
