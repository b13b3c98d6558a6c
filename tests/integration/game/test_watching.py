"""Watching a table: in-process on the node that writes it, from the fan-out elsewhere, and
from one to the other when the table changes node — never a gap, never a repeat."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.game.tables import Batch, TableService
from tests.integration.game.conftest import play_with_bots, seat_everyone

pytestmark = pytest.mark.integration

KOUDIAN = ["ann", "bob", "cai", "dan"]


async def _follow(service: TableService, table_id: str, seat: int, into: list[Batch]) -> None:
    async for batch in service.watch(table_id, seat, 0, poll_s=0.05):
        into.append(batch)


async def _until(service: TableService, table_id: str, batches: list[Batch]) -> None:
    final = (await service.get(table_id)).version
    for _ in range(200):
        if batches and batches[-1].version == final:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the watcher stopped at {batches[-1].version if batches else 0}, not {final}")


def _versions(batches: list[Batch]) -> list[int]:
    return [v for b in batches for v, _ in b.events]


async def _watched_hand(writer: TableService, watcher: TableService, backends: dict) -> tuple[str, list[Batch]]:
    table_id = (await writer.create("koudian", {}, "ann")).table.table_id
    await seat_everyone(writer, table_id, KOUDIAN)
    batches: list[Batch] = []
    task = asyncio.create_task(_follow(watcher, table_id, 1, batches))
    try:
        await play_with_bots(writer, table_id, KOUDIAN, backends["clock"])
        await _until(writer, table_id, batches)
    finally:
        task.cancel()
    return table_id, batches


async def test_on_the_tables_node_each_batch_carries_the_table_as_the_command_left_it(backends):
    writer = await backends["open"]()
    table_id, batches = await _watched_hand(writer, writer, backends)
    assert all(b.table.version == b.version for b in batches)
    assert batches[-1].table == await writer.get(table_id)
    assert _versions(batches) == sorted(set(_versions(batches)))


async def test_on_another_node_the_watcher_folds_the_same_table_from_the_fan_out(backends):
    writer, elsewhere = await backends["open"](), await backends["open"]()
    table_id, batches = await _watched_hand(writer, elsewhere, backends)
    assert table_id not in elsewhere.leases.held  # it never served the table
    assert all(b.table.version == b.version for b in batches)
    assert batches[-1].table == await writer.get(table_id)
    assert _versions(batches) == sorted(set(_versions(batches)))


async def test_a_watcher_whose_node_hands_the_table_over_goes_on_without_gap_or_repeat(backends):
    first, second = await backends["open"](), await backends["open"]()
    table_id = (await first.create("koudian", {}, "ann")).table.table_id
    await seat_everyone(first, table_id, KOUDIAN)
    batches: list[Batch] = []
    task = asyncio.create_task(_follow(first, table_id, 1, batches))
    try:
        await _until(first, table_id, batches)
        await first.drain()  # the first node stops serving: its watcher must go on elsewhere
        await play_with_bots(second, table_id, KOUDIAN, backends["clock"])
        await _until(second, table_id, batches)
    finally:
        task.cancel()
    assert table_id in second.leases.held
    seen = _versions(batches)
    assert seen == sorted(set(seen)) and batches[-1].table == await second.get(table_id)
    everything = [r.version for r in await second.history(table_id)]
    hidden = set(everything) - set(seen)
    # What seat 1 did not see was hidden from it, never lost: claims offered to others and their answers.
    records: dict[int, Any] = {r.version: r for r in await second.history(table_id)}
    assert {records[v].type for v in hidden} <= {"mahjong.ClaimAnswered", "koudian.ClaimWindowOpened"}
