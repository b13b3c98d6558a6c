"""The event-store contract, run against SQLite and Postgres alike."""

from __future__ import annotations

import asyncio

import pytest

from services.eventstore import START, GlobalPosition, NewEvent, WrongExpectedVersion

from .events import Moved, Scored, moved, said

pytestmark = pytest.mark.integration


async def test_a_new_stream_starts_at_expected_version_0_and_returns_its_new_version(store):
    assert await store.append("table-1", 0, [moved(1), moved(2)]) == 2
    assert await store.stream_version("table-1") == 2
    assert await store.stream_version("table-never") == 0


async def test_appended_events_read_back_exactly_with_their_versions_and_metadata(store):
    await store.append("table-1", 0, [moved(1, actor="p1", command_id="c1"), said("hi")])
    got = await store.read_stream("table-1")
    assert [(e.stream_id, e.version, e.type, e.schema_version) for e in got] == [
        ("table-1", 1, "test.store.Moved", 1),
        ("table-1", 2, "test.store.Said", 1),
    ]
    assert got[0].data == {"n": 1} and got[1].data == {"text": "hi"}
    assert got[0].metadata == {"actor": "p1", "command_id": "c1"}
    assert got[0].recorded_at.tzinfo is not None
    assert got[0].decode() == Moved(1)


async def test_a_writer_reads_its_own_writes_immediately(store):
    for version in range(5):
        await store.append("s", version, [moved(version)])
        assert [e.data["n"] for e in await store.read_stream("s")] == list(range(version + 1))
        assert (await store.read_all())[-1].data == {"n": version}


async def test_two_writers_with_the_same_expected_version_exactly_one_wins(store):
    await store.append("s", 0, [moved(0)])
    results = await asyncio.gather(
        *(store.append("s", 1, [moved(i)]) for i in range(1, 9)), return_exceptions=True
    )
    wins = [r for r in results if not isinstance(r, BaseException)]
    losses = [r for r in results if isinstance(r, BaseException)]
    assert wins == [2]
    assert all(isinstance(e, WrongExpectedVersion) for e in losses) and len(losses) == 7
    assert [e.version for e in await store.read_stream("s")] == [1, 2]


async def test_a_wrong_expected_version_names_the_stream_the_expected_and_the_actual_version(store):
    await store.append("table-7", 0, [moved(1), moved(2), moved(3)])
    for stale in (0, 2, 4):
        with pytest.raises(WrongExpectedVersion) as caught:
            await store.append("table-7", stale, [moved(9)])
        err = caught.value
        assert (err.stream_id, err.expected, err.actual) == ("table-7", stale, 3)
        assert "table-7" in str(err) and str(stale) in str(err) and "3" in str(err)
    assert await store.stream_version("table-7") == 3


async def test_a_retried_command_returns_the_original_version_and_writes_nothing(store):
    assert await store.append("s", 0, [moved(1), moved(2)], command_id="cmd-1") == 2
    assert await store.append("s", 0, [moved(1), moved(2)], command_id="cmd-1") == 2
    await store.append("s", 2, [moved(3)], command_id="cmd-2")
    # Even with an expected version that is now stale, the retry is answered, not refused.
    assert await store.append("s", 0, [moved(1), moved(2)], command_id="cmd-1") == 2
    assert await store.append("s", 2, [moved(3)], command_id="cmd-2") == 3
    assert [e.data["n"] for e in await store.read_stream("s")] == [1, 2, 3]


async def test_a_command_tells_the_version_it_brought_its_stream_to(store):
    await store.append("s", 0, [moved(1), moved(2)], command_id="cmd-1")
    await store.append("s", 2, [moved(3)])
    await store.append("other", 0, [moved(1)], command_id="cmd-2")
    assert await store.command_version("s", "cmd-1") == 2
    assert await store.command_version("s", "cmd-2") is None
    assert await store.command_version("other", "cmd-2") == 1


async def test_concurrent_retries_of_one_command_write_it_once(store):
    results = await asyncio.gather(
        *(store.append("s", 0, [moved(1)], command_id="same") for _ in range(6)),
        return_exceptions=True,
    )
    assert results == [1] * 6
    assert len(await store.read_stream("s")) == 1


async def test_a_command_id_is_scoped_to_its_stream(store):
    assert await store.append("a", 0, [moved(1)], command_id="c") == 1
    assert await store.append("b", 0, [moved(1), moved(2)], command_id="c") == 2
    assert await store.stream_version("a") == 1


async def test_a_multi_event_append_is_atomic_all_or_nothing(store):
    await store.append("s", 0, [moved(1)])
    with pytest.raises(WrongExpectedVersion):
        await store.append("s", 0, [moved(2), moved(3), moved(4)])
    assert [e.version for e in await store.read_stream("s")] == [1]
    assert await store.append("s", 1, [moved(i) for i in range(2, 102)]) == 101
    got = await store.read_stream("s")
    assert [e.version for e in got] == list(range(1, 102))
    assert [e.data["n"] for e in got] == list(range(1, 102))


async def test_events_of_one_append_are_contiguous_and_in_order_in_the_global_log(store):
    await store.append("a", 0, [moved(1)])
    await store.append("b", 0, [moved(10), moved(11), moved(12)])
    await store.append("a", 1, [moved(2)])
    log = await store.read_all()
    assert [(e.stream_id, e.data["n"]) for e in log] == [
        ("a", 1), ("b", 10), ("b", 11), ("b", 12), ("a", 2),
    ]
    assert [e.position for e in log] == sorted(e.position for e in log)
    assert len({e.position for e in log}) == len(log)


async def test_read_stream_reads_a_version_range(store):
    await store.append("s", 0, [moved(i) for i in range(1, 11)])
    assert [e.version for e in await store.read_stream("s", 4)] == list(range(4, 11))
    assert [e.version for e in await store.read_stream("s", 4, 6)] == [4, 5, 6]
    assert await store.read_stream("s", 11) == []
    assert await store.read_stream("nobody") == []


async def test_read_all_pages_by_global_position_without_repeats_or_gaps(store):
    for i in range(25):
        await store.append(f"s{i % 4}", i // 4, [moved(i)])
    seen, after = [], START
    while page := await store.read_all(after, limit=7):
        assert len(page) <= 7
        seen.extend(page)
        after = page[-1].position
    assert [e.data["n"] for e in seen] == list(range(25))
    assert await store.read_all(after) == []


async def test_a_global_position_round_trips_through_text(store):
    await store.append("s", 0, [moved(1)])
    (event,) = await store.read_all()
    assert GlobalPosition.parse(str(event.position)) == event.position
    with pytest.raises(ValueError):
        GlobalPosition.parse("12")


async def test_list_streams_lists_each_stream_once_filtered_by_prefix(store):
    for sid in ["table:b", "table:a", "other:1", "table:a_b", "table:%"]:
        await store.append(sid, 0, [moved(1), moved(2)])
    assert await store.list_streams() == ["other:1", "table:%", "table:a", "table:a_b", "table:b"]
    assert await store.list_streams("table:a") == ["table:a", "table:a_b"]
    assert await store.list_streams("table:%") == ["table:%"]
    assert await store.list_streams("zzz") == []


async def test_a_store_reopened_after_close_sees_everything_and_continues(open_store):
    first = await open_store()
    await first.append("s", 0, [moved(1)], command_id="c1")
    await first.save_snapshot("s", 1, "test.State", 1, {"total": 1})
    await first.close()
    second = await open_store()
    assert [e.data for e in await second.read_stream("s")] == [{"n": 1}]
    assert await second.append("s", 0, [moved(1)], command_id="c1") == 1
    assert await second.append("s", 1, [moved(2)]) == 2
    assert (await second.load_snapshot("s")).data == {"total": 1}


async def test_two_stores_on_one_database_see_each_others_writes(open_store):
    a, b = await open_store(), await open_store()
    await a.append("s", 0, [moved(1)])
    assert await b.append("s", 1, [moved(2)]) == 2
    with pytest.raises(WrongExpectedVersion):
        await a.append("s", 1, [moved(3)])


async def test_a_snapshot_keeps_the_latest_state_and_never_goes_back(store):
    assert await store.load_snapshot("s") is None
    await store.save_snapshot("s", 5, "test.State", 2, {"total": 5})
    await store.save_snapshot("s", 3, "test.State", 2, {"total": 3})
    snap = await store.load_snapshot("s")
    assert (snap.stream_id, snap.version, snap.type, snap.schema_version, snap.data) == (
        "s", 5, "test.State", 2, {"total": 5},
    )
    await store.save_snapshot("s", 9, "test.State", 2, {"total": 9})
    assert (await store.load_snapshot("s")).version == 9


async def test_rehydration_is_the_snapshot_plus_the_tail(store):
    await store.append("s", 0, [moved(i) for i in range(1, 6)])
    await store.save_snapshot("s", 3, "test.Sum", 1, {"total": 6})
    await store.append("s", 5, [moved(6)])
    snap = await store.load_snapshot("s")
    tail = await store.read_stream("s", snap.version + 1)
    assert snap.data["total"] + sum(e.data["n"] for e in tail) == sum(range(1, 7))


async def test_unicode_text_is_stored_as_readable_text(store):
    await store.append("桌-1", 0, [NewEvent("test.store.Said", {"text": "♠A 🀄 中發白"})])
    (event,) = await store.read_stream("桌-1")
    assert event.data == {"text": "♠A 🀄 中發白"}


async def test_follow_yields_past_events_then_live_ones(store):
    await store.append("s", 0, [moved(1)])
    got = []

    async def reader():
        async for event in store.follow(poll_interval=0.2):
            got.append(event.data["n"])
            if len(got) == 3:
                return

    task = asyncio.create_task(reader())
    await asyncio.sleep(0.05)
    await store.append("s", 1, [moved(2), moved(3)])
    await asyncio.wait_for(task, 10)
    assert got == [1, 2, 3]


async def test_an_engine_event_is_stored_by_its_registered_name_and_decoded_back(store):
    await store.append("s", 0, [NewEvent.of(Scored(score=8, seat=2), {"actor": "p2"})])
    (event,) = await store.read_stream("s")
    assert (event.type, event.schema_version, event.data) == ("test.store.Scored", 2, {"score": 8, "seat": 2})
    assert event.metadata == {"actor": "p2"}
    assert event.decode() == Scored(score=8, seat=2)


async def test_an_event_stored_under_an_old_schema_version_is_upcast_when_decoded(store):
    await store.append("s", 0, [NewEvent("test.store.Scored", {"points": 5}, schema_version=1)])
    (event,) = await store.read_stream("s")
    assert (event.schema_version, event.data) == (1, {"points": 5})  # stored as written
    assert event.decode() == Scored(score=5, seat=0)
