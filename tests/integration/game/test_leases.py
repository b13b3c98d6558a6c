"""One writer per table: leases in the live state, fenced in the event store."""

from __future__ import annotations

import asyncio
import time

import pytest

from engine.table import Sit
from services.game import leases
from services.game.leases import NotHolder
from services.game.tables import TableService
from services.live.base import Holder

pytestmark = pytest.mark.integration


@pytest.fixture
def short_leases(monkeypatch):
    monkeypatch.setattr(leases, "LEASE_TTL_MS", 300)


async def two_nodes(backends) -> tuple[TableService, TableService]:
    a, b = await backends["open"]("node-a"), await backends["open"]("node-b")
    await a.live.register_node("node-a", "a:1", 60_000)
    await b.live.register_node("node-b", "b:1", 60_000)
    return a, b


async def test_a_table_has_one_writer_and_the_other_node_is_told_where_it_is(backends):
    a, b = await two_nodes(backends)
    table_id = (await a.create("daqi", {}, "ann")).table.table_id
    with pytest.raises(NotHolder) as moved:
        await b.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob")
    assert (moved.value.node_id, moved.value.address) == ("node-a", "a:1")


async def test_a_node_whose_lease_was_taken_over_cannot_append_it_is_fenced(backends, short_leases):
    a, b = await two_nodes(backends)
    table_id = (await a.create("daqi", {}, "ann")).table.table_id
    # Node a "pauses": it does not renew, and its lease runs out (Redis keeps real time; the
    # memory twin the test's clock).
    backends["clock"].advance(1000)
    await asyncio.sleep(0.5)
    await b.serve(table_id)  # node b takes the table over (and fences it) without writing
    version = await b.store.stream_version(table_id)
    with pytest.raises(NotHolder) as moved:
        await a.execute(table_id, Sit("zed"), command_id="zed:1", actor="zed")
    assert moved.value.node_id == "node-b"
    assert await a.store.stream_version(table_id) == version  # nothing written by the stale node
    out = await b.execute(table_id, Sit("zed"), command_id="zed:1", actor="zed")
    assert not out.duplicate and out.version == version + 1


async def test_after_the_live_state_is_lost_the_node_takes_its_tables_back(backends):
    a, _ = await two_nodes(backends)
    table_id = (await a.create("daqi", {}, "ann")).table.table_id
    await a.live.flush_namespace()
    for _ in range(50):  # the node's renewal loop notices within a renewal period
        holder = await a.live.lease_holder(table_id)
        if holder is not None and holder.node_id == "node-a" and table_id in await a.live.live_tables():
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the node did not take its table back")
    await a.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob")


async def test_a_draining_node_hands_its_tables_over(backends):
    a, b = await two_nodes(backends)
    table_id = (await a.create("daqi", {}, "ann")).table.table_id
    await a.drain()
    assert await a.live.lease_holder(table_id) is None
    with pytest.raises(NotHolder):
        await a.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob")
    await b.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob")


async def test_an_orphaned_table_is_adopted_with_its_deadline(backends):
    a, b = await two_nodes(backends)
    table_id = (await a.create("daqi", {}, "ann")).table.table_id
    lease = a.leases.held[table_id]
    await a.live.release(lease)  # node a died: its lease is gone
    assert await b.adopt_orphans() == 1
    assert (await b.live.lease_holder(table_id)).node_id == "node-b"


async def test_a_lease_that_lapsed_while_its_node_was_busy_is_kept_not_lost(backends, short_leases):
    a = await backends["open"]()
    lost: list[str] = []

    async def record_lost(table_id: str) -> None:
        lost.append(table_id)

    a.leases._on_lost = record_lost
    table_id = (await a.create("daqi", {}, "ann")).table.table_id
    first = a.leases.held[table_id]
    moved: list[str] = []
    a.ownership.local.moved = moved.append  # watchers told their table left this node
    # The event loop is blocked past the lease's life (CPU load, or a start-up rebuilding many
    # tables before the first renewal): nothing renews, and the lease runs out.
    backends["clock"].advance(1000)
    time.sleep(0.4)
    assert await a.leases.renew_once() == []
    await asyncio.sleep(0)
    retaken = a.leases.held[table_id]
    assert retaken.token > first.token
    assert await a.live.lease_holder(table_id) == Holder(a.node_id, retaken.token)
    out = await a.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob")
    assert not out.duplicate and lost == [] and moved == []


async def test_a_lapsed_lease_another_node_took_meanwhile_is_lost(backends, short_leases):
    a, b = await two_nodes(backends)
    table_id = (await a.create("daqi", {}, "ann")).table.table_id
    lease = a.leases.held[table_id]
    backends["clock"].advance(1000)
    time.sleep(0.4)
    await b.serve(table_id)  # b takes the table over (and fences it) while a is stalled
    assert await a.leases._retake(lease) is None
    await b.leases.release(table_id)  # ... and even once b has let it go again, a wrote nothing since
    assert await a.leases._retake(lease) is None
