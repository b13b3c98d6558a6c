"""A claim window's deadline, as the table service arms it and every observer is shown it, never
tells who was asked nor that someone answered (docs/hidden-information.md, "Claim windows"). The
clock is moved by hand. The deal is jj's pong_beats_chow: seat 1 may chow the dealer's 3p, seat 2
may pong it, seats 0 and 3 cannot claim."""

from __future__ import annotations

import json
from pathlib import Path

from engine.table import Act, Leave, Sit, Table
from services.game.clock import AUTO_PLAY_DELAY_MS
from services.game.servicer import view_response
from services.game.tables import TableService
from tests.unit.services.game.conftest import FakeClock

SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "jj" / "pong_beats_chow.json"
CLAIM_MS = 20_000
OPTIONS = {"wild": "fixed:P", "turn_timeout_ms": 60_000, "claim_timeout_ms": CLAIM_MS,
           "claim_window_min_ms": 0}  # closed once decided: tests/unit/services/game/test_claim_minimum.py has the minimum


async def dealt(node: TableService, players: list[str]) -> str:
    """A jj table dealt the scenario's hands, the dealer (seat 0) to discard 3p."""
    deal = json.loads(SCENARIO.read_text(encoding="utf-8"))["deal"]
    table_id = (await node.create("jj", OPTIONS, players[0], fixed_deal=json.dumps(deal))).table.table_id
    for p in players:
        await node.execute(table_id, Sit(p), command_id=f"{p}:sit", actor=p)
    for p in players:
        await node.ready(table_id, p, command_id=f"{p}:ready")
    return table_id


async def act(node: TableService, table_id: str, player: str, seat: int, action: str, tile: str | None = None) -> Table:
    table = await node.get(table_id)
    spec = {"seat": seat, "action": action, **({"tile": tile} if tile else {})}
    await node.execute(table_id, Act(player, table.rules.parse_command(spec)), command_id=f"{player}:{table.version}",
                       actor=player)
    return await node.get(table_id)


def shown(table: Table, seat: int | None, node: TableService) -> tuple[int, int]:
    """The deadline in `seat`'s view: how long, and when (unix ms)."""
    view = view_response(table, seat, node)
    return view.deadline_ms, view.deadline_at_ms


async def wait_until(node: TableService, clock: FakeClock, instant: int) -> None:
    """Move the clock to `instant`, keeping the node's leases as its background loop does."""
    while clock.now < instant:
        await node.leases.renew_once()
        clock.now = min(instant, clock.now + 1_000)


def window_open(table: Table) -> bool:
    return type(table.game.hand.phase).__name__ == "Claims"  # type: ignore[attr-defined]


async def test_a_claimants_secret_pass_neither_moves_nor_extends_the_windows_deadline(
        node: TableService, clock: FakeClock) -> None:
    players = ["ann", "bob", "cai", "dan"]
    table_id = await dealt(node, players)
    table = await act(node, table_id, "ann", 0, "discard", "3p")
    assert window_open(table) and table.rules.deadline(table.game).defaults.keys() == {1, 2}
    due = node.deadlines.due_at_ms(table)
    assert due == clock.now + CLAIM_MS
    before = {seat: shown(table, seat, node) for seat in (0, 3, None)}
    await wait_until(node, clock, clock.now + 5_000)
    table = await act(node, table_id, "bob", 1, "pass")  # hidden from everyone but seat 1
    assert window_open(table)  # seat 2 may still pong
    assert node.deadlines.due_at_ms(table) == due
    assert {seat: shown(table, seat, node) for seat in (0, 3, None)} == before
    await wait_until(node, clock, due - 1)
    assert await node.fire_due() == 0  # the window lasts no longer for the hidden answer
    await wait_until(node, clock, due)
    assert await node.fire_due() == 1
    assert not window_open(await node.get(table_id))


async def test_a_windows_deadline_shown_to_others_is_the_same_whether_or_not_its_claimants_are_on_auto_play(
        node: TableService, clock: FakeClock) -> None:
    humans = await dealt(node, ["ann", "bob", "cai", "dan"])
    autos = await dealt(node, ["eve", "fay", "gus", "hal"])
    for player in ("fay", "gus"):  # seats 1 and 2, the claimants, leave: the server plays them
        await node.execute(autos, Leave(player), command_id=f"{player}:leave", actor=player)
    asked = await act(node, humans, "ann", 0, "discard", "3p")
    auto_asked = await act(node, autos, "eve", 0, "discard", "3p")
    assert window_open(asked) and window_open(auto_asked)
    assert auto_asked.is_auto(1) and auto_asked.is_auto(2)
    for seat in (0, 3, None):
        assert shown(auto_asked, seat, node) == shown(asked, seat, node) == (CLAIM_MS, clock.now + CLAIM_MS)
    # The server still answers for its claimants at its own pace: an all-auto table is not slowed.
    await wait_until(node, clock, clock.now + AUTO_PLAY_DELAY_MS)
    assert await node.fire_due() == 1
    assert not window_open(await node.get(autos)) and window_open(await node.get(humans))
