"""The room stores' contract, and the room service on them: the same tests on memory, a real Redis
and a real Redis Cluster (one room's keys share a hash slot)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import pytest

from services.errors import Forbidden, TooManyRequests
from services.live import LiveState, open_live_state
from services.matchmaking import room as rules
from services.matchmaking.room import (
    BadRoomSettings,
    NotHost,
    NotReadyToStart,
    Room,
    RoomFull,
    RoomNotFound,
    RoomNotOpen,
    RoomState,
)
from services.matchmaking.room_config import RoomSettings
from services.matchmaking.room_service import CannotSit, RoomService
from services.matchmaking.room_store import RoomStore, open_room_store

T0 = 1_700_000_000_000
EXPIRY_S = 60


class Clock:
    def __init__(self) -> None:
        self.now_ms = T0

    def __call__(self) -> int:
        return self.now_ms


class Tables:
    """Stands in for seat_match (the game and ledger are tested in the e2e tests): records each
    match it made, keyed by match id as the real one is."""

    def __init__(self) -> None:
        self.made: dict[str, tuple[str, dict[str, Any], int, tuple[str, ...]]] = {}
        self.short: str | None = None
        self.calls = 0

    async def __call__(self, match_id: str, ruleset: str, options: Mapping[str, Any], stake: int,
                       players: Sequence[str | None], bots: str = "") -> str:
        self.calls += 1
        await asyncio.sleep(0)
        if self.short in players:
            raise CannotSit(f"{self.short} has not enough chips", self.short or "")
        self.made.setdefault(match_id, (ruleset, dict(options), stake, tuple(players)))
        return "table-" + match_id


@pytest.fixture
async def store_and_live(live_url: str, clock: Clock) -> AsyncIterator[tuple[RoomStore, LiveState]]:
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    options = {} if live_url == "memory://" else {"clock": clock}
    store = open_room_store(live_url, namespace, **options)
    live = open_live_state(live_url, namespace=namespace, clock=clock)
    yield store, live
    await live.flush_namespace()  # the rooms' keys share the namespace
    await store.close()
    await live.close()


@pytest.fixture
def store(store_and_live: tuple[RoomStore, LiveState]) -> RoomStore:
    return store_and_live[0]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tables() -> Tables:
    return Tables()


def service(store_and_live: tuple[RoomStore, LiveState], clock: Clock, tables: Tables,
            **settings: Any) -> RoomService:
    store, live = store_and_live
    return RoomService(store, live, tables, RoomSettings(expiry_s=EXPIRY_S, **settings), clock)


@pytest.fixture
def rooms(store_and_live: tuple[RoomStore, LiveState], clock: Clock, tables: Tables) -> RoomService:
    return service(store_and_live, clock, tables)


def a_room(code: str = "123456", room_id: str = "room-a") -> Room:
    return rules.new_room(code, room_id, "ann", rules.settings("koudian", {}, 10, 0), True, T0,
                          EXPIRY_S * 1000)


# -- the store ----------------------------------------------------------------------------------


async def test_a_code_held_by_a_live_room_cannot_be_taken(store):
    assert await store.create(a_room(), T0)
    assert not await store.create(a_room(room_id="room-b"), T0 + 1)
    assert (await store.get("123456")).room_id == "room-a"


async def test_a_code_is_free_again_once_its_room_expired_or_closed(store):
    room = a_room()
    await store.create(room, T0)
    assert await store.create(a_room(room_id="room-b"), room.expires_at_ms)
    closed = rules.leave(a_room(code="222222"), "ann", T0, 1000)
    await store.create(a_room(code="222222"), T0)
    assert await store.swap(a_room(code="222222"), closed)
    assert await store.create(a_room(code="222222", room_id="room-c"), T0 + 1)


async def test_a_swap_succeeds_only_from_the_version_stored(store):
    room = a_room()
    await store.create(room, T0)
    bob = rules.join(room, "bob", T0 + 1, 1000)
    cy = rules.join(room, "cy", T0 + 1, 1000)
    assert await store.swap(room, bob)
    assert not await store.swap(room, cy)  # read before bob's join: refused
    assert (await store.get(room.code)) == bob


async def test_a_swap_refuses_another_incarnation_of_the_code(store):
    room = a_room()
    await store.create(room, T0)
    stranger = a_room(room_id="room-z")
    assert not await store.swap(stranger, rules.join(stranger, "bob", T0, 1000))


async def test_history_lists_every_version_in_order(store):
    room = a_room()
    await store.create(room, T0)
    versions = [room]
    for player in ("bob", "cy", "dee"):
        nxt = rules.join(versions[-1], player, T0 + 1, 1000)
        assert await store.swap(versions[-1], nxt)
        versions.append(nxt)
    assert await store.history(room.code, room.room_id, 1) == versions[1:]
    assert await store.history(room.code, room.room_id, 4) == []
    assert await store.history(room.code, "room-other", 1) is None


async def test_a_request_remembers_the_first_room_it_made(store):
    assert await store.request("ann:r1") is None
    assert await store.claim_request("ann:r1", "111111", 60_000) == "111111"
    assert await store.claim_request("ann:r1", "222222", 60_000) == "111111"
    assert await store.request("ann:r1") == "111111"


async def test_concurrent_joins_never_take_one_seat(rooms):
    room = await rooms.create("ann", "daqi", {}, 0, 0)
    players = [f"p{i}" for i in range(12)]
    outcomes = await asyncio.gather(*(rooms.join(p, room.code, f"addr-{p}") for p in players),
                                    return_exceptions=True)
    joined = [o for o in outcomes if isinstance(o, Room)]
    full = [o for o in outcomes if isinstance(o, RoomFull)]
    assert len(joined) == 4 and len(full) == 8, outcomes
    final = await rooms.get(room.code)
    seats = sorted(m.seat for m in final.members)
    assert seats == [0, 1, 2, 3, 4] and final.version == 5


async def test_joins_racing_on_two_nodes_never_take_one_seat(live_url, store_and_live, clock, tables):
    """Two matchmaking nodes (each its own connection to the store) fill one room at once."""
    one = service(store_and_live, clock, tables)
    if live_url == "memory://":
        two = one  # one process is the whole deployment
    else:
        namespace = store_and_live[1].namespace
        two = service((open_room_store(live_url, namespace, clock=clock),
                       open_live_state(live_url, namespace=namespace, clock=clock)), clock, tables)
    try:
        room = await one.create("ann", "koudian", {}, 0, 0)
        players = [f"p{i}" for i in range(10)]
        outcomes = await asyncio.gather(*(
            (one if i % 2 else two).join(p, room.code, f"addr-{p}") for i, p in enumerate(players)),
            return_exceptions=True)
        assert sum(isinstance(o, Room) for o in outcomes) == 3
        assert all(isinstance(o, Room | RoomFull) for o in outcomes), outcomes
        final = await two.get(room.code)
        assert sorted(m.seat for m in final.members) == [0, 1, 2, 3]
    finally:
        if two is not one:
            await two.store.close()
            await two.live.close()


# -- the service --------------------------------------------------------------------------------


async def fill(rooms: RoomService, code: str, players: Sequence[str]) -> Room:
    room = await rooms.get(code)
    for p in players:
        room = await rooms.join(p, code, "addr")
    return room


async def test_create_gives_a_random_six_digit_code_and_share_string(rooms):
    codes = {(await rooms.create(f"h{i}", "koudian", {}, 10, 0)).code for i in range(5)}
    assert len(codes) == 5 and all(len(c) == 6 and c.isdigit() for c in codes)


async def test_the_same_request_id_creates_one_room(rooms):
    first = await rooms.create("ann", "koudian", {}, 10, 0, request_id="r1")
    again = await rooms.create("ann", "koudian", {}, 10, 0, request_id="r1")
    other = await rooms.create("bob", "koudian", {}, 10, 0, request_id="r1")
    assert again.code == first.code and other.code != first.code


async def test_a_wrong_code_is_not_found(rooms):
    with pytest.raises(RoomNotFound):
        await rooms.join("bob", "000000", "addr")


async def test_join_accepts_the_share_string(rooms):
    room = await rooms.create("ann", "koudian", {}, 10, 0)
    joined = await rooms.join("bob", f"qipai://room/{room.code}", "addr")
    assert joined.member("bob") is not None


async def test_join_attempts_are_limited_per_player(store_and_live, clock, tables):
    rooms = service(store_and_live, clock, tables, joins_per_minute=3)
    for _ in range(3):
        with pytest.raises(RoomNotFound):
            await rooms.join("mallory", "999999", "addr-1")
    with pytest.raises(TooManyRequests):
        await rooms.join("mallory", "999998", "addr-2")


async def test_join_attempts_are_limited_per_address(store_and_live, clock, tables):
    rooms = service(store_and_live, clock, tables, joins_per_minute_per_address=3)
    for i in range(3):
        with pytest.raises(RoomNotFound):
            await rooms.join(f"sock{i}", "999999", "addr-1")
    with pytest.raises(TooManyRequests):
        await rooms.join("sock9", "999998", "addr-1")
    with pytest.raises(RoomNotFound):  # another address has its own budget
        await rooms.join("sock9", "999998", "addr-2")


async def test_only_the_host_kicks_starts_or_changes(rooms):
    room = await rooms.create("ann", "koudian", {}, 10, 0)
    await fill(rooms, room.code, ["bob", "cy"])
    with pytest.raises(NotHost):
        await rooms.kick("bob", room.code, "cy")
    with pytest.raises(NotHost):
        await rooms.start("bob", room.code)
    with pytest.raises(NotHost):
        await rooms.change("bob", room.code, {"base_score": 3}, None, None)
    with pytest.raises(Forbidden):
        await rooms.set_ready("zed", room.code, True)


async def test_the_host_changes_options_before_the_start_and_everyones_ready_is_reset(rooms):
    room = await rooms.create("ann", "koudian", {}, 10, 6)
    await fill(rooms, room.code, ["bob"])
    await rooms.set_ready("bob", room.code, True)
    changed = await rooms.change("ann", room.code, {"base_score": 3}, 20, None)
    assert changed.settings.options == {"base_score": 3, "rounds_per_match": 6}
    assert changed.settings.stake == 20 and not any(m.ready for m in changed.members)
    with pytest.raises(BadRoomSettings, match="base_score"):
        await rooms.change("ann", room.code, {"base_score": 0}, None, None)


async def test_all_ready_starts_an_auto_start_room_with_the_rooms_settings(rooms, tables):
    room = await rooms.create("ann", "koudian", {"base_score": 2}, 50, 1)
    await fill(rooms, room.code, ["bob", "cy", "dee"])
    for p in ("ann", "bob", "cy"):
        assert (await rooms.set_ready(p, room.code, True)).state is RoomState.OPEN
    started = await rooms.set_ready("dee", room.code, True)
    assert started.state is RoomState.STARTED and started.table_id == "table-" + room.room_id
    assert tables.made[room.room_id] == ("koudian", {"base_score": 2, "rounds_per_match": 1}, 50,
                                         ("ann", "bob", "cy", "dee"))
    with pytest.raises(RoomNotOpen):
        await rooms.leave("bob", room.code)


async def test_a_room_without_auto_start_waits_for_its_host(rooms):
    room = await rooms.create("ann", "koudian", {}, 0, 0, auto_start=False)
    await fill(rooms, room.code, ["bob", "cy", "dee"])
    with pytest.raises(NotReadyToStart):
        await rooms.start("ann", room.code)
    for p in ("ann", "bob", "cy", "dee"):
        assert (await rooms.set_ready(p, room.code, True)).state is RoomState.OPEN
    assert (await rooms.start("ann", room.code)).state is RoomState.STARTED


async def test_a_start_short_of_chips_reopens_the_room_with_that_member_unready(rooms, tables):
    tables.short = "cy"
    room = await rooms.create("ann", "koudian", {}, 10_000, 0, auto_start=False)
    await fill(rooms, room.code, ["bob", "cy", "dee"])
    for p in ("ann", "bob", "cy", "dee"):
        await rooms.set_ready(p, room.code, True)
    with pytest.raises(CannotSit):
        await rooms.start("ann", room.code)
    after = await rooms.get(room.code)
    assert after.state is RoomState.OPEN and not after.starting
    assert [m.player_id for m in after.members if not m.ready] == ["cy"]


async def test_concurrent_last_readies_make_one_table(rooms, tables):
    room = await rooms.create("ann", "daqi", {}, 0, 0)
    await fill(rooms, room.code, ["bob", "cy", "dee", "eve"])
    results = await asyncio.gather(*(rooms.set_ready(p, room.code, True)
                                     for p in ("ann", "bob", "cy", "dee", "eve")))
    final = await rooms.get(room.code)
    assert final.state is RoomState.STARTED and len(tables.made) == 1
    assert {r.table_id for r in results if r.state is RoomState.STARTED} == {final.table_id}


async def test_a_room_nobody_acts_in_expires_and_its_code_is_reused(rooms, clock):
    sequence = iter([7, 7, 8])
    rooms.randbelow = lambda n: next(sequence)
    room = await rooms.create("ann", "koudian", {}, 0, 0)
    assert (await rooms.create("bob", "koudian", {}, 0, 0)).code == "000008"  # 000007 is held
    clock.now_ms += EXPIRY_S * 1000
    expired = await rooms.get(room.code)
    assert expired.state is RoomState.CLOSED and expired.closed_reason == "expired"
    with pytest.raises(RoomNotFound):
        await rooms.join("cy", room.code, "addr")
    rooms.randbelow = lambda n: 7
    again = await rooms.create("dee", "koudian", {}, 0, 0)
    assert again.code == room.code and again.room_id != room.room_id and again.host == "dee"


async def test_the_host_leaving_hands_over_and_the_last_one_closes(rooms):
    room = await rooms.create("ann", "koudian", {}, 0, 0)
    await fill(rooms, room.code, ["bob"])
    assert (await rooms.leave("ann", room.code)).host == "bob"
    closed = await rooms.leave("bob", room.code)
    assert closed.state is RoomState.CLOSED and closed.closed_reason == "empty"
    with pytest.raises(RoomNotFound):
        await rooms.join("cy", room.code, "addr")


async def test_watching_streams_every_change_until_the_start(rooms):
    room = await rooms.create("ann", "koudian", {}, 0, 0)
    seen: list[Room] = []

    async def watch() -> None:
        async for r in rooms.watch("ann", room.code, "addr"):
            seen.append(r)

    watcher = asyncio.create_task(watch())
    while not seen:
        await asyncio.sleep(0.01)
    await fill(rooms, room.code, ["bob", "cy", "dee"])
    for p in ("ann", "bob", "cy", "dee"):
        await rooms.set_ready(p, room.code, True)
    await asyncio.wait_for(watcher, 10)
    versions = [r.version for r in seen]
    assert versions == list(range(1, len(seen) + 1))  # every version, in order
    assert seen[-1].state is RoomState.STARTED and seen[-1].table_id


async def test_a_kicked_member_sees_the_kick_and_their_watch_ends(rooms):
    room = await rooms.create("ann", "koudian", {}, 0, 0)
    await fill(rooms, room.code, ["bob"])
    seen: list[Room] = []

    async def watch() -> None:
        async for r in rooms.watch("bob", room.code, "addr"):
            seen.append(r)

    watcher = asyncio.create_task(watch())
    while not seen:
        await asyncio.sleep(0.01)
    await rooms.kick("ann", room.code, "bob")
    await asyncio.wait_for(watcher, 10)
    assert seen[-1].member("bob") is None and seen[-1].state is RoomState.OPEN


async def test_only_members_watch_a_room(rooms):
    room = await rooms.create("ann", "koudian", {}, 0, 0)
    with pytest.raises(Forbidden):
        async for _ in rooms.watch("zed", room.code, "addr"):
            pass
