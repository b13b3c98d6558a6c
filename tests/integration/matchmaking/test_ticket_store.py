"""The ticket stores (memory and Redis) keep the same contract: one live ticket per player,
FIFO formation within a widening rating band, bot fill, the reconnect grace, undoing a match
back to the front of the queue, and taking over the matches of a process that died."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import AsyncIterator, Callable

import pytest

from services.matchmaking.config import QueueSpec, parse_queues
from services.matchmaking.redis_store import RedisTicketStore
from services.matchmaking.store import MemoryTicketStore, TicketStore
from services.matchmaking.tickets import (
    CANCELLED,
    FORMING,
    MATCHED,
    SEARCHING,
    Ticket,
    new_ticket_id,
)

pytestmark = pytest.mark.integration

SPEC = parse_queues({"defaults": {"bot_fill_after_s": 20, "grace_s": 15, "band_start": 100,
                                  "band_widen_per_s": 50, "band_max": 1000},
                     "rulesets": {"koudian": {"presets": {"standard": {}}, "tiers": {"bronze": {"stake": 1}}}}}
                    ).queues["koudian/standard/bronze"]
NOW = 1_000_000


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
async def open_ticket_store(request: pytest.FixtureRequest) -> AsyncIterator[Callable[[], TicketStore]]:
    """Opens stores on one backend: each Redis store is another matchmaker process's view. On
    a cluster, every queue's keys share one hash slot (scripts would fail otherwise)."""
    opened: list[TicketStore] = []
    memory = MemoryTicketStore()

    def open_() -> TicketStore:
        if request.param == "memory":
            return memory
        url = request.getfixturevalue("redis_url" if request.param == "redis" else "redis_cluster_url")
        prefix = request.getfixturevalue("redis_prefix")
        store = RedisTicketStore(url, prefix.rstrip(":"))
        opened.append(store)
        return store

    yield open_
    if opened and request.param == "redis-cluster":  # redis_prefix cleans the single server only
        async for key in opened[0]._client.scan_iter(match=f"{opened[0].namespace}:*"):
            await opened[0]._client.delete(key)
    for store in opened:
        await store.close()


@pytest.fixture
def store(open_ticket_store: Callable[[], TicketStore]) -> TicketStore:
    return open_ticket_store()


def ticket(player: str, at: int = NOW, rating: int = 1500, spec: QueueSpec = SPEC) -> Ticket:
    return Ticket(new_ticket_id(spec.name), player, spec.name, SEARCHING, at, rating=rating,
                  expires_ms=at + spec.grace_ms)


async def queue(store: TicketStore, *players: str, at: int = NOW, rating: int = 1500) -> list[Ticket]:
    return [await store.enqueue(ticket(p, at, rating)) for p in players]


async def test_queueing_again_returns_the_players_live_ticket(store):
    first = await store.enqueue(ticket("ann"))
    again = await store.enqueue(ticket("ann"))
    assert again.ticket_id == first.ticket_id and (await store.latest("ann")).ticket_id == first.ticket_id


async def test_four_tickets_form_one_match_first_in_first_matched(store):
    tickets = await queue(store, "a", "b", "c", "d", "e")
    [match] = await store.form(SPEC, NOW + 10, 5000, 10)
    assert match.players == ("a", "b", "c", "d") and match.bots == 0
    assert [(await store.get(t.ticket_id)).state for t in tickets] == [FORMING] * 4 + [SEARCHING]
    assert await store.position(await store.get(tickets[4].ticket_id)) == 1
    assert await store.form(SPEC, NOW + 20, 5000, 10) == []


async def test_a_ticket_outside_the_band_waits_until_the_band_has_widened_to_reach_it(store):
    await queue(store, "a", "b", "c", rating=1500)
    await queue(store, "far", rating=1800)
    assert await store.form(SPEC, NOW + 1000, 5000, 10) == []  # band 150: 300 points away
    [match] = await store.form(SPEC, NOW + 4000, 5000, 10)  # band 300
    assert set(match.players) == {"a", "b", "c", "far"}


async def test_bots_fill_the_table_once_the_oldest_ticket_waited_the_bot_fill_time(store):
    for t in await queue(store, "ann", "bob"):
        await store.hold(t.ticket_id, NOW + 60_000)  # their streams are open
    assert await store.form(SPEC, NOW + SPEC.bot_fill_after_ms - 1, 5000, 10) == []
    [match] = await store.form(SPEC, NOW + SPEC.bot_fill_after_ms, 5000, 10)
    assert match.players == ("ann", "bob") and match.bots == 2


async def test_a_ticket_nobody_holds_is_cancelled_as_disconnected_after_the_grace(store):
    no_bots = dataclasses.replace(SPEC, bot_fill_after_ms=0)
    [t] = await queue(store, "ann")
    await store.hold(t.ticket_id, NOW + 30_000)
    assert await store.form(no_bots, NOW + 29_000, 5000, 10) == []
    assert (await store.get(t.ticket_id)).state == SEARCHING
    await store.form(no_bots, NOW + 30_001, 5000, 10)
    gone = await store.get(t.ticket_id)
    assert (gone.state, gone.cancel_reason) == (CANCELLED, "disconnected")


async def test_cancel_is_idempotent_and_leaves_a_matched_ticket_alone(store):
    [t] = await queue(store, "ann")
    assert (await store.cancel(t.ticket_id, "cancelled", "")).state == CANCELLED
    assert (await store.cancel(t.ticket_id, "cancelled", "")).state == CANCELLED
    tickets = await queue(store, "a", "b", "c", "d")
    [match] = await store.form(SPEC, NOW + 10, 5000, 10)
    assert await store.matched(match.match_id, SPEC.name, "table-x", {x.ticket_id: n for n, x in enumerate(tickets)})
    assert (await store.cancel(tickets[0].ticket_id, "cancelled", "")).state == MATCHED


async def test_an_undone_match_puts_its_tickets_back_at_the_front_and_cancels_the_one_refused(store):
    tickets = await queue(store, "a", "b", "c", "d")
    later = await queue(store, "e", at=NOW + 5)
    [match] = await store.form(SPEC, NOW + 10, 5000, 1)
    assert await store.requeue(match.match_id, SPEC.name,
                               {tickets[1].ticket_id: ("insufficient_chips", "b has 3 chips")}, NOW + 20_000)
    assert not await store.requeue(match.match_id, SPEC.name, {}, NOW + 20_000)  # once
    refused = await store.get(tickets[1].ticket_id)
    assert (refused.state, refused.cancel_reason) == (CANCELLED, "insufficient_chips")
    positions = [await store.position(await store.get(t.ticket_id)) for t in (tickets[0], tickets[2], tickets[3], later[0])]
    assert positions == [1, 2, 3, 4]


async def test_a_match_whose_process_died_is_taken_over_once_its_lease_ran_out(open_ticket_store):
    mine, theirs = open_ticket_store(), open_ticket_store()
    tickets = await queue(mine, "a", "b", "c", "d")
    [match] = await mine.form(SPEC, NOW, 5000, 10)
    assert await theirs.claim_stale(SPEC.name, NOW + 4999, 5000) == []
    [taken] = await theirs.claim_stale(SPEC.name, NOW + 5000, 5000)
    assert (taken.match_id, taken.tickets) == (match.match_id, match.tickets)
    assert await theirs.claim_stale(SPEC.name, NOW + 5001, 5000) == []  # leased to them now
    seats = {t.ticket_id: n for n, t in enumerate(tickets)}
    assert await theirs.matched(match.match_id, SPEC.name, "table-x", seats)
    assert not await mine.matched(match.match_id, SPEC.name, "table-x", seats)  # finished once
    assert {(await mine.get(t.ticket_id)).state for t in tickets} == {MATCHED}


async def test_a_ticket_is_in_at_most_one_match_when_processes_form_at_once(open_ticket_store):
    stores = [open_ticket_store() for _ in range(4)]
    rng = random.Random(7)
    players = [f"p{n}" for n in range(203)]
    for p in players:
        await stores[rng.randrange(4)].enqueue(ticket(p, rating=1500 + rng.randrange(-50, 50)))
    matches = []
    for _ in range(10):
        rounds = await asyncio.gather(*(s.form(SPEC, NOW + 10, 5000, 5) for s in stores))
        matches += [m for r in rounds for m in r]
    seen = [t for m in matches for t in m.tickets]
    assert len(seen) == len(set(seen)) == 200
    assert all(len(set(m.players)) == 4 for m in matches)


async def test_a_player_queueing_from_several_processes_at_once_gets_one_ticket(open_ticket_store):
    stores = [open_ticket_store() for _ in range(5)]
    got = await asyncio.gather(*(s.enqueue(ticket("ann")) for s in stores))
    assert len({t.ticket_id for t in got}) == 1



async def test_the_redis_script_forms_the_same_groups_as_the_memory_store(redis_url, redis_prefix):
    rng = random.Random(3)
    spec = dataclasses.replace(SPEC, band_start=50, band_widen_per_s=40, bot_fill_after_ms=8000)
    for case in range(12):
        memory, redis = MemoryTicketStore(), RedisTicketStore(redis_url, f"{redis_prefix}{case}")
        try:
            arrivals = sorted((rng.randrange(0, 20_000), rng.randrange(1300, 1700))
                              for _ in range(rng.randrange(1, 30)))
            for n, (at, rating) in enumerate(arrivals):
                t = dataclasses.replace(ticket(f"p{n}", NOW + at, rating), expires_ms=NOW + 10**6)
                await memory.enqueue(t)
                await redis.enqueue(t)
            now, limit = NOW + 20_000, rng.randrange(1, 6)
            got = [await s.form(spec, now, 5000, limit) for s in (memory, redis)]
            assert [(m.players, m.bots) for m in got[0]] == [(m.players, m.bots) for m in got[1]], case
        finally:
            await redis.close()
