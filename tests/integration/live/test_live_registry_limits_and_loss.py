"""Node registry, live tables index, rate limits, presence, namespaces and losing everything."""

from __future__ import annotations

import asyncio
import re

import pytest

from services.live import LiveState, LiveStateUnavailable, open_live_state
from services.live.base import Claim
from services.live.redis import FANOUT_SHARDS, RedisLiveState


async def test_a_registered_node_is_live_and_has_its_address(live: LiveState) -> None:
    await live.register_node("a", "10.0.0.1:50051", 10_000)
    await live.register_node("b", "10.0.0.2:50051", 10_000)
    assert await live.live_nodes() == ["a", "b"]
    assert await live.node_address("a") == "10.0.0.1:50051"
    assert await live.node_address("unknown") is None


async def test_a_node_that_stops_registering_expires(live: LiveState, clock) -> None:
    await live.register_node("a", "10.0.0.1:50051", 1000)
    await live.register_node("b", "10.0.0.2:50051", 5000)
    clock.advance(1000)
    assert await live.live_nodes() == ["b"]
    assert await live.node_address("a") is None
    await live.register_node("a", "10.0.0.9:50051", 1000)
    assert await live.node_address("a") == "10.0.0.9:50051"


async def test_a_deregistered_node_is_gone_at_once(live: LiveState) -> None:
    await live.register_node("a", "10.0.0.1:50051", 10_000)
    await live.deregister_node("a")
    assert await live.live_nodes() == []
    assert await live.node_address("a") is None


async def test_live_tables_are_those_marked_and_not_unmarked(live: LiveState) -> None:
    for table in ("t3", "t1", "t2"):
        await live.mark_live(table)
    await live.mark_live("t1")
    await live.unmark_live("t2")
    await live.unmark_live("never marked")
    assert await live.live_tables() == ["t1", "t3"]


async def test_dropping_a_table_forgets_its_view_stream_deadlines_and_live_mark(
    live: LiveState,
) -> None:
    await live.set_view("t1", 5, b"v")
    await live.publish("t1", 5, b"e")
    await live.schedule("t1", "turn", 0, b"d")
    await live.schedule("t2", "turn", 0, b"kept")
    await live.mark_live("t1")
    await live.drop_table("t1")
    assert await live.get_view("t1") is None
    assert await live.live_tables() == []
    assert [d.table_id for d in await live.claim_due(10, 10)] == ["t2"]
    assert await live.publish("t1", 1, b"a new life starts at version 1")


async def test_each_players_open_tables_are_listed_until_they_finish(live: LiveState) -> None:
    assert await live.claim_open_table("ann", "table-b", 2) is Claim.ADDED
    assert await live.claim_open_table("ann", "table-a", 2) is Claim.ADDED
    assert await live.claim_open_table("ann", "table-a", 2) is Claim.HELD
    assert await live.claim_open_table("bob", "table-c", 2) is Claim.ADDED
    assert await live.open_tables("ann") == ["table-a", "table-b"]
    await live.remove_open_table("ann", "table-b")
    await live.remove_open_table("ann", "table-x")
    assert await live.open_tables("ann") == ["table-a"]
    assert await live.open_tables("bob") == ["table-c"]
    assert await live.open_tables("cai") == []


async def test_a_players_open_tables_are_claimed_atomically_up_to_the_limit(live: LiveState) -> None:
    claims = await asyncio.gather(*(live.claim_open_table("ann", f"table-{n}", 20) for n in range(60)))
    assert claims.count(Claim.ADDED) == 20 and claims.count(Claim.REFUSED) == 40
    assert len(await live.open_tables("ann")) == 20
    assert await live.claim_open_table("ann", "table-0", 20) is Claim.HELD  # a retry still finds it


async def test_a_rate_limit_allows_limit_calls_per_sliding_window(live: LiveState, clock) -> None:
    assert [await live.allow("p1", 3, 1000) for _ in range(4)] == [True, True, True, False]
    clock.advance(999)
    assert not await live.allow("p1", 3, 1000)
    clock.advance(1)
    assert await live.allow("p1", 3, 1000)


async def test_a_rate_limit_window_slides_with_each_call(live: LiveState, clock) -> None:
    assert await live.allow("p1", 2, 1000)
    clock.advance(600)
    assert await live.allow("p1", 2, 1000)
    clock.advance(400)
    assert await live.allow("p1", 2, 1000)
    assert not await live.allow("p1", 2, 1000)
    clock.advance(600)
    assert await live.allow("p1", 2, 1000)


async def test_rate_limits_of_different_keys_are_independent(live: LiveState) -> None:
    assert await live.allow("p1", 1, 1000)
    assert not await live.allow("p1", 1, 1000)
    assert await live.allow("p2", 1, 1000)


async def test_a_player_is_present_until_their_presence_expires(live: LiveState, pass_time) -> None:
    assert not await live.is_present("p1")
    await live.touch_presence("p1", 60)
    assert await live.is_present("p1")
    await pass_time(120)
    assert not await live.is_present("p1")


async def test_namespaces_do_not_see_each_other(open_live) -> None:
    one, two = (
        open_live(namespace="ns-one-" + _suffix()),
        open_live(namespace="ns-two-" + _suffix()),
    )
    await one.set_view("t1", 1, b"one")
    await one.mark_live("t1")
    await one.schedule("t1", "turn", 0, b"one")
    assert await one.acquire_lease("t1", "a", 10_000)
    await one.publish("t1", 1, b"one")
    await one.register_node("a", "x", 10_000)
    assert await two.get_view("t1") is None
    assert await two.live_tables() == []
    assert await two.claim_due(10, 10) == []
    assert await two.lease_holder("t1") is None
    assert await two.live_nodes() == []
    assert await two.publish("t1", 1, b"two")
    await two.flush_namespace()
    assert await one.get_view("t1") == (1, b"one")


async def test_after_losing_everything_every_call_works_with_empty_results(
    live: LiveState,
) -> None:
    await live.set_view("t1", 9, b"v")
    for version in range(1, 10):
        await live.publish("t1", version, b"e")
    lease = await live.acquire_lease("t1", "a", 10_000)
    assert lease is not None
    await live.register_node("a", "x", 10_000)
    await live.schedule("t1", "turn", 0, b"d")
    await live.mark_live("t1")
    await live.touch_presence("p1", 10_000)
    assert not await live.allow("p1", 0, 1000)
    listener = asyncio.create_task(_first_message(live, "t1", 9))
    await asyncio.sleep(0.05)

    await live.flush_namespace()

    assert await live.get_view("t1") is None
    assert await live.lease_holder("t1") is None
    assert not await live.renew(lease, 10_000)
    assert not await live.release(lease)
    assert await live.live_nodes() == []
    assert await live.node_address("a") is None
    assert await live.claim_due(10, 10) == []
    assert await live.cancel("t1") == 0
    assert await live.live_tables() == []
    assert not await live.is_present("p1")
    assert await live.allow("p1", 1, 1000)
    await live.drop_table("t1")
    assert await live.set_view("t1", 2, b"rebuilt at an older version")
    # The stream restarts empty: republishing from the log works, and a listener that had
    # version 9 hears only what is newer.
    for version in range(5, 12):
        assert await live.publish("t1", version, f"e{version}".encode())
    assert await asyncio.wait_for(listener, timeout=10) == (10, b"e10")


async def _first_message(live: LiveState, table_id: str, after: int):
    async for message in live.listen(table_id, after):
        return message


def _suffix() -> str:
    import uuid

    return uuid.uuid4().hex[:8]


# -- Redis only -------------------------------------------------------------------------------


async def test_an_unreachable_redis_raises_a_typed_error_naming_it_without_the_password() -> None:
    live = open_live_state("redis://:hunter2@127.0.0.1:1/0", connect_timeout_s=1.0)
    try:
        with pytest.raises(LiveStateUnavailable) as raised:
            await asyncio.wait_for(live.ping(), timeout=15)
        assert "127.0.0.1:1" in str(raised.value)
        assert "hunter2" not in str(raised.value)
        with pytest.raises(LiveStateUnavailable):
            await asyncio.wait_for(live.get_view("t1"), timeout=15)
        with pytest.raises(LiveStateUnavailable):
            await asyncio.wait_for(_first_message(live, "t1", 0), timeout=15)
    finally:
        await live.close()


async def test_a_tables_keys_carry_its_hash_tag_but_its_stream_that_of_a_fan_out_shard(
    live_redis_url: str,
) -> None:
    live = RedisLiveState(live_redis_url, "test-tags-" + _suffix())
    try:
        await live.set_view("table-42", 1, b"v")
        await live.publish("table-42", 1, b"e")
        assert await live.acquire_lease("table-42", "a", 10_000)
        client = live._client
        keys = [k.decode() async for k in client.scan_iter(match=f"{live.namespace}:*")]
        tags = sorted(re.search(r"\{(.*?)\}", k).group(1) for k in keys)
        assert tags[1:] == ["table-42"] * 3  # view, lease, fence
        assert re.fullmatch(r"fo\d+", tags[0]) and int(tags[0][2:]) < FANOUT_SHARDS  # the stream
    finally:
        await live.flush_namespace()
        await live.close()
