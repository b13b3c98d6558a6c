"""A room whose matchmaker died while making its table: the start is leased and noted in the
store, so another process (its recovery, or the host starting again) finishes it with the same
match once the lease ran out. On memory, a real Redis and a real Redis Cluster."""

# ruff: noqa: F811  (the fixtures imported below are parameters of the tests)
from __future__ import annotations

import pytest

from services.matchmaking import room as rules
from services.matchmaking.room import Room, RoomState
from services.matchmaking.room_service import RoomService
from services.matchmaking.room_store import RoomStore
from tests.integration.matchmaking.test_rooms_contract import (  # noqa: F401  (fixtures)
    EXPIRY_S,
    Clock,
    Tables,
    clock,
    live_url,
    service,
    store_and_live,
    tables,
)

pytestmark = pytest.mark.integration

LEASE_S = 5.0


@pytest.fixture
def rooms(store_and_live, clock: Clock, tables: Tables) -> RoomService:  # noqa: F811
    return service(store_and_live, clock, tables, start_lease_s=LEASE_S)


async def ready_room(rooms: RoomService) -> Room:
    room = await rooms.create("ann", "koudian", {}, 10, 0, auto_start=False)
    for p in ("bob", "cy", "dee"):
        await rooms.join(p, room.code, "10.0.0.1")
    for p in ("ann", "bob", "cy", "dee"):
        room = await rooms.set_ready(p, room.code, True)
    return room


async def died_after_claiming(store: RoomStore, room: Room, now: int) -> Room:
    """What a process leaves behind when killed right after it claimed the start."""
    await store.track_start(room.code, now + int(LEASE_S * 1000))
    starting = rules.begin_start(room, "ann", now, EXPIRY_S * 1000, int(LEASE_S * 1000))
    assert await store.swap(room, starting)
    return starting


async def test_a_start_whose_process_died_is_finished_by_another_once_its_lease_ran_out(
        rooms: RoomService, clock: Clock, tables: Tables) -> None:
    room = await ready_room(rooms)
    starting = await died_after_claiming(rooms.store, room, clock.now_ms)
    clock.now_ms += int(LEASE_S * 1000) - 1
    assert await rooms.recover_starts() == 0  # its maker may still be at work
    assert (await rooms.get(room.code)).starting
    clock.now_ms += 1
    assert await rooms.recover_starts() == 1
    done = await rooms.get(room.code)
    assert done.state is RoomState.STARTED and done.table_id == "table-" + starting.room_id
    assert list(tables.made) == [starting.room_id]
    assert await rooms.store.stale_starts(clock.now_ms + 10**9, 10) == []  # nothing left to find
    assert await rooms.recover_starts() == 0


async def test_the_host_starting_again_after_the_lease_ran_out_finishes_the_same_match(
        rooms: RoomService, clock: Clock, tables: Tables) -> None:
    room = await ready_room(rooms)
    starting = await died_after_claiming(rooms.store, room, clock.now_ms)
    clock.now_ms += int(LEASE_S * 1000)
    done = await rooms.start("ann", room.code)
    assert done.state is RoomState.STARTED and done.table_id == "table-" + starting.room_id
    assert tables.calls == 1


async def test_a_process_that_died_before_claiming_leaves_the_room_as_it_was(
        rooms: RoomService, clock: Clock, tables: Tables) -> None:
    room = await ready_room(rooms)
    await rooms.store.track_start(room.code, clock.now_ms + int(LEASE_S * 1000))
    clock.now_ms += int(LEASE_S * 1000)
    assert await rooms.recover_starts() == 0
    after = await rooms.get(room.code)
    assert after.state is RoomState.OPEN and not after.starting and tables.calls == 0
    assert await rooms.store.stale_starts(clock.now_ms + 10**9, 10) == []


async def test_a_taken_over_start_a_member_cannot_pay_for_opens_the_room_again(
        rooms: RoomService, clock: Clock, tables: Tables) -> None:
    room = await ready_room(rooms)
    await died_after_claiming(rooms.store, room, clock.now_ms)
    tables.short = "cy"
    clock.now_ms += int(LEASE_S * 1000)
    assert await rooms.recover_starts() == 1
    after = await rooms.get(room.code)
    assert after.state is RoomState.OPEN and not after.starting
    assert [m.player_id for m in after.members if not m.ready] == ["cy"]
