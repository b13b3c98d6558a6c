"""Deadlines that drive auto-play: scheduled per (table, key), each fired by exactly one node."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

from services.live import Deadline, LiveState, Published, Turn, open_live_state
from tests.integration.live.conftest import collect

NOW = 1_700_000_000_000


async def test_a_deadline_is_not_claimed_before_it_is_due(live: LiveState) -> None:
    await live.schedule("t1", "turn", NOW + 1000, b"default")
    assert await live.claim_due(NOW + 999, 10) == []


async def test_a_due_deadline_is_claimed_once_with_its_payload(live: LiveState) -> None:
    await live.schedule("t1", "turn", NOW + 1000, b"default")
    assert await live.claim_due(NOW + 1000, 10) == [Deadline("t1", "turn", b"default")]
    assert await live.claim_due(NOW + 5000, 10) == []


async def test_rescheduling_a_key_replaces_its_pending_deadline(live: LiveState) -> None:
    await live.schedule("t1", "turn", NOW, b"old")
    await live.schedule("t1", "turn", NOW + 500, b"new")
    assert await live.claim_due(NOW + 100, 10) == []
    assert await live.claim_due(NOW + 500, 10) == [Deadline("t1", "turn", b"new")]
    assert await live.claim_due(NOW + 5000, 10) == []


async def test_a_table_has_one_pending_deadline_per_key(live: LiveState) -> None:
    await live.schedule("t1", "turn", NOW, b"a")
    await live.schedule("t1", "deal", NOW, b"b")
    await live.schedule("t2", "turn", NOW, b"c")
    claimed = await live.claim_due(NOW, 10)
    assert sorted(claimed) == [
        Deadline("t1", "deal", b"b"),
        Deadline("t1", "turn", b"a"),
        Deadline("t2", "turn", b"c"),
    ]


async def test_cancelling_a_key_removes_only_that_deadline(live: LiveState) -> None:
    await live.schedule("t1", "turn", NOW, b"a")
    await live.schedule("t1", "deal", NOW, b"b")
    assert await live.cancel("t1", "turn") == 1
    assert await live.cancel("t1", "turn") == 0
    assert await live.claim_due(NOW, 10) == [Deadline("t1", "deal", b"b")]


async def test_cancelling_a_table_removes_all_its_deadlines_and_no_others(
    live: LiveState,
) -> None:
    # Table ids chosen to share prefixes, and keys with glob characters, must not confuse it.
    for table in ("t1", "t10", "t1x"):
        for key in ("turn", "deal*", "seat:1"):
            await live.schedule(table, key, NOW, table.encode())
    assert await live.cancel("t1") == 3
    assert await live.cancel("t1") == 0
    assert Counter(d.table_id for d in await live.claim_due(NOW, 100)) == {"t10": 3, "t1x": 3}


async def test_claim_due_returns_at_most_the_limit_and_keeps_the_rest(live: LiveState) -> None:
    for i in range(10):
        await live.schedule(f"t{i}", "turn", NOW + i, b"x")
    first = await live.claim_due(NOW + 100, 4)
    rest = await live.claim_due(NOW + 100, 100)
    assert len(first) == 4 and len(rest) == 6
    assert {d.table_id for d in first} | {d.table_id for d in rest} == {f"t{i}" for i in range(10)}


async def test_a_zero_limit_claims_nothing(live: LiveState) -> None:
    await live.schedule("t1", "turn", NOW, b"x")
    assert await live.claim_due(NOW, 0) == []
    assert len(await live.claim_due(NOW, 1)) == 1


async def test_concurrent_claimers_fire_each_due_deadline_exactly_once(open_live) -> None:
    nodes = [open_live(), open_live()]
    expected = set()
    for t in range(40):
        for key in ("turn", "deal"):
            await nodes[0].schedule(f"table-{t}", key, NOW + t, f"{t}/{key}".encode())
            expected.add(Deadline(f"table-{t}", key, f"{t}/{key}".encode()))
    await nodes[0].schedule("later", "turn", NOW + 10_000, b"not yet")
    fired: list[Deadline] = []

    async def claimer(node: LiveState) -> None:
        while batch := await node.claim_due(NOW + 1000, 3):
            fired.extend(batch)
            await asyncio.sleep(0)

    await asyncio.gather(*(claimer(node) for node in nodes for _ in range(4)))
    assert sorted(fired) == sorted(expected)
    assert await nodes[1].claim_due(NOW + 10_000, 10) == [Deadline("later", "turn", b"not yet")]


async def test_a_node_claims_only_deadlines_of_tables_it_holds(open_live) -> None:
    node_a, node_b = open_live(), open_live()
    assert await node_a.acquire_lease("mine", "a", 10_000)
    assert await node_b.acquire_lease("theirs", "b", 10_000)
    for table in ("mine", "theirs", "nobody's"):
        await node_a.schedule(table, "turn", NOW, table.encode())
    assert await node_a.claim_due(NOW, 10, node_id="a") == [Deadline("mine", "turn", b"mine")]
    assert await node_b.claim_due(NOW, 10, node_id="b") == [Deadline("theirs", "turn", b"theirs")]
    assert await node_a.claim_due(NOW, 10) == [Deadline("nobody's", "turn", b"nobody's")]


async def test_concurrent_claimers_of_one_node_fire_its_deadlines_exactly_once(open_live) -> None:
    node = open_live()
    for t in range(30):
        assert await node.acquire_lease(f"table-{t}", "a", 10_000)
        await node.schedule(f"table-{t}", "turn", NOW, str(t).encode())
    fired: list[Deadline] = []

    async def claimer() -> None:
        while batch := await node.claim_due(NOW, 2, node_id="a"):
            fired.extend(batch)
            await asyncio.sleep(0)

    await asyncio.gather(*(claimer() for _ in range(5)))
    assert sorted(d.table_id for d in fired) == sorted(f"table-{t}" for t in range(30))


async def test_a_deadline_claimed_for_redelivery_fires_again_unless_rescheduled(
    live: LiveState,
) -> None:
    await live.schedule("t1", "turn", NOW, b"auto-play")
    await live.schedule("t2", "turn", NOW, b"auto-play")
    first = await live.claim_due(NOW, 10, redeliver_after_ms=5000)
    assert sorted(first) == [
        Deadline("t1", "turn", b"auto-play"),
        Deadline("t2", "turn", b"auto-play"),
    ]
    assert await live.claim_due(NOW + 4999, 10, redeliver_after_ms=5000) == []
    # t1's node fired and moved on; t2's node died before firing.
    await live.schedule("t1", "turn", NOW + 60_000, b"next turn")
    assert await live.claim_due(NOW + 5000, 10) == [Deadline("t2", "turn", b"auto-play")]
    assert await live.claim_due(NOW + 30_000, 10) == []


async def test_a_commands_update_sets_then_cancels_the_tables_deadline(live: LiveState) -> None:
    await live.update_table("t1", [Published(1, b"e1")], turn=Turn("turn", NOW + 10, b"1"))
    await live.update_table("t1", [Published(2, b"e2")], turn=Turn("turn", NOW + 20, b"2"))
    assert await live.claim_due(NOW + 15, 10) == []  # the second replaced the first
    assert await live.claim_due(NOW + 20, 10) == [Deadline("t1", "turn", b"2")]
    await live.update_table("t1", [Published(3, b"e3")], turn=Turn("turn", NOW + 30, b"3"))
    await live.update_table("t1", [Published(4, b"e4")], turn=Turn("turn", None))
    assert await live.claim_due(NOW + 100, 10) == []


async def test_a_redis_that_lost_its_scripts_is_given_them_again(live_redis_url: str) -> None:
    live = open_live_state(live_redis_url, namespace=f"test-scripts-{uuid.uuid4().hex[:8]}")
    try:
        await live.update_table("t1", [Published(1, b"e1")], turn=Turn("turn", NOW, b"1"))
        await live._client.script_flush()  # type: ignore[attr-defined]  # as a Redis restart does
        await live.update_table("t1", [Published(2, b"e2")], turn=Turn("turn", NOW + 5, b"2"))
        assert await live.claim_due(NOW + 5, 10) == [Deadline("t1", "turn", b"2")]
    finally:
        await live.flush_namespace()
        await live.close()


async def test_an_update_whose_connection_redis_closed_is_sent_again_on_a_new_one(redis_url: str) -> None:
    live = open_live_state(redis_url, namespace=f"test-conn-{uuid.uuid4().hex[:8]}")
    try:
        await live.update_table("t1", [Published(1, b"e1")], turn=Turn("turn", NOW, b"1"))
        # One server: updates go out on a connection the live state keeps (a restart, an idle
        # timeout or CLIENT KILL closes it under it).
        kept = live._pipeliner._conn  # type: ignore[attr-defined]
        host, port = kept._writer.get_extra_info("sockname")[:2]
        assert await live._client.execute_command("CLIENT", "KILL", "ADDR", f"{host}:{port}")  # type: ignore[attr-defined]
        assert await live.update_table("t1", [Published(2, b"e2")], turn=Turn("turn", NOW + 5, b"2")) == 1
        assert [p.version for p in await collect(live, "t1", 0, 2)] == [1, 2]
        assert await live.claim_due(NOW + 5, 10) == [Deadline("t1", "turn", b"2")]
    finally:
        await live.flush_namespace()
        await live.close()


async def test_updates_of_many_tables_at_once_all_land_each_tables_in_order(live: LiveState) -> None:
    async def play(table: str) -> None:
        for version in range(1, 21):
            await live.update_table(table, [Published(version, b"e%d" % version)],
                                    turn=Turn("turn", NOW + version, b"%d" % version))

    tables = [f"t{n}" for n in range(40)]
    await asyncio.gather(*(play(t) for t in tables))
    due = await live.claim_due(NOW + 100, 1000)
    assert sorted(due) == sorted(Deadline(t, "turn", b"20") for t in tables)
    for table in tables:
        assert [m.version for m in await collect(live, table, 0, 20)] == list(range(1, 21))


async def test_a_claim_tells_its_watch_when_the_next_deadline_falls_due(live: LiveState) -> None:
    watch = live.watch_due()
    await live.schedule("t1", "turn", NOW + 1000, b"a")
    await live.schedule("t2", "turn", NOW + 400, b"b")
    assert await live.claim_due(NOW, 10, watch=watch) == []
    assert watch.next_ms == NOW + 400
    assert await live.claim_due(NOW + 400, 10, watch=watch) == [Deadline("t2", "turn", b"b")]
    assert watch.next_ms == NOW + 1000
    assert await live.claim_due(NOW + 1000, 10, watch=watch) == [Deadline("t1", "turn", b"a")]
    assert watch.next_ms is None  # nothing left: nothing to look for


async def test_a_deadline_scheduled_after_a_claim_lowers_the_watch_at_once(live: LiveState) -> None:
    watch = live.watch_due()
    await live.schedule("t1", "turn", NOW + 1000, b"a")
    await live.claim_due(NOW, 10, watch=watch)
    assert watch.next_ms == NOW + 1000
    await live.update_table("t2", [], turn=Turn("turn", NOW + 300, b"b"))
    assert watch.next_ms == NOW + 300
    await live.schedule("t3", "turn", NOW + 200, b"c")
    assert watch.next_ms == NOW + 200


async def test_a_watch_is_told_to_look_again_at_once_while_due_deadlines_are_left(
    live: LiveState,
) -> None:
    watch = live.watch_due()
    for table in ("t1", "t2", "t3"):
        await live.schedule(table, "turn", NOW, b"d")
    assert len(await live.claim_due(NOW, 2, watch=watch)) == 2  # beyond the limit: one left
    assert watch.next_ms == NOW
    assert len(await live.claim_due(NOW, 10)) == 1
    await live.acquire_lease("t9", "other-node", 60_000)
    await live.schedule("t9", "turn", NOW + 10, b"theirs")
    assert len(await live.claim_due(NOW + 10, 10, node_id="me", watch=watch)) == 0
    assert watch.next_ms == NOW + 10  # another node's, still due: this one looks again too


async def test_a_claim_for_redelivery_tells_the_watch_when_it_comes_back(live: LiveState) -> None:
    watch = live.watch_due()
    await live.schedule("t1", "turn", NOW, b"d")
    assert len(await live.claim_due(NOW, 10, redeliver_after_ms=5000, watch=watch)) == 1
    assert watch.next_ms == NOW + 5000
