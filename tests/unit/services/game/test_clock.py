"""The table clock on the in-memory backends: waits between hands, deadlines fired as timeout
commands, asking the live state only when one may be due."""

from __future__ import annotations

from typing import Any

from engine.core.contract import Status
from engine.table import Table
from services.game.clock import BETWEEN_HANDS_MS, LOOK_ANYWAY_MS, Deadlines
from tests.unit.services.game.conftest import DAQI, FAST_DAQI, seated


async def test_the_clock_waits_between_hands_only_once_a_hand_was_played(node):
    table = await node.get((await node.create("daqi", {}, "ann")).table.table_id)
    assert Deadlines.delay_ms(table) is None  # the first hand waits for everyone's Ready
    seated_between = Table(ruleset=table.ruleset, options=table.options, seats=tuple(DAQI),
                           game=table.game, hands_started=1, table_id=table.table_id)
    assert seated_between.status is Status.WAITING_FOR_HAND
    assert Deadlines.delay_ms(seated_between) == BETWEEN_HANDS_MS


async def test_the_clock_fires_a_due_deadline_as_a_timeout_command(node, clock):
    table_id = await seated(node, options={**FAST_DAQI, "bid_window_ms": 1_000})
    before = await node.get(table_id)
    assert await node.fire_due() == 0
    clock.now += node.delay_ms(before) + 1
    assert await node.fire_due() == 1
    records = await node.history(table_id, before.version + 1)
    assert records[0].metadata["command"]["type"] == "table.Timeout"


async def test_the_clock_asks_the_live_state_only_when_a_deadline_may_be_due(node, live, clock,
                                                                         monkeypatch):
    # Due within the lease's life: the lease is not renewed here.
    table_id = await seated(node, options={**FAST_DAQI, "bid_window_ms": 2_500})
    table = await node.get(table_id)
    due = node.repository.last_event_ms[table_id] + node.delay_ms(table)
    asked: list[int] = []
    claim_due = live.claim_due

    async def counting(now_ms: int, *args: Any, **kwargs: Any) -> Any:
        asked.append(now_ms)
        return await claim_due(now_ms, *args, **kwargs)

    monkeypatch.setattr(live, "claim_due", counting)
    await node.fire_due()
    looked = len(asked)
    clock.now += 1
    assert node.clock.idle_ms() == min(due, clock.now - 1 + LOOK_ANYWAY_MS) - clock.now
    assert await node.fire_due() == 0
    assert len(asked) == looked  # the table's deadline is a while off: nothing to ask
    await live.schedule("elsewhere", "turn", clock.now + 5, b"1")  # armed by another unit
    assert node.clock.idle_ms() == 5
    clock.now += 5
    assert node.clock.idle_ms() == 0
    await node.fire_due()
    assert len(asked) == looked + 1  # it was told of that one at once
    await live.cancel("elsewhere")
    clock.now += 1
    await node.fire_due()
    assert len(asked) == looked + 2  # that one was due and not this node's: it looked again
    clock.now += 1
    await node.fire_due()
    assert len(asked) == looked + 2
    clock.now += LOOK_ANYWAY_MS
    assert clock.now < due
    await node.fire_due()
    assert len(asked) == looked + 3  # it looks now and then in any case
    clock.now = due + 1
    assert await node.fire_due() == 1
