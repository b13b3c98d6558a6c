"""The queues' figures (ListQueues: matches and waits) live in the shared store, so every
matchmaker process reports the same, whichever process seated the matches."""

# ruff: noqa: F811  (the fixtures imported below are parameters of the tests)
from __future__ import annotations

import statistics
from collections.abc import Callable

import pytest

from services.matchmaking.store import RECENT_WAITS, TicketStore
from tests.integration.matchmaking.test_ticket_store import (  # noqa: F401  (fixtures)
    NOW,
    SPEC,
    open_ticket_store,
    queue,
)

pytestmark = pytest.mark.integration


async def seat_one(store: TicketStore, players: tuple[str, ...], waits: list[int]) -> None:
    await queue(store, *players)
    [match] = await store.form(SPEC, NOW + 10, 5000, 10)
    assert await store.matched(match.match_id, SPEC.name, "table-" + match.match_id,
                               {t: n for n, t in enumerate(match.tickets)}, waits)


async def test_matches_and_waits_seated_by_two_processes_are_seen_by_both(
        open_ticket_store: Callable[[], TicketStore]) -> None:
    ours, theirs = open_ticket_store(), open_ticket_store()
    await seat_one(ours, ("a", "b", "c", "d"), [100, 200, 300, 400])
    await seat_one(theirs, ("e", "f", "g", "h"), [500, 600, 700, 800])
    for store in (ours, theirs):
        matches, waits = await store.match_stats(SPEC.name)
        assert matches == 2 and statistics.median(waits) == 450
        assert sorted(waits) == [100, 200, 300, 400, 500, 600, 700, 800]


async def test_a_match_finished_twice_counts_once_and_only_recent_waits_are_kept(
        open_ticket_store: Callable[[], TicketStore]) -> None:
    store = open_ticket_store()
    await queue(store, "a", "b", "c", "d")
    [match] = await store.form(SPEC, NOW + 10, 5000, 10)
    seats = {t: n for n, t in enumerate(match.tickets)}
    assert await store.matched(match.match_id, SPEC.name, "t", seats, [1] * (RECENT_WAITS + 5))
    assert not await store.matched(match.match_id, SPEC.name, "t", seats, [2, 2, 2, 2])
    matches, waits = await store.match_stats(SPEC.name)
    assert matches == 1 and waits == [1] * RECENT_WAITS
