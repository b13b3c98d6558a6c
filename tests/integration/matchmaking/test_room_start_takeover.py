"""A room whose matchmaker died while making its table: the start is leased and noted in the
store, so another process (its recovery, or the host starting again) finishes it with the same
match once the lease ran out. On memory, a real Redis and a real Redis Cluster."""

# ruff: noqa: F811  (the fixtures imported below are parameters of the tests)
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from services.errors import Unavailable
from services.matchmaking import room as rules
from services.matchmaking.room import Room, RoomState
from services.matchmaking.room_service import CannotSit, RoomService
from services.matchmaking.room_store import RoomStore
from tests.integration.matchmaking.test_rooms_contract import (  # noqa: F401  (fixtures)
    EXPIRY_S,
    Clock,
    Tables,
    clock,
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


class Game:
    """Makes the table first (keyed by match id, as the game does), then seats the members:
    one whose chips are below the stake cannot sit."""

    def __init__(self, chips: dict[str, int]) -> None:
        self.chips = chips
        self.made: dict[str, int] = {}
        self.fail: BaseException | None = None

    async def __call__(self, match_id: str, ruleset: str, options: Mapping[str, Any], stake: int,
                       players: Sequence[str | None], bots: str = "") -> str:
        self.made.setdefault(match_id, stake)
        if self.fail is not None:
            raise self.fail
        for p in players:
            if self.chips.get(p, 1000) < self.made[match_id]:
                raise CannotSit(f"{p} has not enough chips", p)
        return "table-" + match_id


@pytest.fixture
def game() -> Game:
    return Game({"cy": 500})


@pytest.fixture
def paying(store_and_live, clock: Clock, game: Game) -> RoomService:
    return service(store_and_live, clock, game, start_lease_s=LEASE_S)  # type: ignore[arg-type]


async def test_after_a_member_could_not_pay_a_lower_stake_makes_a_new_table_with_it(
        paying: RoomService, game: Game) -> None:
    room = await paying.create("ann", "koudian", {}, 800, 0, auto_start=False)
    for p in ("bob", "cy", "dee"):
        await paying.join(p, room.code, "10.0.0.1")
    for p in ("ann", "bob", "cy", "dee"):
        await paying.set_ready(p, room.code, True)
    with pytest.raises(CannotSit):
        await paying.start("ann", room.code)
    await paying.change("ann", room.code, None, 400, None)
    for p in ("ann", "bob", "cy", "dee"):
        await paying.set_ready(p, room.code, True)
    started = await paying.start("ann", room.code)
    assert started.state is RoomState.STARTED and game.made[started.table_id.removeprefix("table-")] == 400


async def test_a_start_the_game_could_not_answer_stays_starting_and_is_taken_over_later(
        paying: RoomService, game: Game, clock: Clock) -> None:
    room = await ready_room(paying)
    game.fail = Unavailable("the game is restarting")
    with pytest.raises(Unavailable):
        await paying.start("ann", room.code)
    assert (await paying.get(room.code)).starting
    game.fail = None
    clock.now_ms += int(LEASE_S * 1000)
    assert await paying.recover_starts() == 1
    done = await paying.get(room.code)
    assert done.state is RoomState.STARTED and done.table_id == "table-" + room.room_id
