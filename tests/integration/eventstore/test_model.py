"""Property: any sequence of appends behaves like a simple in-memory model of the contract."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.eventstore import WrongExpectedVersion, open_event_store

from .events import moved

pytestmark = pytest.mark.integration

appends = st.lists(
    st.tuples(
        st.sampled_from("abc"),                       # stream
        st.integers(-1, 1),                           # expected version relative to the real one
        st.integers(1, 3),                            # how many events
        st.sampled_from([None, None, "c1", "c2"]),    # command id
    ),
    max_size=25,
)


async def _check_against_model(url: str, ops, schema: str | None = None) -> None:
    prefix = uuid.uuid4().hex[:8]  # examples share a Postgres schema; streams do not
    options = {"schema": schema} if schema else {}
    store = await open_event_store(url, **options)
    versions: dict[str, int] = {}
    commands: dict[tuple[str, str], int] = {}
    stored: list[tuple[str, int, int]] = []
    try:
        for n, (name, offset, count, command_id) in enumerate(ops):
            sid = f"{prefix}-{name}"
            current = versions.get(sid, 0)
            expected = max(0, current + offset)
            events = [moved(n * 10 + i) for i in range(count)]
            if command_id is not None and (sid, command_id) in commands:
                assert await store.append(sid, expected, events, command_id) == commands[sid, command_id]
            elif expected != current:
                with pytest.raises(WrongExpectedVersion) as caught:
                    await store.append(sid, expected, events, command_id)
                assert caught.value.actual == current
            else:
                assert await store.append(sid, expected, events, command_id) == current + count
                versions[sid] = current + count
                if command_id is not None:
                    commands[sid, command_id] = current + count
                stored += [(sid, current + i + 1, n * 10 + i) for i in range(count)]
        for name in "abc":
            sid = f"{prefix}-{name}"
            assert await store.stream_version(sid) == versions.get(sid, 0)
            assert [(e.stream_id, e.version, e.data["n"]) for e in await store.read_stream(sid)] == [
                row for row in stored if row[0] == sid
            ]
        mine = [e for e in await store.read_all(limit=100_000) if e.stream_id.startswith(prefix)]
        assert [(e.stream_id, e.version, e.data["n"]) for e in mine] == stored
    finally:
        await store.close()


@settings(max_examples=60, deadline=None)
@given(appends)
def test_sqlite_appends_match_the_model(ops):
    asyncio.run(_check_against_model("sqlite:///:memory:", ops))


# derandomize: the same examples every run, so a failure here is a regression, never luck.
@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=appends)
def test_postgres_appends_match_the_model(postgres_url, pg_schema, ops):
    asyncio.run(_check_against_model(postgres_url, ops, schema=pg_schema))
