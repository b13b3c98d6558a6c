"""The pipeline takes the table's own step right after the command that made it due, as a command
of its own: a claim window nobody may answer closes in a separate append (docs/hidden-information.md)."""

from __future__ import annotations

from engine.mahjong.actions import Discard, Pass
from engine.table import Act
from services.eventstore import EventStore
from services.game.tables import TableService

from .conftest import seated

PLAYERS = ["ann", "bob", "cai", "dan"]


async def test_a_window_nobody_can_answer_is_closed_by_the_server_in_an_append_of_its_own(
        node: TableService, store: EventStore) -> None:
    table_id = await seated(node, "koudian", {}, PLAYERS)
    table = await node.get(table_id)
    # Discard until a window asks nobody (most do; one that asks a seat, it passes).
    for _ in range(12):
        phase = table.game.hand.phase  # type: ignore[attr-defined]
        if type(phase).__name__ != "Turn":
            for s in phase.window.pending():
                await node.execute(table_id, Act(PLAYERS[s], Pass(s)), command_id=f"p{table.version}", actor=PLAYERS[s])
            table = await node.get(table_id)
            continue
        seat = phase.seat
        tile = phase.drawn if phase.drawn is not None else table.rules.view(table.game, seat).hand[0]
        before = table.version
        await node.execute(table_id, Act(PLAYERS[seat], Discard(seat, tile)), command_id=f"d{before}",
                           actor=PLAYERS[seat])
        table = await node.get(table_id)
        if type(table.game.hand.phase).__name__ == "Turn":  # type: ignore[attr-defined]
            break
    else:
        raise AssertionError("no window asked nobody")
    records = await store.read_stream(table_id, before + 1, table.version)
    commands = [(r.version, r.metadata["command"]["type"], r.metadata["actor"])
                for r in records if "command" in r.metadata]
    assert [c[1:] for c in commands] == [("table.Act", PLAYERS[seat]), ("table.Timeout", "server")]
    assert [r.type for r in records] == ["mahjong.TileDiscarded", "koudian.ClaimWindowOpened", "mahjong.TileDrawn"]
    assert commands[1][0] == before + 3  # the close is stored after the window, as a step of its own
