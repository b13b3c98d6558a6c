"""The in-memory twin answers every sequence of calls exactly as Redis (server or cluster) does."""

from __future__ import annotations

import asyncio
import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.live import Lease, LiveState, Published, View, open_live_state

# Small domains, so that calls collide on the same table, key, version and time.
tables = st.sampled_from(["t1", "t10"])
keys = st.sampled_from(["turn", "deal"])
blobs = st.sampled_from([b"", b"x", b"\x00\xff"])

calls = st.one_of(
    st.tuples(st.just("set_view"), tables, st.integers(0, 3), blobs),
    st.tuples(st.just("get_view"), tables),
    st.tuples(
        st.just("update_table"),
        tables,
        st.lists(st.builds(Published, st.integers(1, 4), blobs), max_size=3),
        st.none() | st.builds(View, st.integers(0, 3), blobs),
    ),
    st.tuples(st.just("publish"), tables, st.integers(1, 4), blobs),
    st.tuples(st.just("schedule"), tables, keys, st.integers(0, 4), blobs),
    st.tuples(st.just("cancel"), tables, st.none() | keys),
    # A limit above the number of deadlines: which ones a smaller limit picks first is free.
    st.tuples(
        st.just("claim_due"),
        st.integers(0, 4),
        st.just(1000),
        st.none(),
        st.none() | st.integers(1, 3),
    ),
    st.tuples(st.just("acquire_lease"), tables, st.sampled_from(["a", "b"])),
    st.tuples(st.just("release"), tables),
    st.tuples(st.just("lease_holder"), tables),
    st.tuples(
        st.just("allow"), st.sampled_from(["p1", "p2"]), st.integers(0, 3), st.integers(1, 3)
    ),
    st.tuples(st.just("register_node"), st.sampled_from(["a", "b"]), st.integers(1, 5)),
    st.tuples(st.just("live_nodes")),
    st.tuples(st.just("mark_live"), tables),
    st.tuples(st.just("unmark_live"), tables),
    st.tuples(st.just("live_tables")),
    st.tuples(st.just("drop_table"), tables),
    st.tuples(st.just("advance"), st.integers(0, 3)),
)


# The URL fixture is per test, not per example, but it is only a string that no example changes.
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(calls, min_size=15, max_size=40))
def test_the_memory_twin_answers_like_redis(live_redis_url: str, script: list[tuple]) -> None:
    asyncio.run(_compare(live_redis_url, script))


async def _compare(redis_url: str, script: list[tuple]) -> None:
    now = [1_700_000_000_000]
    namespace = f"test-twin-{uuid.uuid4().hex[:12]}"
    memory = open_live_state("memory://", namespace=namespace, clock=lambda: now[0])
    redis = open_live_state(redis_url, namespace=namespace, clock=lambda: now[0])
    memory_leases: dict[str, Lease] = {}
    redis_leases: dict[str, Lease] = {}
    try:
        for call in script:
            if call[0] == "advance":
                now[0] += call[1]
                continue
            expected = await _apply(memory, memory_leases, call)
            assert await _apply(redis, redis_leases, call) == expected, call
    finally:
        await redis.flush_namespace()
        await redis.close()
        await memory.close()


async def _apply(live: LiveState, leases: dict[str, Lease], call: tuple) -> object:
    name, *args = call
    if name == "claim_due":
        return sorted(await live.claim_due(*args))
    if name == "acquire_lease":
        lease = await live.acquire_lease(*args, ttl_ms=3_600_000)
        if lease is not None:
            leases[lease.table_id] = lease
        return lease is not None
    if name == "release":
        lease = leases.pop(args[0], None)
        return lease is not None and await live.release(lease)
    if name == "lease_holder":
        holder = await live.lease_holder(*args)
        # Tokens come from different clocks (server microseconds vs the fake clock).
        return None if holder is None else holder.node_id
    if name == "register_node":
        node, ttl = args
        return await live.register_node(node, f"{node}:1", ttl)
    return await getattr(live, name)(*args)
