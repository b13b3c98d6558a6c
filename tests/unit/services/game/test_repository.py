"""The table repository on the in-memory backends: loading, caching, appending under the fencing token."""

from __future__ import annotations

import hashlib

import pytest

from engine.table import PlayerSeated, Sit
from services.game.repository import TableNotFound, TableRepository, requested_table_id
from tests.unit.services.game.conftest import SIT


async def test_the_repository_says_a_table_without_events_is_not_found(store):
    with pytest.raises(TableNotFound):
        await TableRepository(store).load("table-none", must_exist=True)
    assert not (await TableRepository(store).load("table-none", must_exist=False)).exists


async def test_the_repository_caches_what_it_loaded_until_told_to_forget_it(node, store):
    table_id = (await node.create("daqi", {}, "ann")).table.table_id
    repo = TableRepository(store)
    first = await repo.load(table_id, must_exist=True)
    await node.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob")
    assert await repo.load(table_id, must_exist=True) is first  # its own writes only
    repo.forget(table_id)
    assert (await repo.load(table_id, must_exist=True)).version == first.version + SIT


async def test_the_repository_appends_only_under_the_newest_fencing_token(node, store):
    from services.eventstore import Fenced

    table_id = (await node.create("daqi", {}, "ann")).table.table_id
    repo = TableRepository(store)
    table = await repo.load(table_id, must_exist=True)
    token = node.leases.held[table_id].token
    await store.fence(table_id, token + 1)  # another node took the table over
    new = node.pipeline.records([(Sit("bob"), [PlayerSeated(1, "bob")])], table.version, None, "bob")
    with pytest.raises(Fenced):
        await repo.append(table_id, table.version, new, None, fence=token)


def test_a_requested_table_id_is_the_same_for_a_retry_and_unguessable_without_the_key():
    ours = requested_table_id("k" * 32, "ann", "r1")
    assert ours == requested_table_id("k" * 32, "ann", "r1")  # a retry finds its table
    assert ours != requested_table_id("k" * 32, "ann", "r2") != requested_table_id("k" * 32, "bob", "r1")
    assert ours != requested_table_id("another-key" * 3, "ann", "r1")
    assert ours != "table-" + hashlib.sha256(b"ann:r1").hexdigest()[:16]  # the old, keyless rule
    assert ours.startswith("table-") and len(ours) == len("table-") + 16
