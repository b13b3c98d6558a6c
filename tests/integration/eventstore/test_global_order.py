"""Global order without loss: a subscriber never skips an event that commits late with a lower
position, and never sees one twice, however many writers race."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable

import psycopg
import psycopg.conninfo
import psycopg.sql
import pytest

from services.eventstore import (
    RecordedEvent,
    StoreUnavailable,
    WrongExpectedVersion,
    open_event_store,
)

from .events import moved

pytestmark = pytest.mark.integration


@contextlib.asynccontextmanager
async def _slow_writer(postgres_url: str, schema: str) -> AsyncIterator[Callable[[], Awaitable[None]]]:
    """A writer that takes a position (stream 'slow', version 1) first and commits last, when
    the caller calls what it yields."""
    async with await psycopg.AsyncConnection.connect(postgres_url, options=f"-c search_path={schema}") as slow:
        await slow.execute(
            "INSERT INTO events (stream_id, version, type, schema_version, data)"
            " VALUES ('slow', 1, 'test.store.Moved', 1, '{\"n\": 1}')"
        )
        yield slow.commit


async def _write(store, writer: int, appends: int, rng: random.Random) -> int:
    """`appends` successful appends of 1-3 events; returns how many events were written.

    Most go to the writer's own tables (as a game node holding their leases would); one in ten
    goes to a stream every writer shares, retried on a conflict like a real command.
    """
    known: dict[str, int] = defaultdict(int)
    written = 0
    for i in range(appends):
        sid = f"shared-{rng.randrange(5)}" if rng.random() < 0.1 else f"table-{writer}-{rng.randrange(4)}"
        count = rng.choice((1, 1, 1, 2, 3))
        while True:
            try:
                known[sid] = await store.append(
                    sid, known[sid], [moved(writer * 10_000 + i) for _ in range(count)]
                )
                written += count
                break
            except WrongExpectedVersion as err:
                known[sid] = err.actual
    return written


def _assert_exactly_once_in_order(seen: list[RecordedEvent], log: list[RecordedEvent]) -> None:
    keys = [(e.stream_id, e.version) for e in seen]
    assert len(keys) == len(set(keys)), "an event was delivered twice"
    assert sorted(keys) == sorted((e.stream_id, e.version) for e in log), "an event was skipped"
    positions = [e.position for e in seen]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    versions: dict[str, list[int]] = defaultdict(list)
    for e in seen:
        versions[e.stream_id].append(e.version)
    for sid, got in versions.items():
        assert got == list(range(1, len(got) + 1)), f"stream {sid} out of order or with a gap"


async def test_many_concurrent_writers_and_a_live_subscriber_see_every_event_exactly_once_in_order(
    open_store,
):
    store = await open_store()
    postgres = store.backend == "postgres"
    writers, appends = (50, 200) if postgres else (10, 100)
    seen: list[RecordedEvent] = []
    followed: list[RecordedEvent] = []

    async def handler(tx, events):
        seen.extend(events)

    subscription = store.subscribe("all", handler, batch_size=100, poll_interval=0.2)
    consumer = asyncio.create_task(subscription.run())

    async def follow():
        async for event in store.follow(poll_interval=0.2):
            followed.append(event)

    follower = asyncio.create_task(follow())
    written = await asyncio.gather(
        *(_write(store, w, appends, random.Random(w)) for w in range(writers))
    )
    total = sum(written)
    async with asyncio.timeout(60):  # a loaded CI machine; a stuck subscriber never gets there
        while len(seen) < total or len(followed) < total:
            await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # anything extra (a duplicate) would arrive now
    consumer.cancel()
    follower.cancel()
    await asyncio.gather(consumer, follower, return_exceptions=True)

    log = await store.read_all(limit=100_000)
    assert len(log) == total, (len(log), total, len(seen), len(followed))
    _assert_exactly_once_in_order(seen, log)
    _assert_exactly_once_in_order(followed, log)
    assert await subscription.position() == log[-1].position


async def test_an_event_that_commits_late_with_a_lower_position_is_not_skipped(
    postgres_url, pg_schema, pg_store
):
    # Postgres only: SQLite serialises writers, so a lower position always commits first.
    store = pg_store
    await store.append("before", 0, [moved(0)])
    (first,) = await store.read_all()
    async with _slow_writer(postgres_url, pg_schema) as commit:
        await store.append("fast", 0, [moved(2)])
        # The fast event is committed, but reading past it now could skip the slow one.
        assert await store.read_all(first.position) == []
        await commit()
        after = await store.read_all(first.position)
    assert [e.stream_id for e in after] == ["slow", "fast"]
    slow_row, fast_row = after
    assert slow_row.position < fast_row.position


async def test_a_subscriber_waits_for_the_late_event_then_delivers_both_in_order(
    postgres_url, pg_schema, pg_store
):
    store = pg_store
    delivered: list[str] = []

    async def handler(tx, events):
        delivered.extend(e.stream_id for e in events)

    subscription = store.subscribe("s", handler)
    async with _slow_writer(postgres_url, pg_schema) as commit:
        await store.append("fast", 0, [moved(2)])
        assert await subscription.catch_up() == 0
        await commit()
        assert await subscription.catch_up() == 2
    assert delivered == ["slow", "fast"]


async def test_concurrent_appends_share_a_transaction_yet_each_is_decided_on_its_own(pg_store):
    await pg_store.append("stale", 0, [moved(0)])
    await pg_store.append("retried", 0, [moved(0)], command_id="c1")
    results = await asyncio.gather(
        *(pg_store.append(f"new-{i}", 0, [moved(i), moved(i)]) for i in range(20)),
        pg_store.append("stale", 0, [moved(1)]),
        pg_store.append("retried", 0, [moved(0)], command_id="c1"),
        return_exceptions=True,
    )
    assert results[:20] == [2] * 20
    assert isinstance(results[20], WrongExpectedVersion) and results[20].actual == 1
    assert results[21] == 1
    log = await pg_store.read_all()
    fresh = [e for e in log if e.stream_id.startswith("new-")]
    assert len(fresh) == 40
    # Group commit: twenty appends queued together went out in a few transactions, not twenty.
    assert len({e.position.tx_id for e in fresh}) <= 5
    assert await pg_store.stream_version("stale") == 1
    assert await pg_store.stream_version("retried") == 1


async def test_the_global_order_compares_transaction_ids_as_numbers_not_text(
    postgres_url, pg_schema, pg_store
):
    # Transaction ids 9 and 10 (long finished, as far as the reader can tell): as text, "10"
    # sorts before "9", which once made a subscriber skip events whenever ids gained a digit.
    async with await psycopg.AsyncConnection.connect(
        postgres_url, options=f"-c search_path={pg_schema}", autocommit=True
    ) as conn:
        for stream, tx_id in (("ten", "10"), ("nine", "9")):
            await conn.execute(
                "INSERT INTO events (stream_id, version, tx_id, type, schema_version, data)"
                " VALUES (%s, 1, %s::text::xid8, 'test.store.Moved', 1, '{\"n\": 1}')",
                (stream, tx_id),
            )
    assert [e.stream_id for e in await pg_store.read_all()] == ["nine", "ten"]
    (first,) = await pg_store.read_all(limit=1)
    (second,) = await pg_store.read_all(first.position, limit=1)
    assert (first.stream_id, second.stream_id) == ("nine", "ten")
    assert await pg_store.read_all(second.position) == []


@contextlib.asynccontextmanager
async def _open_transaction(conninfo: str, first_statement: str) -> AsyncIterator[None]:
    """A transaction that holds a transaction id (it has written) for as long as the block runs."""
    async with await psycopg.AsyncConnection.connect(conninfo) as other:
        await other.execute(first_statement)
        yield
        await other.rollback()


@pytest.mark.parametrize("unrelated", ["another database", "another schema's events", "a consumer"])
async def test_a_long_unrelated_transaction_does_not_delay_the_global_order(
    postgres_url, pg_schema, pg_store, unrelated
):
    # The order waits only for this store's own appends still in flight; it used to wait for
    # every transaction on the whole server (an operator's 10 s transaction elsewhere delayed
    # every subscriber by as much).
    other_schema = f"{pg_schema}_other"
    if unrelated == "another database":
        conninfo = psycopg.conninfo.make_conninfo(postgres_url, dbname="postgres")
        statement = "SELECT pg_current_xact_id()"  # takes a transaction id, as a write does
    elif unrelated == "another schema's events":
        other = await open_event_store(postgres_url, schema=other_schema)
        await other.close()
        conninfo = psycopg.conninfo.make_conninfo(postgres_url, options=f"-c search_path={other_schema}")
        statement = ("INSERT INTO events (stream_id, version, type, schema_version, data)"
                     " VALUES ('elsewhere', 1, 'test.store.Moved', 1, '{\"n\": 1}')")
    else:
        conninfo = psycopg.conninfo.make_conninfo(postgres_url, options=f"-c search_path={pg_schema}")
        statement = "INSERT INTO subscription_checkpoints (name) VALUES ('slow-consumer')"
    delivered: list[str] = []

    async def handler(tx, events):
        delivered.extend(e.stream_id for e in events)

    subscription = pg_store.subscribe("s", handler)
    try:
        async with _open_transaction(conninfo, statement):
            await pg_store.append("fast", 0, [moved(1)])
            assert [e.stream_id for e in await pg_store.read_all()] == ["fast"]
            assert await subscription.catch_up() == 1
    finally:
        async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
            await conn.execute(psycopg.sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                psycopg.sql.Identifier(other_schema)))
    assert delivered == ["fast"]


async def test_appends_go_on_once_the_connections_they_used_were_lost(postgres_url, pg_schema):
    name = f"qipai-lost-{pg_schema}"[:60]
    url = f"{postgres_url}{'&' if '?' in postgres_url else '?'}application_name={name}"
    store = await open_event_store(url, schema=pg_schema)
    try:
        for n in range(1, 4):  # each pooled connection used for appends more than once
            await asyncio.gather(*(store.append(f"s{i}", n - 1, [moved(n)]) for i in range(4)))
        async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as admin:
            cur = await admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = %s",
                (name,))
            assert (await cur.fetchone())[0] >= 1
        versions: list[int] = []
        for _ in range(20):  # the pool finds its dead connections one failed append at a time
            with contextlib.suppress(StoreUnavailable):
                versions.append(await store.append("after", len(versions), [moved(len(versions))]))
            if len(versions) == 3:
                break
        assert versions == [1, 2, 3]
        assert [e.version for e in await store.read_stream("after")] == [1, 2, 3]
    finally:
        await store.close()
