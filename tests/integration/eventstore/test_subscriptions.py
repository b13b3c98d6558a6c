"""Subscriptions: catch up, follow live appends, and apply each event's effect exactly once."""

from __future__ import annotations

import asyncio
import contextlib
import random

import pytest

from services.eventstore import START, CheckpointMoved

from .events import moved

pytestmark = pytest.mark.integration


def _sql(tx, statement: str) -> str:
    """`statement` written with %s placeholders, in the transaction's own parameter style."""
    return statement if tx.paramstyle == "format" else statement.replace("%s", "?")


async def _create_effects(store) -> None:
    async with store.transaction() as tx:
        await tx.execute("CREATE TABLE effects (stream_id TEXT NOT NULL, version BIGINT NOT NULL)")


async def _effects(store) -> list[tuple[str, int]]:
    async with store.transaction() as tx:
        rows = await tx.execute("SELECT stream_id, version FROM effects ORDER BY stream_id, version")
    return [(sid, int(version)) for sid, version in rows]


async def _log(store) -> list[tuple[str, int]]:
    return sorted((e.stream_id, e.version) for e in await store.read_all(limit=100_000))


async def record_effects(tx, events) -> None:
    for event in events:
        await tx.execute(_sql(tx, "INSERT INTO effects VALUES (%s, %s)"), (event.stream_id, event.version))


async def test_a_subscription_catches_up_from_its_checkpoint(store):
    await _create_effects(store)
    await store.append("a", 0, [moved(1), moved(2)])
    await store.append("b", 0, [moved(3)])
    subscription = store.subscribe("ledger", record_effects, batch_size=2)
    assert await subscription.position() == START
    assert await subscription.catch_up() == 3
    assert await _effects(store) == [("a", 1), ("a", 2), ("b", 1)]
    await store.append("a", 2, [moved(4)])
    assert await subscription.catch_up() == 1
    assert await subscription.catch_up() == 0
    assert await _effects(store) == await _log(store)
    assert await subscription.position() == (await store.read_all())[-1].position


async def test_the_handler_sees_events_in_global_order_in_batches_of_at_most_batch_size(store):
    for i in range(10):
        await store.append(f"s{i % 3}", i // 3, [moved(i)])
    batches = []

    async def handler(tx, events):
        batches.append([e.data["n"] for e in events])

    await store.subscribe("x", handler, batch_size=4).catch_up()
    assert batches == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


async def test_subscriptions_with_different_names_keep_separate_checkpoints(store):
    await store.append("s", 0, [moved(1)])
    got: dict[str, int] = {"a": 0, "b": 0}

    def counter(name):
        async def handler(tx, events):
            got[name] += len(events)
        return handler

    await store.subscribe("a", counter("a")).catch_up()
    await store.append("s", 1, [moved(2)])
    await store.subscribe("a", counter("a")).catch_up()
    await store.subscribe("b", counter("b")).catch_up()
    assert got == {"a": 2, "b": 2}


async def test_a_failing_handler_rolls_back_its_batch_and_the_checkpoint_stays(store):
    await _create_effects(store)
    await store.append("s", 0, [moved(1), moved(2)])

    async def half_then_fail(tx, events):
        await record_effects(tx, events[:1])
        raise RuntimeError("ledger bug")

    with pytest.raises(RuntimeError, match="ledger bug"):
        await store.subscribe("ledger", half_then_fail).run()
    assert await _effects(store) == []
    assert await store.checkpoint("ledger") == START
    assert await store.subscribe("ledger", record_effects).catch_up() == 2
    assert await _effects(store) == [("s", 1), ("s", 2)]


async def test_a_live_subscription_handles_events_appended_after_it_started(store):
    seen = []

    async def handler(tx, events):
        seen.extend(e.data["n"] for e in events)

    task = asyncio.create_task(store.subscribe("live", handler, poll_interval=30).run())
    try:
        for i in range(3):
            await store.append("s", i, [moved(i)])
            async with asyncio.timeout(5):
                while len(seen) <= i:
                    await asyncio.sleep(0.01)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert seen == [0, 1, 2]


async def test_another_process_append_wakes_a_postgres_subscriber_through_notify(postgres_url, pg_schema, pg_store):
    from services.eventstore import open_event_store

    seen = []

    async def handler(tx, events):
        seen.extend(events)

    # A poll interval far beyond the wait below: only LISTEN/NOTIFY can deliver in time.
    task = asyncio.create_task(pg_store.subscribe("live", handler, poll_interval=60).run())
    other = await open_event_store(postgres_url, schema=pg_schema)
    try:
        await asyncio.sleep(0.3)  # the listener is connected
        await other.append("s", 0, [moved(1)])
        async with asyncio.timeout(5):
            while not seen:
                await asyncio.sleep(0.01)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await other.close()
    assert [e.data for e in seen] == [{"n": 1}]


async def test_cancelling_the_consumer_between_or_during_batches_never_loses_or_repeats_an_effect(store):
    await _create_effects(store)
    rng = random.Random(20261130)
    cancelled_inside = 0

    async def slow_effects(tx, events):
        nonlocal cancelled_inside
        try:
            for event in events:
                await tx.execute(
                    _sql(tx, "INSERT INTO effects VALUES (%s, %s)"), (event.stream_id, event.version)
                )
                await asyncio.sleep(0)  # somewhere for a cancellation to land mid-batch
        except asyncio.CancelledError:
            cancelled_inside += 1
            raise

    async def writer():
        versions = [0] * 7
        for i in range(300):
            versions[i % 7] = await store.append(
                f"t{i % 7}", versions[i % 7], [moved(i)] * rng.choice((1, 2))
            )
            if i % 10 == 0:
                await asyncio.sleep(0.001)

    writing = asyncio.create_task(writer())
    while not writing.done():
        consumer = asyncio.create_task(store.subscribe("ledger", slow_effects, batch_size=8).run())
        await asyncio.sleep(rng.uniform(0, 0.02))
        consumer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await consumer
    await writing
    await store.subscribe("ledger", slow_effects, batch_size=8).catch_up()

    effects = await _effects(store)
    assert len(effects) == len(set(effects)), "an effect was applied twice"
    assert effects == await _log(store)
    assert cancelled_inside > 0, "no cancellation landed inside a batch: the test proved nothing"


async def test_two_consumers_with_one_name_never_both_apply_a_batch(open_store):
    first, second = await open_store(), await open_store()
    await _create_effects(first)
    for i in range(40):
        await first.append(f"s{i % 4}", i // 4, [moved(i)])

    async def consume(store):
        subscription = store.subscribe("ledger", record_effects, batch_size=3)
        while True:
            try:
                if await subscription.catch_up() == 0:
                    return
            except CheckpointMoved:
                continue

    await asyncio.gather(consume(first), consume(second))
    effects = await _effects(first)
    assert len(effects) == len(set(effects)) and effects == await _log(first)
