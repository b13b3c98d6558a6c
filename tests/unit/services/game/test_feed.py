"""The feed on the in-memory backends: what each watcher of a table receives, on the writing node
and on others, in which batches."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from engine.core.contract import Status
from engine.mahjong.actions import Discard
from engine.table import Act, Sit, Table
from services.game import feed as feed_module
from services.game import pipeline
from services.game.feed import MOVED, OVERRUN, WATCH_QUEUE_LIMIT, Batch, LocalFeed, encode_payload
from tests.unit.services.game.conftest import DAQI, FAST_DAQI, SIT, other_node, seated


def test_the_local_feed_reaches_every_watcher_of_a_table_and_no_other():
    feed = LocalFeed()
    a, b, other = feed.subscribe("table-1"), feed.subscribe("table-1"), feed.subscribe("table-2")
    batch = Batch(1, [], Table())
    feed.publish("table-1", batch)
    assert a.get_nowait() is batch and b.get_nowait() is batch and other.empty()
    feed.unsubscribe("table-1", a)
    feed.moved_all()
    assert a.empty() and b.get_nowait() is MOVED and other.get_nowait() is MOVED


async def test_a_watcher_that_falls_a_queue_behind_loses_the_queue_and_is_told_it_fell_behind():
    feed = LocalFeed()
    slow, fast = feed.subscribe("table-1"), feed.subscribe("table-1")
    for version in range(1, WATCH_QUEUE_LIMIT + 2):
        feed.publish("table-1", Batch(version, [], Table()))
        if version <= WATCH_QUEUE_LIMIT:
            fast.get_nowait()
    assert slow.qsize() == 1 and slow.get_nowait() is OVERRUN  # its batches are let go at once
    feed.publish("table-1", Batch(WATCH_QUEUE_LIMIT + 2, [], Table()))
    assert slow.empty()  # and it takes no more
    assert fast.qsize() == 2  # the watcher that reads goes on


async def test_a_watcher_that_never_takes_its_fell_behind_is_cut_off(monkeypatch):
    monkeypatch.setattr(feed_module, "CUT_OFF_S", 0.01)
    feed = LocalFeed()

    async def never_reads() -> None:
        feed.subscribe("table-1")
        await asyncio.sleep(60)

    reader = asyncio.create_task(never_reads())
    await asyncio.sleep(0)
    for version in range(1, WATCH_QUEUE_LIMIT + 2):
        feed.publish("table-1", Batch(version, [], Table()))
    with pytest.raises(asyncio.CancelledError):
        await reader


async def test_a_watcher_on_the_writing_node_gets_history_then_each_command(node):
    created = await node.create("daqi", {}, "ann")
    table_id = created.table.table_id
    stream = node.watch(table_id, 0, 0)
    history = await anext(stream)
    assert [v for v, _ in history.events] == list(range(1, created.version + 1))
    await node.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob")
    live = await asyncio.wait_for(anext(stream), 5)
    assert live.version == created.version + SIT and live.actor == "bob"
    await stream.aclose()


async def test_commands_that_queue_up_while_a_watcher_is_busy_reach_it_as_one_batch_in_order(node):
    created = await node.create("daqi", {}, "ann")
    table_id = created.table.table_id
    stream = node.watch(table_id, 0, 0)
    await anext(stream)
    for p in ("bob", "cai"):  # the watcher is not reading meanwhile: both batches wait in its queue
        await node.execute(table_id, Sit(p), command_id=f"{p}:1", actor=p)
    both = await asyncio.wait_for(anext(stream), 5)
    assert [v for v, _ in both.events] == list(range(created.version + 1, created.version + 2 * SIT + 1))
    assert both.version == created.version + 2 * SIT and both.table.version == both.version
    assert both.actor == ""  # two senders: a seat cannot tell its own move spent its decision
    await node.execute(table_id, Sit("dan"), command_id="dan:1", actor="dan")
    alone = await asyncio.wait_for(anext(stream), 5)
    assert alone.version == both.version + SIT and alone.actor == "dan"
    await stream.aclose()


async def test_a_batch_that_goes_apart_is_never_merged_into_the_one_queued_before_it(node, monkeypatch):
    created = await node.create("daqi", {}, "ann")
    table_id = created.table.table_id
    publish = node.watcher.local.publish

    def cai_apart(table_id: str, batch: Batch | None) -> None:  # as a claim window's close is
        publish(table_id, batch if batch is None or batch.actor != "cai" else replace(batch, apart=True))

    monkeypatch.setattr(node.watcher.local, "publish", cai_apart)
    stream = node.watch(table_id, 0, 0)
    await anext(stream)
    for p in ("bob", "cai", "dan"):  # the watcher is not reading meanwhile: all three wait in its queue
        await node.execute(table_id, Sit(p), command_id=f"{p}:1", actor=p)
    bob = await asyncio.wait_for(anext(stream), 5)
    assert bob.version == created.version + SIT and bob.actor == "bob"
    cai_and_dan = await asyncio.wait_for(anext(stream), 5)  # what follows it may join it
    assert [v for v, _ in cai_and_dan.events] == list(range(bob.version + 1, bob.version + 2 * SIT + 1))
    await stream.aclose()


async def test_a_watcher_on_another_node_splits_the_fan_out_where_a_batch_goes_apart(
        node, store, live, clock, monkeypatch):
    created = await node.create("daqi", {}, "ann")
    table_id = created.table.table_id

    def cai_apart(version: int, ev: Any, apart: bool = False, due_ms: int | None = None) -> bytes:
        return encode_payload(version, ev, apart or (ev.type == "table.PlayerSeated"
                                                     and ev.data["player_id"] == "cai"), due_ms)

    monkeypatch.setattr(pipeline, "encode_payload", cai_apart)
    other = other_node(store, live, clock)
    await live.register_node("node-a", "a:1", 60_000)
    stream = other.watch(table_id, 0, 0, poll_s=5)
    await anext(stream)
    for p in ("bob", "cai"):  # fanned out before the watcher reads: one read brings both
        await node.execute(table_id, Sit(p), command_id=f"{p}:1", actor=p)
    bob = await asyncio.wait_for(anext(stream), 5)
    assert [v for v, _ in bob.events] == list(range(created.version + 1, created.version + SIT + 1))
    assert bob.table.version == bob.version == created.version + SIT
    cai = await asyncio.wait_for(anext(stream), 5)
    assert [v for v, _ in cai.events] == list(range(bob.version + 1, bob.version + SIT + 1))
    await stream.aclose()


async def test_queued_batches_are_not_merged_across_a_change_of_the_tables_status(node):
    table_id = (await node.create("daqi", FAST_DAQI, "ann")).table.table_id
    for p in DAQI:
        await node.execute(table_id, Sit(p), command_id=f"{p}:sit", actor=p)
    stream = node.watch(table_id, 0, 0)
    await anext(stream)
    for p in DAQI:  # the last Ready deals the first hand
        await node.ready(table_id, p, command_id=f"{p}:ready")
    waiting = await asyncio.wait_for(anext(stream), 5)
    dealt = await asyncio.wait_for(anext(stream), 5)
    assert waiting.table.status is Status.WAITING_FOR_HAND and dealt.table.status is Status.IN_HAND
    assert dealt.actor == DAQI[-1] and dealt.table.version == (await node.get(table_id)).version
    await stream.aclose()


async def test_a_command_whose_caller_went_away_mid_append_still_reaches_its_watchers(node):
    created = await node.create("daqi", {}, "ann")
    table_id = created.table.table_id
    stream = node.watch(table_id, 0, 0)
    await anext(stream)
    entered, release = asyncio.Event(), asyncio.Event()
    append = node.repository.append

    async def slow_append(*args, **kwargs):
        entered.set()
        await release.wait()
        return await append(*args, **kwargs)

    node.repository.append = slow_append  # type: ignore[method-assign]
    call = asyncio.create_task(node.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob"))
    await entered.wait()
    call.cancel()  # the client dropped the RPC while the append was in flight
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await call
    live = await asyncio.wait_for(anext(stream), 5)
    assert live.version == created.version + SIT and live.actor == "bob"
    await stream.aclose()


async def test_a_watcher_on_another_node_follows_the_fan_out(node, store, live, clock):
    created = await node.create("daqi", {}, "ann")
    table_id = created.table.table_id
    other = other_node(store, live, clock)
    await live.register_node("node-a", "a:1", 60_000)
    stream = other.watch(table_id, 0, 0, poll_s=0.2)
    assert (await anext(stream)).version == created.version
    await node.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob")
    assert (await asyncio.wait_for(anext(stream), 5)).version == created.version + SIT
    assert table_id not in other.leases.held  # it watched without taking the table
    await stream.aclose()


async def test_a_view_on_another_node_shows_the_deadline_the_writing_node_armed(node, store, live, clock):
    table_id = await seated(node, "koudian", {"turn_timeout_ms": 20_000, "claim_timeout_ms": 20_000},
                            ["ann", "bob", "cai", "dan"])
    other = other_node(store, live, clock)
    await live.register_node("node-a", "a:1", 60_000)
    stream = other.watch(table_id, 0, 0, poll_s=5)
    history = await anext(stream)
    assert other.deadlines.due_at_ms(history.table) is None  # read from the store: not told
    table = await node.get(table_id)
    seat = next(s for s in table.rules.deadline(table.game).defaults if s is not None)
    clock.now += 1_234
    move = table.rules.legal_actions(table.game, seat)[0]
    await node.execute(table_id, Act(table.seats[seat], move), command_id="move", actor=table.seats[seat])
    batch = await asyncio.wait_for(anext(stream), 5)
    while batch.version < (await node.get(table_id)).version:  # a window's close comes apart
        batch = await asyncio.wait_for(anext(stream), 5)
    writer = node.deadlines.due_at_ms(await node.get(table_id))
    assert writer is not None and other.deadlines.due_at_ms(batch.table) == writer
    await stream.aclose()


async def test_a_discard_whose_window_closes_in_the_same_append_is_shown_with_the_windows_deadline(
        node, store, live, clock):
    table_id = await seated(node, "koudian", {"turn_timeout_ms": 20_000, "claim_timeout_ms": 7_000,
                                                "claim_window_min_ms": 0},
                            ["ann", "bob", "cai", "dan"])
    other = other_node(store, live, clock)
    await live.register_node("node-a", "a:1", 60_000)
    here, there = node.watch(table_id, None, 0), other.watch(table_id, None, 0, poll_s=5)
    await anext(here), await anext(there)
    for _ in range(40):  # moves until a discard's window closes with it (nobody can claim)
        table = await node.get(table_id)
        seat = next(s for s in table.rules.deadline(table.game).defaults if s is not None)
        clock.now += 1_000
        move = table.rules.legal_actions(table.game, seat)[-1]
        done = await node.execute(table_id, Act(table.seats[seat], move), command_id=f"m{clock.now}",
                                  actor=table.seats[seat])
        latest = await node.get(table_id)
        batches = [await asyncio.wait_for(anext(stream), 5) for stream in (here, there)]
        if done.version == latest.version:
            continue
        for stream in (here, there):  # the close, apart
            assert (await asyncio.wait_for(anext(stream), 5)).version == latest.version
        if not isinstance(move, Discard):
            continue  # a claimant's pass closing a window opened earlier, which keeps its due time
        window = node.deadlines.shown_at_ms(done.table, clock.now)
        assert window == clock.now + 7_000
        assert [b.due_ms for b in batches] == [window, window]
        break
    else:
        raise AssertionError("no discard's window closed in the same append")
    await here.aclose(), await there.aclose()


async def test_a_deadline_the_live_state_lost_is_armed_again_once_overdue_and_fires(node, live, clock):
    table_id = await seated(node, options={**FAST_DAQI, "bid_window_ms": 1_000})
    before = await node.get(table_id)
    await live.cancel(table_id, "turn")  # lost: a master failed over before its replica had it
    clock.now += node.delay_ms(before) + 1
    assert await node.fire_due() == 0
    assert await node.ownership.rearm_overdue(grace_ms=10_000) == 0  # late, not yet lost
    for _ in range(10):  # the node keeps its lease meanwhile
        clock.now += 1_000
        await node.leases.renew_once()
    assert await node.ownership.rearm_overdue(grace_ms=10_000) == 1
    assert await node.ownership.rearm_overdue(grace_ms=10_000) == 0  # once per table version
    assert await node.fire_due() == 1
    records = await node.history(table_id, before.version + 1)
    assert records[0].metadata["command"]["type"] == "table.Timeout"


async def test_the_seats_of_a_table_that_start_watching_together_read_its_history_once(node):
    table_id = await seated(node)
    reads = []
    events = node.repository.events

    async def counted(*args, **kwargs):
        reads.append(args)
        return await events(*args, **kwargs)

    node.repository.events = counted  # type: ignore[method-assign]
    streams = [node.watch(table_id, seat, 0) for seat in range(len(DAQI))]
    firsts = await asyncio.gather(*(anext(s) for s in streams))
    assert len(reads) == 1
    table = await node.get(table_id)
    assert all(b.version == table.version for b in firsts)
    hidden = [[ev for _, ev in b.events] for b in firsts]
    assert len({repr(h) for h in hidden}) == len(DAQI)  # each seat its own redaction of the deal
    for s in streams:
        await s.aclose()
