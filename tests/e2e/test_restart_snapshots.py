"""A node restarted reads back the snapshot of every ruleset's table: none is rebuilt from its
whole log (issue 26: `snapshot_unreadable ... unknown message type 'jj.Options'` on every
restart, because nothing had imported the ruleset that registers its types yet)."""

from __future__ import annotations

import signal

import pytest

from clients.client import channel
from services.eventstore import open_event_store
from tests.e2e.test_game import SEATS, new_table

pytestmark = pytest.mark.e2e


async def test_a_restarted_node_reads_the_snapshots_of_tables_of_all_four_rulesets(start_server, tmp_path):
    server = start_server()
    tables = {}
    async with channel(server.address) as chan:
        for ruleset in SEATS:
            table_id, players = await new_table(chan, ruleset, {})
            tables[ruleset] = (table_id, players, (await players[0].view(table_id)).version)
    server.stop(signal.SIGTERM)
    store = await open_event_store(f"sqlite:///{tmp_path / 'events.sqlite3'}")
    try:  # the first hand was dealt: a snapshot of each table was saved
        assert all([await store.load_snapshot(t) is not None for t, _, _ in tables.values()])
    finally:
        await store.close()
    restarted = start_server()
    async with channel(restarted.address) as chan:
        for ruleset, (table_id, players, version) in tables.items():
            players[0].chan = chan
            assert (await players[0].view(table_id)).version >= version, ruleset
    assert "snapshot_unreadable" not in restarted.log(), restarted.log()
