"""The seat reservation (services/game/reservations.py) on a real table service and ledger, on
SQLite and on Postgres: one live matchmade table per player, taken with the buy-in, released
when they stand up or the match ends, taken over when left behind."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from structlog.testing import capture_logs

from engine.core.errors import RuleViolation
from engine.table import Close, Leave, PlayerSeated, Sit
from services.bootstrap import Backends, open_backends
from services.config import Settings
from services.game.reservations import IN_FLIGHT_MS, MATCHMAKER, SeatReservations

pytestmark = pytest.mark.integration

STAKES = {"stake": 1, "buy_in": 100}


@pytest.fixture
async def backends(store_url: str) -> AsyncIterator[Backends]:
    opened = await open_backends(Settings(database_url=store_url, redis_url="memory://", token_secret="k"))
    yield opened
    await opened.close()


async def table(backends: Backends, created_by: str = MATCHMAKER) -> str:
    table_id = f"table-{uuid.uuid4().hex[:16]}"
    await backends.tables.create("koudian", STAKES, created_by, table_id=table_id, command_id=None)
    return table_id


async def sit(backends: Backends, table_id: str, player: str) -> None:
    await backends.tables.execute(table_id, Sit(player), command_id=None, actor=player)


def seats(backends: Backends) -> SeatReservations:
    reservations = backends.tables.pipeline.seats
    assert isinstance(reservations, SeatReservations)
    return reservations


async def buy_ins(backends: Backends, player: str) -> int:
    return len([t for t in await backends.ledger.history(f"player/{player}") if t.transfer.kind == "buyin"])


async def test_a_player_at_a_live_matchmade_table_is_refused_at_another_and_buys_in_once(backends):
    first, second = await table(backends), await table(backends)
    await sit(backends, first, "ann")
    with pytest.raises(RuleViolation) as refused:
        await sit(backends, second, "ann")
    assert refused.value.code == "seated_elsewhere" and first in refused.value.message
    assert (await backends.tables.get(second)).seat_of("ann") is None
    assert await buy_ins(backends, "ann") == 1
    assert await backends.ledger.balance("player/ann") == 1000 - 100


async def test_standing_up_or_the_match_ending_frees_the_player(backends):
    first, second, third = await table(backends), await table(backends), await table(backends)
    await sit(backends, first, "ann")
    await backends.tables.execute(first, Leave("ann"), command_id=None, actor="ann")
    assert await seats(backends).holder("ann") is None
    await sit(backends, second, "ann")
    assert (await seats(backends).holder("ann") or ("",))[0] == second
    await backends.tables.execute(second, Close("abandoned"), command_id=None, actor="server")
    assert await seats(backends).holder("ann") is None
    await sit(backends, third, "ann")


async def test_a_reservation_left_behind_is_taken_over_once_its_player_does_not_sit_there(backends):
    reservations = seats(backends)
    gone, live = await table(backends), await table(backends)
    now = reservations.clock_ms()
    # A node died between taking ann's reservation at `gone` and storing her seat there.
    await reservations._execute("INSERT INTO seat_reservations (player_id, table_id, taken_ms)"
                                " VALUES (?, ?, ?)", ("ann", gone, now))
    with pytest.raises(RuleViolation, match="being seated"):  # young: a sit under way
        await sit(backends, live, "ann")
    await reservations._execute("UPDATE seat_reservations SET taken_ms = ? WHERE player_id = ?",
                                (now - IN_FLIGHT_MS - 1, "ann"))
    await sit(backends, live, "ann")
    assert (await reservations.holder("ann") or ("",))[0] == live


async def test_a_sit_whose_reservation_was_taken_over_before_it_was_stored_is_logged(backends):
    reservations = seats(backends)
    first, other = await table(backends), await table(backends)
    await sit(backends, first, "ann")
    seated = await backends.tables.get(first)
    # As if ann's sit had stalled past IN_FLIGHT_MS and another table took her reservation over.
    await reservations._execute("UPDATE seat_reservations SET table_id = ? WHERE player_id = ?",
                                (other, "ann"))
    with capture_logs() as logs:
        await reservations.after(seated, [PlayerSeated(seated.seat_of("ann") or 0, "ann")],
                                 seated.status)
    assert [(e["event"], e["holder"]) for e in logs if e["log_level"] == "error"] == [
        ("seat_reservation_lost", other)]


async def test_two_sits_of_one_player_at_once_seat_them_at_one_table(backends):
    for n in range(10):
        player = f"bo{n}"
        tables = [await table(backends) for _ in range(3)]
        outcomes = await asyncio.gather(*(sit(backends, t, player) for t in tables), return_exceptions=True)
        assert [o for o in outcomes if o is not None and not isinstance(o, RuleViolation)] == []
        seated = [t for t in tables if (await backends.tables.get(t)).seat_of(player) is not None]
        assert len(seated) == 1 and outcomes.count(None) == 1
        assert await buy_ins(backends, player) == 1


async def test_tables_players_create_themselves_are_outside_the_rule(backends):
    first, second = await table(backends, "cy"), await table(backends, "cy")
    await sit(backends, first, "cy")
    await sit(backends, second, "cy")
    assert await seats(backends).holder("cy") is None
