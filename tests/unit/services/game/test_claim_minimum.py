"""A claim window's minimum on the service's clock (rules revision 3, docs/hidden-information.md):
it closes at `claim_window_min_ms` whether or not anyone could claim, earlier only when every
other seat answered, and every observer is shown `claim_timeout_ms` from its opening throughout."""

from __future__ import annotations

import json

from engine.table import Act, ClaimTimedOut, Sit, Table
from services.game.tables import TableService
from tests.unit.services.game.conftest import FakeClock
from tests.unit.services.game.test_claim_deadlines import shown, wait_until, window_open

MIN_MS, CLAIM_MS = 1_000, 8_000
PLAYERS = ["ann", "bob", "cai", "dan"]
HANDS = ["1m 4m 7m 2p 5p 8p 3s 4s 7s E S W N C", "2m 5m 8m 3p 6p 9p 2s 5s 7s E S W F",
         "3m 6m 9m 1p 4p 7p 3s 6s 9s N N P P", "1m 4m 7m 2p 5p 8p 3s 4s 7s E S W C"]
NO_PAIR = "3m 6m 9m 1p 4p 7p 3s 6s 9s N P 2m 8m"


async def discarded(node: TableService, pair: bool) -> tuple[str, Table]:
    """A koudian table whose dealer just discarded N: seat 2 may pong it (`pair`) or not."""
    deal = {"dealer": 0, "hands": [*HANDS[:2], HANDS[2] if pair else NO_PAIR, HANDS[3]],
            "wall": "9m 9p 5s 1s P 5m", "tail": "6s 6s"}
    options = {"turn_timeout_ms": 60_000, "claim_timeout_ms": CLAIM_MS, "claim_window_min_ms": MIN_MS}
    table_id = (await node.create("koudian", options, "ann", fixed_deal=json.dumps(deal))).table.table_id
    for p in PLAYERS:
        await node.execute(table_id, Sit(p), command_id=f"{p}:sit", actor=p)
    for p in PLAYERS:
        await node.ready(table_id, p, command_id=f"{p}:ready")
    return table_id, await answer(node, table_id, 0, "discard", "N")


async def answer(node: TableService, table_id: str, seat: int, action: str, tile: str = "") -> Table:
    table = await node.get(table_id)
    cmd = table.rules.parse_command({"seat": seat, "action": action, **({"tile": tile} if tile else {})})
    await node.execute(table_id, Act(PLAYERS[seat], cmd), command_id=f"{seat}:{table.version}", actor=PLAYERS[seat])
    return await node.get(table_id)


async def test_a_window_nobody_can_claim_stays_open_until_its_minimum_showing_the_full_deadline(
        node: TableService, clock: FakeClock) -> None:
    opened = clock.now
    table_id, table = await discarded(node, pair=False)
    assert window_open(table)
    assert {seat: shown(table, seat, node) for seat in (1, None)} == \
        {1: (CLAIM_MS, opened + CLAIM_MS), None: (CLAIM_MS, opened + CLAIM_MS)}
    await wait_until(node, clock, opened + MIN_MS - 1)
    assert await node.fire_due() == 0
    await wait_until(node, clock, opened + MIN_MS)
    assert await node.fire_due() == 1
    assert not window_open(await node.get(table_id))


async def test_a_claimant_passing_before_the_minimum_closes_the_window_no_sooner(
        node: TableService, clock: FakeClock) -> None:
    opened = clock.now
    table_id, table = await discarded(node, pair=True)
    before = shown(table, 1, node)
    await wait_until(node, clock, opened + 200)
    table = await answer(node, table_id, 2, "pass")
    assert window_open(table) and shown(table, 1, node) == before
    await wait_until(node, clock, opened + MIN_MS - 1)
    assert await node.fire_due() == 0
    await wait_until(node, clock, opened + MIN_MS)
    assert await node.fire_due() == 1
    assert not window_open(await node.get(table_id))


async def test_a_silent_claimant_times_out_at_the_deadline_shown_and_is_told_so_alone(
        node: TableService, clock: FakeClock) -> None:
    opened = clock.now
    table_id, _ = await discarded(node, pair=True)
    await wait_until(node, clock, opened + CLAIM_MS - 1)
    assert await node.fire_due() == 0 and window_open(await node.get(table_id))
    await wait_until(node, clock, opened + CLAIM_MS)
    assert await node.fire_due() == 1  # its timeout: seen by seat 2 alone ...
    table = await node.get(table_id)
    assert table.claim_streaks[2] == 1 and table.streaks[2] == 0
    assert await node.fire_due() == 1  # ... then the close, its minimum long over
    assert not window_open(await node.get(table_id))
    timed_out = [r.decode() for r in await node.repository.store.read_stream(table_id)
                 if r.type == "table.ClaimTimedOut"]
    assert timed_out == [ClaimTimedOut(2, 1)]


async def test_a_window_every_other_seat_answered_closes_at_once(node: TableService, clock: FakeClock) -> None:
    for pair in (True, False):
        table_id, _ = await discarded(node, pair)
        for seat in (1, 2):
            assert window_open(await answer(node, table_id, seat, "pass"))
        assert not window_open(await answer(node, table_id, 3, "pass"))
