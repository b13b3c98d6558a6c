"""Bad input gets a typed error that names the problem, and nothing is written."""

from __future__ import annotations

import time

import pytest

from services.eventstore import (
    MAX_PAYLOAD_BYTES,
    MAX_STREAM_ID_LENGTH,
    EventStoreError,
    InvalidInput,
    InvalidStreamId,
    InvalidVersion,
    NewEvent,
    NotSerialisable,
    PayloadTooLarge,
    StoreUnavailable,
    UnknownEventType,
    open_event_store,
)

from .events import moved

pytestmark = pytest.mark.integration


async def _nothing_written(store) -> None:
    assert await store.read_all() == []
    assert await store.list_streams() == []


async def test_an_unregistered_event_type_is_refused_by_name(store):
    with pytest.raises(UnknownEventType, match="test.store.Nope"):
        await store.append("s", 0, [moved(1), NewEvent("test.store.Nope", {})])
    await _nothing_written(store)


async def test_a_store_can_be_given_its_own_event_type_predicate(open_store):
    store = await open_store(known_type=lambda name: name.startswith("ext."))
    assert await store.append("s", 0, [NewEvent("ext.Anything", {"a": 1})]) == 1
    with pytest.raises(UnknownEventType):
        await store.append("s", 1, [moved(1)])


@pytest.mark.parametrize("version", [-1, 1.0, "1", None, True, False, 2**63])
async def test_an_expected_version_must_be_a_non_negative_integer(store, version):
    with pytest.raises(InvalidVersion, match="expected version"):
        await store.append("s", version, [moved(1)])
    await _nothing_written(store)


@pytest.mark.parametrize("args", [(0,), (-1,), (1.5,), (True,), (1, -1), (1, "2")])
async def test_read_stream_versions_must_be_integers_in_range(store, args):
    with pytest.raises(InvalidVersion):
        await store.read_stream("s", *args)


@pytest.mark.parametrize("schema_version", [0, -3, 1.0, True, "2"])
async def test_an_event_schema_version_must_be_a_positive_integer(store, schema_version):
    with pytest.raises(InvalidVersion, match="schema version"):
        await store.append("s", 0, [moved(1), NewEvent("test.store.Moved", {"n": 2}, schema_version)])
    await _nothing_written(store)


@pytest.mark.parametrize(
    ("stream_id", "problem"),
    [("", "empty"), ("x" * (MAX_STREAM_ID_LENGTH + 1), "long"), (42, "text"),
     (None, "text"), ("a\x00b", "control"), ("a\nb", "control"), ("a\ud800", "Unicode")],
)
async def test_a_stream_id_must_be_non_empty_text_of_bounded_length(store, stream_id, problem):
    with pytest.raises(InvalidStreamId, match=problem):
        await store.append(stream_id, 0, [moved(1)])
    await _nothing_written(store)


async def test_the_longest_allowed_stream_id_is_accepted(store):
    sid = "x" * MAX_STREAM_ID_LENGTH
    assert await store.append(sid, 0, [moved(1)]) == 1


async def test_a_payload_over_1_mib_is_refused_with_its_size(store):
    big = NewEvent("test.store.Said", {"text": "x" * MAX_PAYLOAD_BYTES})
    with pytest.raises(PayloadTooLarge, match=r"\d+ bytes.*limit is 1048576"):
        await store.append("s", 0, [moved(1), big])
    await _nothing_written(store)


async def test_a_payload_just_under_1_mib_is_stored(store):
    text = "x" * (MAX_PAYLOAD_BYTES - 100)
    await store.append("s", 0, [NewEvent("test.store.Said", {"text": text})])
    assert (await store.read_stream("s"))[0].data["text"] == text


@pytest.mark.parametrize(
    ("data", "problem"),
    [({"when": object()}, "not JSON-serialisable"), ({"x": float("nan")}, "not JSON-serialisable"),
     ({"x": {1, 2}}, "not JSON-serialisable"), (["not", "a", "dict"], "must be a dict"),
     ({"x": "nul\x00"}, "NUL"), ({"x": "\ud800"}, "not JSON-serialisable")],
)
async def test_data_that_is_not_json_serialisable_is_refused(store, data, problem):
    with pytest.raises(NotSerialisable, match=problem):
        await store.append("s", 0, [moved(1), NewEvent("test.store.Moved", data)])
    await _nothing_written(store)


async def test_metadata_that_is_not_json_serialisable_is_refused(store):
    with pytest.raises(NotSerialisable, match="metadata of event #0"):
        await store.append("s", 0, [NewEvent("test.store.Moved", {"n": 1}, metadata={"t": time})])
    await _nothing_written(store)


async def test_circular_metadata_is_refused_as_not_serialisable(store):
    loop: dict = {"n": 1}
    loop["self"] = loop
    with pytest.raises(NotSerialisable, match="metadata of event #1"):
        await store.append("s", 0, [moved(1), NewEvent("test.store.Moved", {"n": 2}, metadata=loop)])
    await _nothing_written(store)


async def test_events_sharing_one_metadata_dict_each_store_it_and_a_bad_one_after_is_still_checked(store):
    shared = {"command_id": "c", "note": "一马"}
    with pytest.raises(NotSerialisable, match="metadata of event #2"):
        await store.append("s", 0, [NewEvent("test.store.Moved", {"n": 1}, metadata=shared),
                                    NewEvent("test.store.Moved", {"n": 2}, metadata=shared),
                                    NewEvent("test.store.Moved", {"n": 3}, metadata={"t": time})])
    await _nothing_written(store)
    other = {"command_id": "d"}
    events = [NewEvent("test.store.Moved", {"n": n}, metadata=meta)
              for n, meta in enumerate([shared, shared, other, shared], 1)]
    await store.append("s", 0, events)
    assert [r.metadata for r in await store.read_stream("s")] == [shared, shared, other, shared]


@pytest.mark.parametrize("events", [[], moved(1), [{"type": "test.store.Moved"}], "events"])
async def test_an_append_needs_a_non_empty_list_of_new_events(store, events):
    with pytest.raises(InvalidInput):
        await store.append("s", 0, events)
    await _nothing_written(store)


@pytest.mark.parametrize("command_id", ["", 7, "c" * 201])
async def test_a_command_id_must_be_non_empty_text(store, command_id):
    with pytest.raises(InvalidInput, match="command id"):
        await store.append("s", 0, [moved(1)], command_id=command_id)


@pytest.mark.parametrize("limit", [0, -1, 1.5, 100_001])
async def test_read_all_limit_must_be_a_sane_integer(store, limit):
    with pytest.raises(InvalidInput, match="limit"):
        await store.read_all(limit=limit)


async def test_a_snapshot_is_checked_like_an_event(store):
    with pytest.raises(InvalidVersion):
        await store.save_snapshot("s", 0, "test.State", 1, {})
    with pytest.raises(NotSerialisable):
        await store.save_snapshot("s", 1, "test.State", 1, {"x": object()})
    with pytest.raises(PayloadTooLarge):
        await store.save_snapshot("s", 1, "test.State", 1, {"x": "y" * MAX_PAYLOAD_BYTES})
    assert await store.load_snapshot("s") is None


async def test_the_size_limit_counts_utf8_bytes_not_characters(store):
    text = "\u4e00" * (MAX_PAYLOAD_BYTES // 3 + 10)  # a third as many characters as bytes
    with pytest.raises(PayloadTooLarge, match=r"snapshot of s is \d+ bytes"):
        await store.save_snapshot("s", 1, "test.State", 1, {"x": text})
    with pytest.raises(PayloadTooLarge, match=r"event #0 \(test.store.Said\) is \d+ bytes"):
        await store.append("s", 0, [NewEvent("test.store.Said", {"text": text})])
    await _nothing_written(store)
    assert await store.load_snapshot("s") is None


async def test_every_error_is_an_event_store_error():
    for cls in (UnknownEventType, InvalidVersion, InvalidStreamId, PayloadTooLarge, NotSerialisable,
                StoreUnavailable):
        assert issubclass(cls, EventStoreError)


async def test_an_unreachable_postgres_is_reported_quickly_with_host_and_port_but_no_password():
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as caught:
        await open_event_store("postgresql://qipai:s3cret-pw@127.0.0.1:1/test", connect_timeout=1)
    message = str(caught.value)
    assert "127.0.0.1" in message and ":1/" in message
    assert "s3cret-pw" not in message
    assert time.monotonic() - started < 5


async def test_an_unopenable_sqlite_path_is_reported_with_the_path(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(StoreUnavailable, match="a-file"):
        await open_event_store(f"sqlite:///{blocker}/events.sqlite3")


@pytest.mark.parametrize("url", ["mysql://x/y", "memory://", "sqlite:/relative"])
async def test_an_unsupported_url_is_refused_by_scheme(url):
    with pytest.raises(InvalidInput, match="unsupported"):
        await open_event_store(url)


async def test_a_postgres_schema_name_must_be_a_plain_identifier(postgres_url):
    with pytest.raises(InvalidInput, match="schema"):
        await open_event_store(postgres_url, schema="x; DROP TABLE events")
