"""Snapshots are the table in the message codec's JSON, with a schema version; one that cannot
be read is ignored with a warning and the table is rebuilt from its events."""

from __future__ import annotations

import base64
import json
import pickle
import random
from typing import Any

import pytest
from structlog.testing import capture_logs

from engine import table as tables
from engine.core import fairness
from engine.table import Act, CreateTable, Ready, Sit, Table, Timeout
from services.game import snapshots
from services.game.repository import TableRepository

PLAYERS = {"daqi": ["ann", "bob", "cai", "dan", "eve"], "koudian": ["ann", "bob", "cai", "dan"]}


def _apply(table: Table, cmd: Any, log: list[Table]) -> Table:
    for ev in tables.decide(table, cmd):
        table = tables.evolve(table, ev)
        log.append(table)
    return table


def a_whole_hand(ruleset: str, seed: int = 7) -> list[Table]:
    """Every state of a table through its first hand, bots playing every seat."""
    rng = random.Random(seed)
    log: list[Table] = []
    players = PLAYERS[ruleset]
    table = _apply(Table(), CreateTable("table-t", ruleset, {}, "ann", True, ""), log)
    for p in players:
        table = _apply(table, Sit(p), log)
    nonce = rng.randbytes(32)  # the first player adds a nonce to the deal (docs/fairness.md)
    for p in players:
        commit = fairness.nonce_commitment(nonce) if p == players[0] else ""
        table = _apply(table, Ready(p, rng.randbytes(16), rng.randbytes(16), commit, fair=True), log)
    table = _apply(table, Ready(players[0], b"", b"", nonce=nonce), log)
    rs = table.rules
    while table.hands_started == 1 and table.status.value == "in_hand":
        deadline = rs.deadline(table.game)
        owing = [s for s in deadline.defaults if s is not None]
        if not owing:
            table = _apply(table, Timeout(table.version, rng.randbytes(16), rng.randbytes(16), fair=True), log)
            continue
        seat = owing[0]
        cmd = rs.bots["random"](rs.view(table.game, seat), rs.legal_actions(table.game, seat), rng)
        table = _apply(table, Act(players[seat], cmd or deadline.defaults[seat]), log)
    return log


@pytest.mark.parametrize("ruleset", ["daqi", "koudian"])
def test_every_state_of_a_hand_reads_back_from_its_snapshot_as_it_was(ruleset):
    for table in a_whole_hand(ruleset):
        data = json.loads(json.dumps(snapshots.encode(table)))  # as the store keeps it
        assert snapshots.decode(snapshots.SCHEMA_VERSION, data) == table


def test_a_snapshot_of_an_older_schema_is_upcast_before_it_is_read(monkeypatch):
    table = a_whole_hand("koudian")[-1]
    old = snapshots.encode(table)
    old["seated"] = old.pop("seats")  # as if the older schema had named the field so
    monkeypatch.setitem(snapshots.UPCASTERS, snapshots.SCHEMA_VERSION - 1,
                        lambda d: {**{k: v for k, v in d.items() if k != "seated"}, "seats": d["seated"]})
    assert snapshots.decode(snapshots.SCHEMA_VERSION - 1, old) == table


def test_a_snapshot_whose_state_types_changed_shape_cannot_be_read():
    data = snapshots.encode(a_whole_hand("daqi")[-1])
    data["game"]["data"]["a_field_this_code_does_not_have"] = 1
    with pytest.raises(snapshots.SnapshotUnreadable):
        snapshots.decode(snapshots.SCHEMA_VERSION, data)


def test_a_snapshot_naming_a_class_outside_the_engine_cannot_be_read():
    data = snapshots.encode(a_whole_hand("daqi")[-1])
    data["game"]["class"] = "os:system"
    with pytest.raises(snapshots.SnapshotUnreadable):
        snapshots.decode(snapshots.SCHEMA_VERSION, data)


def test_a_snapshot_from_a_newer_schema_cannot_be_read():
    data = snapshots.encode(a_whole_hand("daqi")[-1])
    with pytest.raises(snapshots.SnapshotUnreadable):
        snapshots.decode(snapshots.SCHEMA_VERSION + 1, data)


async def _hand_on_the_store(node: Any) -> str:
    from tests.unit.services.game.conftest import seated

    return await seated(node)


@pytest.mark.parametrize("bad", ["pickled", "garbage", "newer"])
async def test_an_unreadable_snapshot_is_ignored_with_a_warning_and_the_table_rebuilt_from_its_events(
        node, store, bad):
    table_id = await _hand_on_the_store(node)
    expected = await TableRepository(store).read(table_id)
    if bad == "pickled":  # what the previous code wrote
        blob = base64.b64encode(pickle.dumps(expected)).decode()
        await store.save_snapshot(table_id, expected.version, snapshots.SNAPSHOT_TYPE, 1,
                                  {"fingerprint": "0123456789abcdef", "pickle": blob})
    elif bad == "garbage":
        await store.save_snapshot(table_id, expected.version, snapshots.SNAPSHOT_TYPE,
                                  snapshots.SCHEMA_VERSION, {"nonsense": True})
    else:
        await store.save_snapshot(table_id, expected.version, snapshots.SNAPSHOT_TYPE,
                                  snapshots.SCHEMA_VERSION + 1, snapshots.encode(expected))
    with capture_logs() as logs:
        rebuilt = await TableRepository(store).read(table_id)
    assert rebuilt == expected
    warned = [e for e in logs if e["event"] == "snapshot_unreadable"]
    assert warned and warned[0]["log_level"] == "warning" and warned[0]["table_id"] == table_id


async def test_a_snapshot_taken_at_a_hand_boundary_is_what_a_new_node_loads(node, store):
    table_id = await _hand_on_the_store(node)  # dealing started a hand: a status change
    snap = await store.load_snapshot(table_id)
    assert snap is not None and snap.schema_version == snapshots.SCHEMA_VERSION
    replayed = Table()
    for rec in await store.read_stream(table_id, 1, snap.version):
        replayed = tables.evolve(replayed, rec.decode())
    assert snapshots.decode(snap.schema_version, snap.data) == replayed
    with capture_logs() as logs:
        loaded = await TableRepository(store).read(table_id)
    assert loaded == await node.get(table_id)
    assert not [e for e in logs if e["event"] == "snapshot_unreadable"]


def test_a_snapshot_naming_a_type_this_code_does_not_register_cannot_be_read():
    data = snapshots.encode(a_whole_hand("koudian")[-1])
    assert "type" in data["game"]  # koudian's states are registered values
    data["game"]["type"] = "koudian.NoSuchPhase"
    with pytest.raises(snapshots.SnapshotUnreadable):
        snapshots.decode(snapshots.SCHEMA_VERSION, data)


def test_a_snapshot_keeps_when_a_person_last_acted_at_the_table_for_the_abandon_policy():
    data = json.loads(json.dumps(snapshots.encode(a_whole_hand("koudian")[-1], last_human_ms=1_700_000_000_123)))
    assert snapshots.last_human_ms(snapshots.SCHEMA_VERSION, data) == 1_700_000_000_123


def test_a_snapshot_from_before_revisions_were_recorded_reads_as_revision_0_with_no_last_person_time():
    table = a_whole_hand("koudian")[-1]
    old = snapshots.encode(table)
    del old["revision"], old["last_human_ms"]
    assert table.revision == 0 and snapshots.decode(4, old) == table
    assert snapshots.last_human_ms(4, old) is None
