"""Table view cache and per-table fan-out, on both backends."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from services.live import LiveState, LiveStateUnavailable, Published, View, open_live_state
from services.live.redis import FANOUT_SHARDS
from tests.integration.live.conftest import collect


async def test_a_table_without_a_cached_view_has_none(live: LiveState) -> None:
    assert await live.get_view("t1") is None


async def test_a_stored_view_is_read_back_with_its_version(live: LiveState) -> None:
    assert await live.set_view("t1", 3, b"\x00view 3\xff")
    assert await live.get_view("t1") == (3, b"\x00view 3\xff")


async def test_a_newer_view_replaces_the_cached_one(live: LiveState) -> None:
    await live.set_view("t1", 3, b"v3")
    assert await live.set_view("t1", 4, b"v4")
    assert await live.get_view("t1") == (4, b"v4")


async def test_an_older_or_equal_view_never_overwrites_a_newer_one(live: LiveState) -> None:
    await live.set_view("t1", 7, b"v7")
    assert not await live.set_view("t1", 6, b"v6")
    assert not await live.set_view("t1", 7, b"other v7")
    assert await live.get_view("t1") == (7, b"v7")


async def test_views_of_different_tables_are_independent(live: LiveState) -> None:
    await live.set_view("t1", 9, b"one")
    await live.set_view("t2", 1, b"two")
    assert await live.get_view("t1") == (9, b"one")
    assert await live.get_view("t2") == (1, b"two")


async def test_a_listener_gets_every_published_message_in_version_order(live: LiveState) -> None:
    for version in range(1, 6):
        assert await live.publish("t1", version, f"e{version}".encode())
    got = await collect(live, "t1", 0, 5)
    assert got == [(v, f"e{v}".encode()) for v in range(1, 6)]


async def test_a_listener_resumes_after_the_version_it_already_has(live: LiveState) -> None:
    for version in range(1, 6):
        await live.publish("t1", version, f"e{version}".encode())
    got = await collect(live, "t1", 3, 2)
    assert [m.version for m in got] == [4, 5]


async def test_a_listener_receives_messages_published_after_it_started(live: LiveState) -> None:
    await live.publish("t1", 1, b"e1")
    listener = asyncio.create_task(collect(live, "t1", 1, 3))
    await asyncio.sleep(0.05)
    for version in (2, 3, 4):
        await live.publish("t1", version, f"e{version}".encode())
    assert [m.version for m in await listener] == [2, 3, 4]


async def test_several_listeners_of_one_table_each_get_everything(live: LiveState) -> None:
    listeners = [asyncio.create_task(collect(live, "t1", 0, 4)) for _ in range(3)]
    await asyncio.sleep(0.05)
    for version in range(1, 5):
        await live.publish("t1", version, b"x")
    for listener in listeners:
        assert [m.version for m in await listener] == [1, 2, 3, 4]


async def test_a_duplicate_publish_is_ignored(live: LiveState) -> None:
    assert await live.publish("t1", 1, b"first")
    assert not await live.publish("t1", 1, b"again")
    assert await live.publish("t1", 2, b"second")
    got = await collect(live, "t1", 0, 2)
    assert got == [(1, b"first"), (2, b"second")]


async def test_publishing_a_version_older_than_the_newest_is_ignored(live: LiveState) -> None:
    await live.publish("t1", 5, b"five")
    assert not await live.publish("t1", 4, b"four")
    await live.publish("t1", 6, b"six")
    assert [m.version for m in await collect(live, "t1", 0, 2)] == [5, 6]


async def test_versions_start_at_one(live: LiveState) -> None:
    with pytest.raises(ValueError, match="1 or more"):
        await live.publish("t1", 0, b"x")


async def test_listeners_only_hear_their_own_table(live: LiveState) -> None:
    listener = asyncio.create_task(collect(live, "t1", 0, 1))
    await asyncio.sleep(0.05)
    await live.publish("t2", 1, b"other table")
    await live.publish("t1", 1, b"mine")
    assert await listener == [(1, b"mine")]


async def test_a_cancelled_listener_stops_and_the_state_keeps_working(live: LiveState) -> None:
    listener = asyncio.create_task(collect(live, "t1", 0, 1))
    await asyncio.sleep(0.1)
    listener.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(listener, timeout=5)
    await live.publish("t1", 1, b"after")
    assert await collect(live, "t1", 0, 1) == [(1, b"after")]
    assert await live.set_view("t1", 1, b"v")


async def test_the_stream_is_trimmed_to_its_newest_messages(open_live) -> None:
    live = open_live(stream_maxlen=10)
    for version in range(1, 1001):
        await live.publish("t1", version, b"x")
    # Redis trims approximately (whole radix-tree nodes), so only bound it loosely.
    kept: list[int] = []

    async def drain() -> None:
        async for message in live.listen("t1", 0):
            kept.append(message.version)
            if message.version == 1000:
                return

    await asyncio.wait_for(drain(), timeout=10)
    assert kept[-1] == 1000
    assert 10 <= len(kept) < 1000
    assert kept == sorted(set(kept))


async def test_a_late_listener_gets_the_history_then_the_live_messages(live: LiveState) -> None:
    early = asyncio.create_task(collect(live, "t1", 0, 5))
    for version in (1, 2, 3):
        await live.publish("t1", version, b"x")
    await asyncio.sleep(0.05)
    late = asyncio.create_task(collect(live, "t1", 1, 4))
    await asyncio.sleep(0.05)
    for version in (4, 5):
        await live.publish("t1", version, b"x")
    assert [m.version for m in await early] == [1, 2, 3, 4, 5]
    assert [m.version for m in await late] == [2, 3, 4, 5]


async def test_many_tables_each_reach_only_their_own_listeners(open_live, backend) -> None:
    # A small group size spreads the tables over several shared Redis readers.
    live = open_live(**({"listen_group_size": 3} if backend != "memory" else {}))
    tables = [f"t{i}" for i in range(10)]
    listeners = {t: asyncio.create_task(collect(live, t, 0, 3)) for t in tables}
    await asyncio.sleep(0.05)
    for version in (1, 2, 3):
        for t in tables:
            await live.publish(t, version, t.encode())
    for t in tables:
        assert await listeners[t] == [(v, t.encode()) for v in (1, 2, 3)]


async def test_a_listener_that_falls_far_behind_still_gets_everything_in_order(
    open_live, backend
) -> None:
    live = open_live(**({"listen_queue_size": 2} if backend != "memory" else {}))
    heard: list[int] = []
    started = asyncio.Event()

    async def slow_listener() -> None:
        async for message in live.listen("t1", 0):
            started.set()
            heard.append(message.version)
            if message.version == 1:
                # Stall while many messages arrive, far more than the queue holds.
                await asyncio.sleep(0.5)
            if message.version == 200:
                return

    task = asyncio.create_task(slow_listener())
    await live.publish("t1", 1, b"x")
    await asyncio.wait_for(started.wait(), timeout=10)
    for version in range(2, 201):
        await live.publish("t1", version, b"x")
    await asyncio.wait_for(task, timeout=10)
    assert heard == list(range(1, 201))


async def test_closing_the_live_state_ends_its_listeners_with_a_typed_error(open_live) -> None:
    live = open_live(namespace="closing-" + _suffix())
    listener = asyncio.create_task(collect(live, "t1", 0, 1))
    await asyncio.sleep(0.05)
    await live.close()
    with pytest.raises(LiveStateUnavailable):
        await asyncio.wait_for(listener, timeout=10)


def _suffix() -> str:
    return uuid.uuid4().hex[:8]


async def test_a_command_publishes_its_events_and_caches_its_view_in_one_update(
    live: LiveState,
) -> None:
    events = [Published(1, b"e1"), Published(2, b"e2"), Published(3, b"e3")]
    assert await live.update_table("t1", events, View(3, b"view 3")) == 3
    assert await live.get_view("t1") == (3, b"view 3")
    assert await collect(live, "t1", 0, 3) == events


async def test_an_update_repeated_after_a_retry_appends_only_the_new_events(
    live: LiveState,
) -> None:
    await live.update_table("t1", [Published(1, b"e1"), Published(2, b"e2")], View(2, b"v2"))
    retried = [Published(2, b"e2"), Published(3, b"e3")]
    assert await live.update_table("t1", retried, View(1, b"stale view")) == 1
    assert await live.get_view("t1") == (2, b"v2")
    assert [m.version for m in await collect(live, "t1", 0, 3)] == [1, 2, 3]


async def test_an_update_may_carry_only_a_view_or_only_events(live: LiveState) -> None:
    assert await live.update_table("t1", [], View(0, b"empty table")) == 0
    assert await live.get_view("t1") == (0, b"empty table")
    assert await live.update_table("t1", [Published(1, b"e1")]) == 1
    assert await live.get_view("t1") == (0, b"empty table")


async def test_listeners_of_many_tables_share_a_few_blocking_reads(live_redis_url: str) -> None:
    # One XREAD names streams of one hash slot: on a cluster, one reader per fan-out shard.
    live = open_live_state(live_redis_url, namespace="test-shared-" + _suffix())
    tables = [f"t{i}" for i in range(300)]
    try:
        listeners = {t: asyncio.create_task(collect(live, t, 0, 1)) for t in tables}
        await asyncio.sleep(0.2)
        readers = len(_fan_out_tasks())
        for t in tables:
            await live.publish(t, 1, t.encode())
        for t in tables:
            assert await listeners[t] == [(1, t.encode())]
    finally:
        await live.flush_namespace()
        await live.close()
    assert readers <= (FANOUT_SHARDS if live_redis_url.startswith("redis+cluster") else 2)


async def test_each_message_a_watcher_gets_live_records_its_fan_out_lag(live_redis_url: str) -> None:
    from prometheus_client import REGISTRY

    def delivered() -> float:
        return REGISTRY.get_sample_value("qipai_fanout_lag_seconds_count") or 0

    live = open_live_state(live_redis_url, namespace="test-lag-" + _suffix())
    try:
        listener = asyncio.create_task(collect(live, "t1", 0, 3))
        await asyncio.sleep(0.2)  # joined the reader: what follows arrives live, not caught up
        before = delivered()
        await live.update_table("t1", [Published(1, b"e1"), Published(2, b"e2")])
        await live.publish("t1", 3, b"e3")
        assert [m.version for m in await listener] == [1, 2, 3]
    finally:
        await live.flush_namespace()
        await live.close()
    assert delivered() - before == 3


async def test_cancelled_listeners_leave_no_redis_reader_running(live_redis_url: str) -> None:
    live = open_live_state(live_redis_url, namespace="test-readers-" + _suffix(), listen_group_size=4)
    try:
        await _cancel_listeners_and_wait_for_readers_to_stop(live)
    finally:
        await live.close()


async def _cancel_listeners_and_wait_for_readers_to_stop(live: LiveState) -> None:
    async def listen(table_id: str) -> None:
        async for _ in live.listen(table_id, 0):
            pass

    listeners = [asyncio.create_task(listen(f"t{i}")) for i in range(10)]
    await asyncio.sleep(0.2)
    assert _fan_out_tasks()
    for listener in listeners:
        listener.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)
    for _ in range(50):
        if not _fan_out_tasks():
            break
        await asyncio.sleep(0.1)
    assert not _fan_out_tasks()


def _fan_out_tasks() -> list[asyncio.Task]:
    return [t for t in asyncio.all_tasks() if t.get_name().startswith("fan-out")]
