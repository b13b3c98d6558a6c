"""Abuse limits of the table service: tables nobody plays end, a command id names one command,
and asking for a table that does not exist leaves nothing behind."""

from __future__ import annotations

import secrets

import pytest

from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.mahjong.actions import Discard
from engine.table import Act, Ready, Sit, TableClosed
from services.bootstrap import table_service
from services.game.clock import ABANDONED
from services.game.pipeline import CommandReused
from services.game.repository import TableNotFound
from services.status import status_of
from tests.unit.services.game.conftest import DAQI, seated

ABANDON_MS = 60_000
KOUDIAN = ["ann", "bob", "cai", "dan"]
FAST_KOUDIAN = {"turn_timeout_ms": 100, "claim_timeout_ms": 100}


@pytest.fixture
def policed(store, live, clock):
    """A node that closes tables nobody acted at for ABANDON_MS."""
    return table_service(store, live, node_id="node-p", address="p:1", clock_ms=clock,
                         abandon_after_ms=ABANDON_MS)


async def _run(service, clock, ms: int, step: int = 500) -> int:
    """Let `ms` pass on the node's clock as its background work would: leases renewed, due
    deadlines fired; returns how many fired."""
    fired = 0
    for _ in range(ms // step):
        clock.now += step
        await service.leases.renew_once()
        fired += await service.fire_due()
    return fired


async def _events(service, table_id):
    return [rec.decode() for rec in await service.history(table_id)]


# -- abandon policy --------------------------------------------------------------------------


async def test_a_table_waiting_for_players_nobody_brings_is_closed_as_abandoned(policed, clock):
    table_id = (await policed.create("koudian", {}, "ann")).table.table_id
    assert await _run(policed, clock, ABANDON_MS - 500) == 0
    assert await _run(policed, clock, 500) == 1
    table = await policed.get(table_id)
    assert (table.status, table.closed) == (Status.MATCH_OVER, ABANDONED)
    assert isinstance((await _events(policed, table_id))[-1], TableClosed)
    assert table_id not in await policed.live.live_tables()


async def test_a_table_that_only_plays_itself_is_closed_once_nobody_acted_for_the_abandon_time(policed, clock):
    table_id = await seated(policed, "koudian", FAST_KOUDIAN, KOUDIAN)
    waited = 0
    while (await policed.get(table_id)).status is not Status.MATCH_OVER:
        await _run(policed, clock, 100, step=100)
        waited += 100
        assert waited <= ABANDON_MS + 1000, "the table kept playing itself"
    table = await policed.get(table_id)
    assert table.closed == ABANDONED
    assert clock.now - policed.repository.last_human_ms[table_id] >= ABANDON_MS


async def test_a_persons_command_puts_the_abandon_time_off(policed, clock):
    table_id = (await policed.create("koudian", {}, "ann")).table.table_id
    await _run(policed, clock, ABANDON_MS - 500)
    await policed.execute(table_id, Sit("bob"), command_id="bob:sit", actor="bob")
    await _run(policed, clock, ABANDON_MS - 500)
    assert not (await policed.get(table_id)).closed


async def test_a_closed_table_takes_no_more_players(policed, clock):
    table_id = (await policed.create("koudian", {}, "ann")).table.table_id
    await _run(policed, clock, ABANDON_MS)
    with pytest.raises(RuleViolation, match="closed"):
        await policed.execute(table_id, Sit("bob"), command_id="bob:sit", actor="bob")


async def test_the_last_persons_command_is_rebuilt_from_the_log_after_a_restart(policed, store, live, clock):
    table_id = (await policed.create("koudian", {}, "ann")).table.table_id
    await _run(policed, clock, 1000)
    await policed.execute(table_id, Sit("bob"), command_id="bob:sit", actor="bob")
    sat = (await store.read_stream(table_id))[-1]
    await policed.drain()
    other = table_service(store, live, node_id="node-q", address="q:1", clock_ms=clock,
                          abandon_after_ms=ABANDON_MS)
    await other.get(table_id)
    assert other.repository.last_human_ms[table_id] == int(sat.recorded_at.timestamp() * 1000)


async def test_the_abandon_clock_survives_a_restart_when_only_the_server_played_after_the_snapshot(
        policed, store, live, clock):
    table_id = await seated(policed, "koudian", FAST_KOUDIAN, KOUDIAN)
    last_person = policed.repository.last_human_ms[table_id]
    # Nobody acts: the server plays every seat into the next hand, whose start saves a snapshot.
    while (await policed.get(table_id)).hands_started < 2:
        await _run(policed, clock, 100, step=100)
        assert clock.now - last_person < ABANDON_MS, "no second hand before the abandon time"
    snap = await store.load_snapshot(table_id)
    assert snap is not None and all(rec.metadata.get("actor") == "server"
                                    for rec in await store.read_stream(table_id, snap.version + 1))
    await policed.drain()  # the node stops; another takes its tables over
    other = table_service(store, live, node_id="node-q", address="q:1", clock_ms=clock,
                          abandon_after_ms=ABANDON_MS)
    assert await other.adopt(table_id)
    assert other.repository.last_human_ms[table_id] == last_person
    while not (await other.get(table_id)).closed:
        await _run(other, clock, 100, step=100)
        assert clock.now - last_person <= ABANDON_MS + 100, "the restart put the abandon time off"
    assert (await other.get(table_id)).closed == ABANDONED


# -- idempotency ------------------------------------------------------------------------------


async def test_an_action_id_reused_for_another_move_is_already_exists_naming_the_stored_move(node):
    table_id = await seated(node, "koudian", {}, KOUDIAN)
    table = await node.get(table_id)
    seat = table.rules.deadline(table.game).defaults
    dealer = next(s for s in seat if s is not None)
    player = KOUDIAN[dealer]
    tiles = [cmd for cmd in table.rules.legal_actions(table.game, dealer) if isinstance(cmd, Discard)]
    first, other = tiles[0], next(c for c in tiles if c.tile != tiles[0].tile)
    await node.execute(table_id, Act(player, first), command_id=f"{player}:a1", actor=player)
    again = await node.execute(table_id, Act(player, first), command_id=f"{player}:a1", actor=player)
    assert again.duplicate
    with pytest.raises(CommandReused) as err:
        await node.execute(table_id, Act(player, other), command_id=f"{player}:a1", actor=player)
    code, message = status_of(err.value)
    assert code.name == "ALREADY_EXISTS"
    assert "'a1'" in message and "mahjong.Discard" in message and str(first.tile) in message


async def test_an_action_id_reused_for_another_move_on_a_stale_version_is_already_exists(node):
    table_id = await seated(node, "daqi", None, DAQI)  # "ann:ready" was ann's Ready
    with pytest.raises(CommandReused):
        await node.execute(table_id, Sit("ann", 3), command_id="ann:ready", actor="ann",
                           expected_version=1)


async def test_a_ready_retried_with_new_server_secrets_is_the_same_command(node):
    table_id = (await node.create("daqi", {}, "ann")).table.table_id
    await node.execute(table_id, Sit("ann"), command_id="ann:sit", actor="ann")
    await node.ready(table_id, "ann", command_id="ann:ready")
    retry = Ready("ann", secrets.token_bytes(16), secrets.token_bytes(16), fair=True)
    outcome = await node.execute(table_id, retry, command_id="ann:ready", actor="ann",
                                 expected_version=1)
    assert outcome.duplicate
    with pytest.raises(CommandReused):
        await node.execute(table_id, Sit("ann", 2), command_id="ann:ready", actor="ann")


# -- nothing written for a table that does not exist ------------------------------------------


async def test_asking_for_a_table_that_does_not_exist_writes_no_lease_and_no_fence(node, store, live):
    for ask in (lambda: node.serve("table-doesnotexist"),
                lambda: node.execute("table-doesnotexist", Sit("ann"), command_id="ann:1", actor="ann")):
        with pytest.raises(TableNotFound):
            await ask()
    assert await live.lease_holder("table-doesnotexist") is None
    assert "table-doesnotexist" not in node.leases.held
    assert live._fences == {}  # noqa: SLF001  (the memory backend's fencing counters)
    assert await store.stream_version("table-doesnotexist") == 0
    assert await store.list_streams() == []
