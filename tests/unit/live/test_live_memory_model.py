"""Properties of the in-memory live state (the embedded default), against plain models."""

from __future__ import annotations

import asyncio
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.live import LiveState, open_live_state
from services.live.base import next_token
from services.live.connection import ClusterURL
from services.live.memory import MemoryLiveState

versions = st.integers(1, 20)
blobs = st.binary(max_size=3)


def run(coroutine):
    return asyncio.run(coroutine)


@settings(max_examples=200)
@given(st.lists(st.tuples(versions, blobs), max_size=30))
def test_the_cached_view_is_the_first_one_stored_at_the_highest_version(writes) -> None:
    async def scenario() -> None:
        live = MemoryLiveState()
        for version, data in writes:
            await live.set_view("t", version, data)
        if not writes:
            assert await live.get_view("t") is None
            return
        top = max(v for v, _ in writes)
        first_at_top = next(d for v, d in writes if v == top)
        assert await live.get_view("t") == (top, first_at_top)

    run(scenario())


@settings(max_examples=200)
@given(st.lists(st.tuples(versions, blobs), min_size=1, max_size=30), st.integers(0, 20))
def test_a_listener_hears_each_new_highest_version_once_in_order(publishes, after) -> None:
    expected, top = [], 0
    for version, payload in publishes:
        if version > top:
            top = version
            if version > after:
                expected.append((version, payload))

    async def scenario() -> None:
        live = MemoryLiveState()
        for version, payload in publishes:
            await live.publish("t", version, payload)
        heard = []
        if expected:

            async def listen() -> None:
                async for message in live.listen("t", after):
                    heard.append(message)
                    if message.version == top:
                        return

            await asyncio.wait_for(listen(), timeout=5)
        assert heard == expected

    run(scenario())


deadline_calls = st.one_of(
    st.tuples(st.just("schedule"), st.sampled_from("ab"), st.sampled_from("xy"), st.integers(0, 9)),
    st.tuples(st.just("cancel"), st.sampled_from("ab"), st.none() | st.sampled_from("xy")),
    st.tuples(st.just("claim"), st.integers(0, 9)),
)


@settings(max_examples=200)
@given(st.lists(deadline_calls, max_size=30))
def test_deadlines_fire_as_last_scheduled_unless_cancelled_or_already_fired(calls) -> None:
    async def scenario() -> None:
        live = MemoryLiveState()
        model: dict[tuple[str, str], tuple[int, bytes]] = {}
        for n, call in enumerate(calls):
            if call[0] == "schedule":
                _, table, key, due = call
                await live.schedule(table, key, due, bytes([n]))
                model[(table, key)] = (due, bytes([n]))
            elif call[0] == "cancel":
                _, table, key = call
                gone = [k for k in model if k[0] == table and key in (None, k[1])]
                assert await live.cancel(table, key) == len(gone)
                for k in gone:
                    del model[k]
            else:
                now = call[1]
                due = sorted((t, k, p) for (t, k), (d, p) in model.items() if d <= now)
                assert sorted(await live.claim_due(now, 100)) == due
                for t, k, _ in due:
                    del model[(t, k)]

    run(scenario())


@settings(max_examples=200)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.booleans()), min_size=1, max_size=20
    )
)
def test_lease_tokens_strictly_increase_whatever_the_floors_and_the_clock(steps) -> None:
    now = [0]

    async def scenario() -> None:
        live = MemoryLiveState(clock=lambda: now[0])
        tokens = []
        for advance, floor, release in steps:
            now[0] += advance
            lease = await live.acquire_lease("t", "n", 1, min_token=floor)
            if lease is None:
                continue
            assert lease.token > floor
            tokens.append(lease.token)
            if release:
                await live.release(lease)
        assert tokens == sorted(set(tokens))

    run(scenario())


def test_a_token_is_one_above_the_highest_of_counter_floor_and_clock() -> None:
    assert next_token(stored=5, min_token=0, now_us=0) == 6
    assert next_token(stored=5, min_token=9, now_us=0) == 10
    assert next_token(stored=5, min_token=9, now_us=1_000) == 1_000


def test_memory_urls_open_the_in_memory_twin_with_its_namespace() -> None:
    live = open_live_state("memory://", namespace="mine")
    assert isinstance(live, MemoryLiveState) and isinstance(live, LiveState)
    assert live.namespace == "mine"


@pytest.mark.parametrize("url", ["postgres://localhost", "localhost:6379", ""])
def test_other_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match=re.escape("memory://, redis:// or redis+cluster://")):
        open_live_state(url)


def test_a_redis_url_opens_nothing_until_the_first_call() -> None:
    live = open_live_state("redis://:secret@db.example:6380/2", namespace="n")
    assert live.namespace == "n"
    assert live.address == "db.example:6380/2"  # type: ignore[attr-defined]
    run(live.close())


def test_a_cluster_url_opens_nothing_until_the_first_call_and_hides_its_password() -> None:
    live = open_live_state("redis+cluster://:secret@r1:7000,r2:7001", namespace="n")
    assert live.address == "cluster r1:7000,r2:7001"  # type: ignore[attr-defined]
    run(live.close())


@pytest.mark.parametrize("url, words", [
    ("redis+cluster://r1:7000,r2", "'r2' must be host:port"),
    ("redis+cluster://r1:7000/3", "only database 0"),
])
def test_a_malformed_cluster_url_is_refused_naming_the_bad_part(url: str, words: str) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        open_live_state(url)


def test_a_cluster_url_lists_every_node_with_its_credentials() -> None:
    parsed = ClusterURL.parse("rediss+cluster://ann:p%40ss@r1:7000,[::1]:7001/0")
    assert parsed.nodes == (("r1", 7000), ("::1", 7001))
    assert (parsed.username, parsed.password, parsed.tls) == ("ann", "p@ss", True)


def test_a_namespace_with_hash_tag_or_glob_characters_is_refused() -> None:
    with pytest.raises(ValueError, match="namespace"):
        open_live_state("redis://localhost", namespace="qi{pai}")
