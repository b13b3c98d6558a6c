"""The single-writer lease per table, on both backends."""

from __future__ import annotations

import pytest

from services.live import Holder, Lease, LiveState
from services.live.base import MAX_MIN_TOKEN


async def test_only_one_node_holds_a_table_lease(open_live) -> None:
    node_a, node_b = open_live(), open_live()
    lease = await node_a.acquire_lease("t1", "a", 10_000)
    assert lease is not None and lease.node_id == "a" and lease.table_id == "t1"
    assert await node_b.acquire_lease("t1", "b", 10_000) is None
    assert await node_a.acquire_lease("t1", "a", 10_000) is None
    assert await node_b.lease_holder("t1") == Holder("a", lease.token)


async def test_leases_of_different_tables_are_independent(live: LiveState) -> None:
    assert await live.acquire_lease("t1", "a", 10_000) is not None
    assert await live.acquire_lease("t2", "b", 10_000) is not None


async def test_a_table_nobody_holds_has_no_lease_holder(live: LiveState) -> None:
    assert await live.lease_holder("t1") is None


async def test_an_expired_lease_is_taken_over_with_a_greater_token(open_live, pass_time) -> None:
    node_a, node_b = open_live(), open_live()
    first = await node_a.acquire_lease("t1", "a", 50)
    assert first is not None
    await pass_time(120)
    assert await node_b.lease_holder("t1") is None
    second = await node_b.acquire_lease("t1", "b", 10_000)
    assert second is not None and second.token > first.token
    assert await node_a.lease_holder("t1") == Holder("b", second.token)


async def test_a_node_that_lost_its_lease_can_neither_renew_nor_release_it(
    open_live, pass_time
) -> None:
    node_a, node_b = open_live(), open_live()
    stale = await node_a.acquire_lease("t1", "a", 50)
    assert stale is not None
    await pass_time(120)
    current = await node_b.acquire_lease("t1", "b", 10_000)
    assert current is not None
    assert not await node_a.renew(stale, 10_000)
    assert not await node_a.release(stale)
    assert await node_b.lease_holder("t1") == Holder("b", current.token)


async def test_only_the_holder_renews_and_a_renewed_lease_outlives_its_first_ttl(
    live: LiveState, pass_time
) -> None:
    lease = await live.acquire_lease("t1", "a", 150)
    assert lease is not None
    impostor = Lease("t1", "b", lease.token)
    assert not await live.renew(impostor, 10_000)
    assert await live.renew(lease, 10_000)
    await pass_time(250)
    assert await live.lease_holder("t1") == Holder("a", lease.token)


async def test_a_lease_cannot_be_renewed_after_it_expired(live: LiveState, pass_time) -> None:
    lease = await live.acquire_lease("t1", "a", 50)
    assert lease is not None
    await pass_time(120)
    assert not await live.renew(lease, 10_000)
    assert await live.lease_holder("t1") is None


async def test_only_the_holder_releases_and_a_released_table_is_free(open_live) -> None:
    node_a, node_b = open_live(), open_live()
    lease = await node_a.acquire_lease("t1", "a", 10_000)
    assert lease is not None
    assert not await node_b.release(Lease("t1", "b", lease.token))
    assert not await node_b.release(Lease("t1", "a", lease.token + 1))
    assert await node_a.release(lease)
    assert not await node_a.release(lease)
    taken = await node_b.acquire_lease("t1", "b", 10_000)
    assert taken is not None and taken.token > lease.token


async def test_tokens_strictly_increase_over_many_acquisitions(live: LiveState) -> None:
    tokens = []
    for i in range(20):
        lease = await live.acquire_lease("t1", f"n{i % 3}", 10_000)
        assert lease is not None
        tokens.append(lease.token)
        assert await live.release(lease)
    assert tokens == sorted(set(tokens))


async def test_a_token_is_above_the_floor_the_caller_knows(live: LiveState) -> None:
    floor = MAX_MIN_TOKEN
    lease = await live.acquire_lease("t1", "a", 10_000, min_token=floor)
    assert lease is not None and lease.token > floor
    await live.release(lease)
    again = await live.acquire_lease("t1", "a", 10_000)
    assert again is not None and again.token > lease.token


async def test_a_token_still_increases_after_the_live_state_was_lost(live: LiveState) -> None:
    # flush_namespace deletes every key of the deployment, as FLUSHALL would for its keys
    # (a real FLUSHALL would also wipe the other suites sharing this Redis).
    before = await live.acquire_lease("t1", "a", 10_000)
    assert before is not None
    await live.flush_namespace()
    assert await live.lease_holder("t1") is None
    after = await live.acquire_lease("t1", "b", 10_000)
    assert after is not None and after.token > before.token


async def test_a_floor_beyond_exact_counting_is_refused(live: LiveState) -> None:
    with pytest.raises(ValueError, match="min_token"):
        await live.acquire_lease("t1", "a", 10_000, min_token=MAX_MIN_TOKEN + 1)


async def test_a_node_renews_all_its_leases_at_once_and_learns_which_it_lost(
    open_live, pass_time
) -> None:
    node_a, node_b = open_live(), open_live()
    kept = await node_a.acquire_lease("t1", "a", 10_000)
    lost = await node_a.acquire_lease("t2", "a", 50)
    assert kept is not None and lost is not None
    await pass_time(120)
    assert await node_b.acquire_lease("t2", "b", 10_000) is not None
    assert await node_a.renew_many([kept, lost], 10_000) == [True, False]
    assert await node_a.renew_many([], 10_000) == []


async def test_lease_operations_are_counted_for_the_metrics_endpoint(live_redis_url: str) -> None:
    from prometheus_client import REGISTRY

    from services.live import open_live_state

    def count(op: str, outcome: str) -> float:
        return REGISTRY.get_sample_value("qipai_leases_total", {"op": op, "outcome": outcome}) or 0

    before = {k: count(*k) for k in [("acquire", "ok"), ("acquire", "refused"), ("renew", "ok"),
                                     ("renew", "lost"), ("release", "ok")]}
    live = open_live_state(live_redis_url, namespace="test-lease-metrics-" + _suffix())
    try:
        lease = await live.acquire_lease("t1", "a", 10_000)
        assert lease is not None and await live.acquire_lease("t1", "b", 10_000) is None
        assert await live.renew_many([lease, Lease("t2", "a", 1)], 10_000) == [True, False]
        assert await live.release(lease)
    finally:
        await live.flush_namespace()
        await live.close()
    assert {k: count(*k) - v for k, v in before.items()} == {
        ("acquire", "ok"): 1, ("acquire", "refused"): 1, ("renew", "ok"): 1, ("renew", "lost"): 1,
        ("release", "ok"): 1}


def _suffix() -> str:
    import uuid

    return uuid.uuid4().hex[:8]
