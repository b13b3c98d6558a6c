"""Ratings follow the hands in the event log, exactly once (services/matchmaking/ratings.py), on
both event-store backends."""

from __future__ import annotations

import asyncio

import pytest

from engine.chips import HandSettled, SeatPayment
from services.eventstore import CheckpointMoved, NewEvent
from services.matchmaking.ratings import DEFAULT_RATING, K, open_ratings

pytestmark = pytest.mark.integration


def _settled(hand: int, *payments: tuple[str, str, int], ruleset: str = "koudian") -> NewEvent:
    return NewEvent.of(HandSettled(hand, ruleset, tuple(
        SeatPayment(0, 1, chips, "win", payer, payee) for payer, payee, chips in payments)))


async def test_the_payee_of_a_hand_gains_what_the_payer_loses_and_bots_are_not_rated(store):
    ratings = await open_ratings(store)
    await store.append("table-aaaa", 0, [_settled(1, ("bob", "ann", 30), ("bot-x-2", "ann", 5))])
    await ratings.catch_up()
    ann, bob = await ratings.rating("ann", "koudian"), await ratings.rating("bob", "koudian")
    assert ann == pytest.approx(DEFAULT_RATING + K / 2) and bob == pytest.approx(DEFAULT_RATING - K / 2)
    assert await ratings.rating("ann", "daqi") == DEFAULT_RATING
    assert await ratings.profile("ann") == [("koudian", pytest.approx(ann), 1)]
    assert await ratings.profile("bot-x-2") == []


async def test_every_hand_is_rated_once_however_often_and_by_how_many_the_log_is_read(store, open_store):
    others = [await open_ratings(await open_store()) for _ in range(3)]
    ratings = await open_ratings(store)
    await store.append("table-bbbb", 0, [_settled(n, ("bob", "ann", 10)) for n in range(1, 6)])
    await store.append("table-cccc", 0, [_settled(1, ("ann", "cy", 10), ruleset="daqi")])
    async def read(r) -> None:
        for _ in range(3):
            try:
                await r.catch_up()
            except CheckpointMoved:
                pass  # another reader committed that batch first: it stands, once

    await asyncio.gather(*(read(r) for r in [ratings, *others]))
    await ratings.catch_up()
    profile = dict((r, (v, n)) for r, v, n in await ratings.profile("ann"))
    assert profile["koudian"][1] == 5 and profile["daqi"][1] == 1
    assert profile["koudian"][0] > DEFAULT_RATING > profile["daqi"][0]
    bob = await ratings.rating("bob", "koudian")
    assert bob + profile["koudian"][0] == pytest.approx(2 * DEFAULT_RATING)  # zero-sum


async def test_matchmakers_starting_together_each_open_the_ratings(store, open_store):
    stores = [store, *[await open_store() for _ in range(5)]]
    opened = await asyncio.gather(*(open_ratings(s) for s in stores))
    assert [await r.rating("ann", "koudian") for r in opened] == [DEFAULT_RATING] * len(stores)
