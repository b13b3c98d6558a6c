"""Table ownership on the in-memory backends: one writer a table, orphans adopted, a drained node
handing its tables over."""

from __future__ import annotations

import pytest

from services.game.feed import MOVED
from services.game.leases import NotHolder
from tests.unit.services.game.conftest import FAST_DAQI, other_node, seated


async def test_ownership_gives_a_table_one_writer(node, store, live, clock):
    table_id = (await node.create("daqi", {}, "ann")).table.table_id
    other = other_node(store, live, clock)
    await live.register_node("node-a", "a:1", 60_000)
    with pytest.raises(NotHolder) as moved:
        await other.serve(table_id)
    assert moved.value.address == "a:1"


async def test_ownership_adopts_an_orphan_and_rearms_its_deadline(node, store, live, clock):
    table_id = await seated(node, options={**FAST_DAQI, "bid_window_ms": 1_000})  # < a lease's life
    await live.release(node.leases.held[table_id])  # node a died
    other = other_node(store, live, clock)
    assert await other.ownership.adopt_orphans() == 1
    assert (await live.lease_holder(table_id)).node_id == "node-b"
    table = await other.get(table_id)
    # The deadline counts from when the table's last event was recorded.
    since = other.repository.last_event_ms.get(table_id, clock.now)
    clock.now = since + other.delay_ms(table) + 1
    assert await other.fire_due() == 1


async def test_a_drained_node_hands_its_tables_over_and_sends_its_watchers_away(node, live):
    table_id = (await node.create("daqi", {}, "ann")).table.table_id
    queue = node.ownership.local.subscribe(table_id)
    await node.drain()
    assert await live.lease_holder(table_id) is None
    assert queue.get_nowait() is MOVED
    with pytest.raises(NotHolder):
        await node.serve(table_id)  # a draining node takes nothing back
