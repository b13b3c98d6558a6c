"""`kill -9` the ledger process while it settles, several times: after a restart every hand
is posted exactly once and the audit holds."""

from __future__ import annotations

import asyncio
import random
import signal

import pytest

import engine.chips  # noqa: F401  (registers the chip events this test appends)
from services.eventstore import EventStore, GlobalPosition, open_event_store
from services.ledger.settlement import SUBSCRIPTION
from services.ledger.store import open_ledger
from services.ledger.transfers import Transfer
from tests.integration.ledger.test_settlement import PLAYERS, play_table

pytestmark = pytest.mark.e2e

TABLES_PER_WAVE, HANDS = 40, 40


async def _last_position(events: EventStore) -> GlobalPosition:
    last = None
    for stream in await events.list_streams("table-"):
        position = (await events.read_stream(stream))[-1].position
        last = position if last is None or position > last else last
    assert last is not None
    return last


async def _wait_until(events: EventStore, done, timeout: float) -> GlobalPosition:
    """Poll the consumer's checkpoint every 10 ms until `done(checkpoint)`."""
    async with asyncio.timeout(timeout):
        while not done(checkpoint := await events.checkpoint(SUBSCRIPTION)):
            await asyncio.sleep(0.01)
    return checkpoint


async def test_kill_9_mid_settlement_posts_every_hand_exactly_once(start_server, production_env):
    url = production_env["QIPAI_DATABASE_URL"]
    rng = random.Random(13)
    events = await open_event_store(url)
    ledger = await open_ledger(url)
    try:
        for name in PLAYERS:
            await ledger.post(Transfer(f"grant/crash-{name}", "house", f"player/{name}", 1_000_000, "grant"),
                              open_credit=True)
        nets: list[dict[str, int]] = []
        for wave in range(4):
            before = await events.checkpoint(SUBSCRIPTION)
            nets += await asyncio.gather(*(play_table(events, f"w{wave}-t{n}", HANDS, rng)
                                           for n in range(TABLES_PER_WAVE)))
            last = await _last_position(events)
            server = start_server(production_env, service="ledger", wait=False)
            # Kill it once it has settled part of the wave, at a random point of the rest.
            await _wait_until(events, lambda at, b=before: at > b, timeout=30)
            await asyncio.sleep(rng.uniform(0, 0.2))
            server.stop(signal.SIGKILL)
            assert await events.checkpoint(SUBSCRIPTION) < last, "killed too late: make the waves bigger"
        start_server(production_env, service="ledger", wait=False)
        last = await _last_position(events)
        await _wait_until(events, lambda at: at >= last, timeout=60)
        for name in PLAYERS:
            assert await ledger.balance(f"player/{name}") == 1_000_000 + sum(n[name] for n in nets)
        report = await ledger.audit()
        assert report.ok, report
        assert report.transfers == len(PLAYERS) + sum(n["transfers"] for n in nets)
    finally:
        await ledger.close()
        await events.close()
