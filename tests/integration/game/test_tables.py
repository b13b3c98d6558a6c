"""The table service on real backends: commands, idempotency, deadlines, watching, verification."""

from __future__ import annotations

import asyncio

import pytest

from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.table import Act, AutoPlaySet, SeatTimedOut, Sit
from services.game.pipeline import CommandReused
from services.game.tables import TableNotFound, VersionConflict
from services.game.verify import verify
from tests.integration.game.conftest import pass_time, play_with_bots, seat_everyone

pytestmark = pytest.mark.integration

DAQI = ["ann", "bob", "cai", "dan", "eve"]
FAST_DAQI = {"deal_interval_ms": 0, "bid_window_ms": 0}


async def test_a_created_table_records_its_ruleset_and_options(service):
    out = await service.create("daqi", {"base": 2}, "ann")
    table = await service.get(out.table.table_id)
    assert table.ruleset == "daqi" and table.options.base == 2
    assert table.seats == (None,) * 5


async def test_bad_options_are_a_rule_violation_that_names_the_option(service):
    with pytest.raises(RuleViolation) as err:
        await service.create("daqi", {"no_such_option": 1}, "ann")
    assert err.value.code == "bad_options" and "no_such_option" in err.value.message


async def test_an_unknown_table_is_not_found(service):
    with pytest.raises(TableNotFound):
        await service.get("table-doesnotexist")


async def test_the_hand_starts_when_every_seat_is_taken_and_ready(service):
    table_id = (await service.create("daqi", FAST_DAQI, "ann")).table.table_id
    await seat_everyone(service, table_id, DAQI)
    assert (await service.get(table_id)).status is Status.IN_HAND


async def test_a_deal_at_no_interval_is_dealt_at_once_each_card_its_own_command(service):
    table_id = (await service.create("daqi", FAST_DAQI, "ann")).table.table_id
    await seat_everyone(service, table_id, DAQI)
    table = await service.get(table_id)
    assert type(table.game).__name__ == "FinalBids"  # every card is out, nobody waited for a tick
    records = await service.history(table_id)
    commands = [r.metadata["command"]["type"] for r in records if "command" in r.metadata]
    assert commands.count("table.Timeout") == 100  # 100 cards (the bottom stays down)
    ids = {r.metadata["command_id"] for r in records if r.type == "daqi.CardDealt"}
    assert ids == {f"timeout:{r.version - 1}" for r in records if r.type == "daqi.CardDealt"}
    assert verify(records).ok


async def test_the_same_action_id_applies_once(service):
    table_id = (await service.create("daqi", FAST_DAQI, "ann")).table.table_id
    first = await service.execute(table_id, Sit("ann", 0), command_id="ann:a1", actor="ann")
    await service.execute(table_id, Sit("bob"), command_id="bob:a1", actor="bob")
    again = await service.execute(table_id, Sit("ann", 0), command_id="ann:a1", actor="ann",
                                  expected_version=first.version)
    assert again.duplicate and again.version == first.version + 2  # bob sat and bought in
    with pytest.raises(CommandReused):  # the same id for another command is not a retry
        await service.execute(table_id, Sit("ann", 3), command_id="ann:a1", actor="ann")
    assert (await service.get(table_id)).seat_of("ann") == 0


async def test_an_illegal_move_is_rejected_and_leaves_the_table_as_it_was(service, backends):
    table_id = (await service.create("daqi", FAST_DAQI, "ann")).table.table_id
    await seat_everyone(service, table_id, DAQI)
    before = await service.get(table_id)
    play_while_bidding = before.rules.parse_command({"seat": 0, "action": "play", "cards": "♠3"})
    with pytest.raises(RuleViolation):
        await service.execute(table_id, Act(DAQI[0], play_while_bidding), command_id="x:1", actor="x")
    reopened = await backends["open"]()
    assert (await reopened.get(table_id)) == before


async def test_an_action_decided_on_an_old_version_is_a_conflict(service):
    table_id = (await service.create("daqi", FAST_DAQI, "ann")).table.table_id
    await service.execute(table_id, Sit("ann"), command_id="ann:1", actor="ann")
    with pytest.raises(VersionConflict):
        await service.execute(table_id, Sit("bob"), command_id="bob:1", actor="bob", expected_version=1)


async def test_two_actions_racing_for_one_turn_one_wins_the_other_is_told_why(service, backends):
    table_id = (await service.create("daqi", FAST_DAQI, "ann")).table.table_id
    await seat_everyone(service, table_id, DAQI)
    clock = backends["clock"]
    for _ in range(1000):  # let the server play until somebody must lead a trick
        table = await service.get(table_id)
        if table.rules.view(table.game, None).phase == "playing":
            break
        await pass_time(service, clock, service.delay_ms(table) + 1)
        await service.fire_due()
    else:
        raise AssertionError("play never began")
    rs = table.rules
    seat = next(s for s in range(5) if rs.legal_actions(table.game, s))
    first, second = rs.legal_actions(table.game, seat)[:2]
    results = await asyncio.gather(
        service.execute(table_id, Act(DAQI[seat], first), command_id="race:1", actor=DAQI[seat]),
        service.execute(table_id, Act(DAQI[seat], second), command_id="race:2", actor=DAQI[seat]),
        return_exceptions=True)
    winners = [r for r in results if not isinstance(r, Exception)]
    losers = [r for r in results if isinstance(r, RuleViolation)]
    assert len(winners) == 1 and len(losers) == 1
    assert losers[0].message


async def test_bots_play_a_hand_to_the_end_and_the_log_verifies(service, backends):
    table_id = (await service.create("daqi", FAST_DAQI, "ann")).table.table_id
    await seat_everyone(service, table_id, DAQI)
    await play_with_bots(service, table_id, DAQI, backends["clock"])
    table = await service.get(table_id)
    assert table.status is Status.WAITING_FOR_HAND
    result = verify(await service.history(table_id))
    assert result.ok, result.problems
    assert result.decks_checked == 1


async def test_a_seat_that_stops_acting_is_played_by_the_server_after_its_deadline(service, backends):
    clock = backends["clock"]
    table_id = (await service.create("daqi", {**FAST_DAQI, "play_timeout_ms": 1000,
                                              "bury_timeout_ms": 1000}, "ann")).table.table_id
    await seat_everyone(service, table_id, DAQI)
    for _ in range(3000):
        table = await service.get(table_id)
        if table.status is not Status.IN_HAND:
            break
        await pass_time(service, clock, service.delay_ms(table) + 1)
        assert await service.fire_due() == 1
    history = [rec.decode() for rec in await service.history(table_id)]
    assert table.status is Status.WAITING_FOR_HAND
    assert any(isinstance(ev, SeatTimedOut) for ev in history)
    assert {ev.seat for ev in history if isinstance(ev, AutoPlaySet) and ev.on} == set(range(5))
    assert verify(await service.history(table_id)).ok


async def test_a_deadline_survives_a_restart_of_the_service(service, backends):
    clock = backends["clock"]
    table_id = (await service.create("daqi", {"deal_interval_ms": 500}, "ann")).table.table_id
    await seat_everyone(service, table_id, DAQI)
    version = (await service.get(table_id)).version
    restarted = await backends["open"]()
    await restarted.live.flush_namespace()  # the live state is lost with the old node
    assert await restarted.rebuild_deadlines() == 1
    await pass_time(restarted, clock, 501)
    assert await restarted.fire_due() == 1
    assert (await restarted.get(table_id)).version > version


async def test_a_watcher_gets_history_then_live_events_for_its_seat_only(service, backends):
    table_id = (await service.create("daqi", FAST_DAQI, "ann")).table.table_id
    await seat_everyone(service, table_id, DAQI)
    seen: list[int] = []

    async def watch() -> None:
        async for batch in service.watch(table_id, 0, 0, poll_s=0.05):
            seen.extend(version for version, _ in batch.events)

    task = asyncio.create_task(watch())
    await play_with_bots(service, table_id, DAQI, backends["clock"])
    final = (await service.get(table_id)).version
    for _ in range(100):
        if seen and seen[-1] == final:
            break
        await asyncio.sleep(0.05)
    task.cancel()
    assert seen == sorted(set(seen)) and seen[-1] == final
