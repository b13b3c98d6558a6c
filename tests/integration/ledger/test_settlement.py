"""The settlement consumer: chip events in the tables' streams become transfers exactly once,
committed with the subscription's checkpoint."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine.chips import HandSettled, SeatPayment, StackBoughtIn, StackCashedOut
from services.eventstore import NewEvent, open_event_store
from services.ledger.leaderboard import MemoryLeaderboards
from services.ledger.service import LedgerService
from services.ledger.settlement import SUBSCRIPTION, SettlementConsumer
from services.ledger.store import open_ledger

from .conftest import player

pytestmark = pytest.mark.integration

PLAYERS = ("ann", "bob", "cy", "dee")


def new(event: Any) -> NewEvent:
    from engine.core.messages import encode

    name, version, data = encode(event)
    return NewEvent(name, data, schema_version=version)


@pytest.fixture
async def node(ledger_url: str, clock, ledger_config) -> AsyncIterator[Any]:
    """`node()` opens a ledger process's parts on the test database: event store, ledger
    store, service and consumer."""
    opened: list[Any] = []

    async def open_node() -> SettlementConsumer:
        events = await open_event_store(ledger_url)
        ledger = await open_ledger(ledger_url, store=events)
        opened.extend([ledger, events])
        return SettlementConsumer(events, LedgerService(ledger, MemoryLeaderboards(), ledger_config, clock),
                                  batch_size=16)

    yield open_node
    for thing in opened:
        await thing.close()


async def settle_all(consumer: SettlementConsumer) -> int:
    """Catch up until the checkpoint has passed every table event appended so far. On Postgres
    a reader sees an event only once every older transaction on the server has ended, so one
    catch-up may stop short while another session's transaction is open."""
    streams = await consumer.events.list_streams("table-")
    last = max([(await consumer.events.read_stream(s))[-1].position for s in streams])
    handled = 0
    for _ in range(200):
        handled += await consumer.catch_up()
        if await consumer.events.checkpoint(SUBSCRIPTION) >= last:
            return handled
        await asyncio.sleep(0.05)
    raise AssertionError("the consumer did not reach the end of the log")


async def fund(consumer: SettlementConsumer) -> None:
    for name in PLAYERS:
        await consumer.service.welcome(name)


async def play_table(events, table: str, hands: int, rng: random.Random, buy_in: int = 100) -> dict[str, int]:
    """A table's chip events: four buy-ins, `hands` settled hands (capped like 积分最小化, from
    the recorded stacks), four cash-outs. Returns each player's net result, and under "transfers"
    how many transfers they cause (a payment or cash-out of 0 chips causes none)."""
    stream = f"table-{table}"
    stacks = [buy_in] * 4
    count = 4 + 4
    appended = [new(StackBoughtIn(seat, name, buy_in, 1)) for seat, name in enumerate(PLAYERS)]
    for hand in range(1, hands + 1):
        winner = rng.randrange(4)
        payments = []
        start = list(stacks)
        for loser in range(4):
            if loser == winner:
                continue
            chips = min(rng.randrange(1, 30), start[winner], stacks[loser])
            count += chips > 0
            stacks[loser] -= chips
            stacks[winner] += chips
            payments.append(SeatPayment(loser, winner, chips, "self_draw", PLAYERS[loser], PLAYERS[winner]))
        appended.append(new(HandSettled(hand, "koudian", tuple(payments))))
    appended += [new(StackCashedOut(seat, name, stacks[seat], 1)) for seat, name in enumerate(PLAYERS)]
    count -= stacks.count(0)
    version = 0
    for chunk in range(0, len(appended), 7):  # several appends, as a table's commands would be
        version = await events.append(stream, version, appended[chunk:chunk + 7])
    return {name: stacks[seat] - buy_in for seat, name in enumerate(PLAYERS)} | {"transfers": count}


async def test_buy_ins_hands_and_cash_outs_become_transfers_and_stacks_return_to_the_players(node):
    consumer = await node()
    await fund(consumer)
    net = await play_table(consumer.events, "t1", 5, random.Random(1))
    await settle_all(consumer)
    store = consumer.service.store
    for name in PLAYERS:
        assert await store.balance(f"player/{name}") == 1000 + net[name]
    for seat in range(4):
        assert await store.balance(f"table/t1/seat/{seat}") == 0
    assert (await store.get("buyin/t1/0/ann/1")).transfer.amount == 100
    assert (await store.audit()).ok


async def test_each_payment_is_one_transfer_named_by_table_hand_payer_payee_and_reason(node):
    consumer = await node()
    await fund(consumer)
    await consumer.events.append("table-t9", 0, [new(StackBoughtIn(s, n, 100, 1)) for s, n in enumerate(PLAYERS)]
                                 + [new(HandSettled(1, "koudian", (
                                     SeatPayment(1, 0, 10, "discard_win", "bob", "ann"),
                                     SeatPayment(2, 0, 5, "bao", "cy", "ann"),
                                     SeatPayment(2, 0, 5, "bao", "cy", "ann"))))])
    await settle_all(consumer)
    history = await consumer.service.store.history("table/t9/seat/0")
    settled = {p.transfer.id: p.transfer.amount for p in history if p.transfer.kind == "settle"}
    assert settled == {"settle/t9/1/1/0/discard_win": 10, "settle/t9/1/2/0/bao": 10}
    details = (await consumer.service.store.get("settle/t9/1/1/0/discard_win")).transfer.details
    assert (details["ruleset"], details["payer_player"], details["payee_player"]) == ("koudian", "bob", "ann")


async def test_running_again_posts_nothing_twice_and_ignores_other_streams(node):
    consumer = await node()
    await fund(consumer)
    await consumer.events.append("lobby-1", 0, [new(StackBoughtIn(0, "ann", 50, 1))])
    net = await play_table(consumer.events, "t1", 3, random.Random(2))
    first = await settle_all(consumer)
    assert await consumer.catch_up() == 0
    again = await node()
    assert await again.catch_up() == 0 and first > 0
    report = await consumer.service.store.audit()
    assert report.ok and report.transfers == 4 + net["transfers"]  # welcomes, then the table's
    assert await consumer.service.store.get("buyin/lobby-1/0/ann/1") is None


async def test_two_consumers_racing_post_every_payment_exactly_once(node):
    one, two = await node(), await node()
    await fund(one)
    nets = [await play_table(one.events, f"t{n}", 6, random.Random(n)) for n in range(4)]

    async def drain(consumer: SettlementConsumer) -> None:
        from services.eventstore import CheckpointMoved

        while True:
            try:
                await settle_all(consumer)
                return
            except CheckpointMoved:
                continue

    await asyncio.gather(drain(one), drain(two))
    for name in PLAYERS:
        assert await one.service.store.balance(f"player/{name}") == 1000 + sum(net[name] for net in nets)
    report = await one.service.store.audit()
    assert report.ok and report.transfers == 4 + sum(net["transfers"] for net in nets)


async def test_a_consumer_cancelled_at_random_points_still_posts_every_hand_exactly_once(node):
    consumer = await node()
    await fund(consumer)
    rng = random.Random(7)
    nets = [await play_table(consumer.events, f"t{n}", 8, rng) for n in range(5)]
    for _ in range(12):  # a cancelled task stops wherever it is: mid-batch, mid-commit
        task = asyncio.create_task(consumer.catch_up())
        await asyncio.sleep(rng.random() * 0.02)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    await settle_all(await node())
    for name in PLAYERS:
        assert await consumer.service.store.balance(f"player/{name}") == 1000 + sum(n[name] for n in nets)
    report = await consumer.service.store.audit()
    assert report.ok and report.transfers == 4 + sum(net["transfers"] for net in nets)


async def test_settled_hands_reach_the_leaderboards(node):
    consumer = await node()
    await fund(consumer)
    net = await play_table(consumer.events, "t1", 6, random.Random(3))
    await settle_all(consumer)
    _, top, me, _, players = await consumer.service.leaderboard(player("ann"), "koudian", "all", 10, 0)
    assert players == 4 and me.chips_won == net["ann"]
    assert [e.chips_won for e in top] == sorted((net[name] for name in PLAYERS), reverse=True)


async def test_a_payment_from_a_seat_that_never_bought_in_stops_settlement_there_and_posts_nothing(node):
    from services.ledger.errors import UnknownAccount

    consumer = await node()
    await fund(consumer)
    await consumer.events.append("table-t1", 0, [new(HandSettled(1, "koudian", (
        SeatPayment(1, 0, 10, "discard_win", "bob", "ann"),)))])
    with pytest.raises(UnknownAccount, match="table/t1/seat/1"):
        for _ in range(100):  # on Postgres the event may take a moment to be readable
            await consumer.catch_up()
            await asyncio.sleep(0.05)
    assert (await consumer.service.store.audit()).transfers == 4
    assert await consumer.events.checkpoint(SUBSCRIPTION) < (await consumer.events.read_stream("table-t1"))[0].position


async def test_leaderboards_that_fail_do_not_hold_settlement_up_and_are_rebuilt_when_back(node, monkeypatch):
    import services.ledger.settlement as settlement

    consumer = await node()
    await fund(consumer)
    boards = consumer.service.boards

    async def down(*args, **kwargs):
        raise ConnectionError("redis is away")

    monkeypatch.setattr(settlement, "REBUILD_BACKOFF_S", 0.0)
    monkeypatch.setattr(boards, "add", down)
    net = await play_table(consumer.events, "t1", 4, random.Random(5))
    await settle_all(consumer)
    assert await consumer.service.store.balance("player/ann") == 1000 + net["ann"]
    assert (await consumer.service.leaderboard(player("ann"), "koudian", "all", 10, 0))[4] == 0
    monkeypatch.setattr(boards, "add", type(boards).add.__get__(boards))
    await consumer.catch_up()
    _, _, me, _, _ = await consumer.service.leaderboard(player("ann"), "koudian", "all", 10, 0)
    assert me.chips_won == net["ann"]
