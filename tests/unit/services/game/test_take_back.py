"""Taking a seat back from auto-play (托管) through the table service, with a clock the test moves
by hand: the race a client deciding on the version it saw used to lose every time."""

from __future__ import annotations

import pytest

from engine.core.errors import RuleViolation
from engine.table import Act, Table, TakeBack
from services.game.clock import AUTO_PLAY_DELAY_MS
from services.game.tables import SeatTakenBack, TableService, VersionConflict
from tests.unit.services.game.conftest import FakeClock, seated

PLAYERS = ["ann", "bob", "cai", "dan"]
TURN_MS = 1_000
OPTIONS = {"turn_timeout_ms": TURN_MS, "claim_timeout_ms": TURN_MS}


async def tick(node: TableService, clock: FakeClock, table_id: str) -> Table:
    """Let the table's deadline pass and fire it."""
    table = await node.get(table_id)
    due = node.deadlines.due_at_ms(table)
    assert due is not None
    await node.leases.renew_once()  # what the node's background loop does meanwhile
    clock.now = max(clock.now, due)
    assert await node.fire_due() == 1
    return await node.get(table_id)


def owes(table: Table, seat: int) -> bool:
    deadline = table.rules.deadline(table.game)
    return deadline is not None and seat in deadline.defaults


def owes_turn(table: Table, seat: int) -> bool:
    """Whether `seat` owes a decision everybody sees it owe: a claim window lasts its full time
    even for a seat on auto-play, so as not to tell who owes it (docs/hidden-information.md)."""
    deadline = table.rules.deadline(table.game)
    return owes(table, seat) and deadline.window is None


async def seat_on_auto_play(node: TableService, clock: FakeClock) -> tuple[str, int]:
    """A koudian table where nobody acts until a seat is on auto-play and has its turn."""
    table_id = await seated(node, "koudian", OPTIONS, PLAYERS)
    table = await node.get(table_id)
    while not table.auto:
        table = await tick(node, clock, table_id)
    seat = min(table.auto)
    while not owes_turn(table, seat):
        table = await tick(node, clock, table_id)
    return table_id, seat


async def test_an_action_on_a_stale_version_by_a_seat_on_auto_play_takes_the_seat_back(node, clock):
    table_id, seat = await seat_on_auto_play(node, clock)
    seen = await node.get(table_id)  # what the player decides on
    move = seen.rules.legal_actions(seen.game, seat)[0]
    after_auto_move = await tick(node, clock, table_id)  # the server's move, 300 ms later
    assert after_auto_move.version > seen.version
    with pytest.raises(SeatTakenBack) as refused:
        await node.execute(table_id, Act(PLAYERS[seat], move), command_id="late", actor=PLAYERS[seat],
                           expected_version=seen.version)
    assert isinstance(refused.value, VersionConflict) and "auto-play" in str(refused.value)
    table = await node.get(table_id)
    assert seat not in table.auto
    # The next attempt wins: nobody plays the seat before its full timeout.
    while not owes(table, seat):  # the other seats time out
        table = await tick(node, clock, table_id)
    assert node.delay_ms(table) == TURN_MS
    move = table.rules.legal_actions(table.game, seat)[0]
    done = await node.execute(table_id, Act(PLAYERS[seat], move), command_id="next", actor=PLAYERS[seat],
                              expected_version=table.version)
    assert done.events


async def test_an_action_the_rules_refuse_by_a_seat_on_auto_play_takes_the_seat_back(node, clock):
    table_id, seat = await seat_on_auto_play(node, clock)
    table = await node.get(table_id)
    move = table.rules.legal_actions(table.game, seat)[0]
    table = await tick(node, clock, table_id)  # the server moved first
    while owes(table, seat):
        table = await tick(node, clock, table_id)
    with pytest.raises(RuleViolation):
        await node.execute(table_id, Act(PLAYERS[seat], move), command_id="late", actor=PLAYERS[seat])
    assert seat not in (await node.get(table_id)).auto


async def test_a_refused_action_by_a_seat_not_on_auto_play_writes_nothing(node, clock):
    table_id = await seated(node, "koudian", OPTIONS, PLAYERS)
    table = await node.get(table_id)
    seat = next(s for s in table.rules.deadline(table.game).defaults if s is not None)
    move = table.rules.legal_actions(table.game, seat)[0]
    with pytest.raises(VersionConflict) as refused:
        await node.execute(table_id, Act(PLAYERS[seat], move), command_id="old", actor=PLAYERS[seat],
                           expected_version=table.version - 1)
    assert not isinstance(refused.value, SeatTakenBack)
    assert (await node.get(table_id)).version == table.version


async def test_taking_back_a_seat_cancels_the_servers_pending_auto_move(node, clock):
    table_id, seat = await seat_on_auto_play(node, clock)
    table = await node.get(table_id)
    assert node.delay_ms(table) == AUTO_PLAY_DELAY_MS
    taken = await node.execute(table_id, TakeBack(PLAYERS[seat]), command_id=None, actor=PLAYERS[seat])
    clock.now += AUTO_PLAY_DELAY_MS + 1
    assert await node.fire_due() == 0  # the auto move's deadline is gone
    assert (await node.get(table_id)).version == taken.version
    assert node.deadlines.due_at_ms(taken.table) == clock.now - AUTO_PLAY_DELAY_MS - 1 + TURN_MS


async def test_the_view_reports_the_instant_the_clock_fires_the_deadline(node, clock):
    table_id = await seated(node, "koudian", OPTIONS, PLAYERS)
    table = await node.get(table_id)
    due = node.deadlines.due_at_ms(table)
    assert due == clock.now + TURN_MS
    clock.now += 10  # later views report the same instant, not a fresh full timeout
    assert node.deadlines.due_at_ms(await node.get(table_id)) == due
    clock.now = due - 1
    assert await node.fire_due() == 0
    clock.now = due
    assert await node.fire_due() == 1
