"""The pipeline takes the table's own step right after the command that made it due (a claim
window nobody may still answer closes): in the command's own append, yet as a command of its own
in the log, told to watchers as a batch of its own, and never in the caller's answer
(docs/hidden-information.md, "Claim windows")."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from engine.mahjong.actions import ClaimAnswered, Discard, Pass
from engine.table import Act, Sit
from services.eventstore import EventStore
from services.game.tables import Outcome, TableService

from .conftest import seated
from .test_claim_deadlines import dealt

PLAYERS = ["ann", "bob", "cai", "dan"]

# A window closed as soon as it is decided (no minimum): the follow-up step these tests are about.
AT_ONCE = {"claim_window_min_ms": 0}


def counting_appends(node: TableService) -> list[int]:
    """The number of events of each append the node makes from now on."""
    sizes: list[int] = []
    append = node.repository.append

    async def counted(table_id: str, version: int, new: Any, *args: Any) -> int:
        sizes.append(len(new))
        return await append(table_id, version, new, *args)

    node.repository.append = counted  # type: ignore[method-assign]
    return sizes


async def discard_until_nobody_may_claim(node: TableService, table_id: str) -> tuple[int, int, Outcome]:
    """Discard (seats asked by a window pass) until a discard opens a window that asks nobody;
    the discarding seat, the version before its discard and the discard's outcome."""
    table = await node.get(table_id)
    for _ in range(12):
        phase = table.game.hand.phase  # type: ignore[attr-defined]
        if type(phase).__name__ != "Turn":
            for s in phase.window.pending():
                await node.execute(table_id, Act(PLAYERS[s], Pass(s)), command_id=f"p{table.version}",
                                   actor=PLAYERS[s])
            table = await node.get(table_id)
            continue
        seat = phase.seat
        tile = phase.drawn if phase.drawn is not None else table.rules.view(table.game, seat).hand[0]
        before = table.version
        outcome = await node.execute(table_id, Act(PLAYERS[seat], Discard(seat, tile)),
                                     command_id=f"d{before}", actor=PLAYERS[seat])
        table = await node.get(table_id)
        if type(table.game.hand.phase).__name__ == "Turn":  # type: ignore[attr-defined]
            return seat, before, outcome
    raise AssertionError("no window asked nobody")


async def test_a_window_nobody_can_answer_is_closed_by_the_server_as_a_command_of_its_own_in_the_same_append(
        node: TableService, store: EventStore) -> None:
    table_id = await seated(node, "koudian", AT_ONCE, PLAYERS)
    appends = counting_appends(node)
    seat, before, _ = await discard_until_nobody_may_claim(node, table_id)
    records = await store.read_stream(table_id, before + 1)
    commands = [(r.version, r.metadata["command"]["type"], r.metadata["actor"], r.metadata["command_id"])
                for r in records if "command" in r.metadata]
    assert [c[1:3] for c in commands] == [("table.Act", PLAYERS[seat]), ("table.Timeout", "server")]
    assert [r.type for r in records] == ["mahjong.TileDiscarded", "koudian.ClaimWindowOpened", "mahjong.TileDrawn"]
    assert commands[1][0] == before + 3  # the close is stored after the window, as a step of its own
    assert commands[1][3] == f"timeout:{before + 2}"  # the table clock's step at the window's version
    assert appends[-1] == 3  # the discard and the close: one append


async def test_the_discarders_answer_is_its_discard_alone_though_the_close_was_stored_with_it(
        node: TableService) -> None:
    table_id = await seated(node, "koudian", AT_ONCE, PLAYERS)
    _, before, outcome = await discard_until_nobody_may_claim(node, table_id)
    assert outcome.version == outcome.table.version == before + 2
    assert [type(ev).__name__ for ev in outcome.events] == ["TileDiscarded", "ClaimWindowOpened"]
    assert (await node.get(table_id)).version == before + 3


async def test_each_claimants_pass_is_answered_alike_whether_or_not_the_window_closes_after_it(
        node: TableService, store: EventStore) -> None:
    # jj's pong_beats_chow: the dealer's 3p may be chowed by seat 1 and ponged by seat 2.
    table_id = await dealt(node, PLAYERS)
    table = await node.get(table_id)
    await node.execute(table_id, Act("ann", table.rules.parse_command({"seat": 0, "action": "discard", "tile": "3p"})),
                       command_id="ann:3p", actor="ann")
    answers, stored = [], []
    for seat in (1, 2):  # seat 2 still owes an answer after seat 1's; nobody after seat 2's
        table = await node.get(table_id)
        outcome = await node.execute(table_id, Act(PLAYERS[seat], Pass(seat)), command_id=f"{seat}:pass",
                                     actor=PLAYERS[seat])
        answers.append((outcome.version - table.version, outcome.table.version - table.version,
                        [type(ev) for ev in outcome.events], outcome.table.seen_by(seat) - table.seen_by(seat)))
        stored.append([r.metadata["command"]["type"]
                       for r in await store.read_stream(table_id, table.version + 1) if "command" in r.metadata])
    assert stored == [["table.Act"], ["table.Act", "table.Timeout"]]  # only seat 2's pass closed it
    assert answers[0] == answers[1] == (1, 1, [ClaimAnswered], 1)


async def test_watchers_get_the_discard_and_the_servers_close_as_two_batches(node: TableService) -> None:
    # Koudian, the dealer to discard N, which nobody can claim (no seat holds a pair of it).
    deal = {"dealer": 0, "tail": "", "wall": "9m 9p 9s 1s P 5m 5p 5s",
            "hands": ["1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C", "2m 5m 8m 3p 6p 9p 2s 5s 8s E S W F",
                      "3m 6m 9m 1p 4p 7p 3s 6s 9s N P 2m 8m", "1m 4m 7m 2p 5p 8p 1s 4s 7s E S W C"]}
    table_id = (await node.create("koudian", AT_ONCE, "ann", fixed_deal=json.dumps(deal))).table.table_id
    for p in PLAYERS:
        await node.execute(table_id, Sit(p), command_id=f"{p}:sit", actor=p)
    for p in PLAYERS:
        await node.ready(table_id, p, command_id=f"{p}:ready")
    table = await node.get(table_id)
    before = table.version
    streams = {seat: node.watch(table_id, seat, before) for seat in (0, 1, 2, 3, None)}
    # Every watcher is waiting for its next batch, as a client's idle stream does.
    nexts = {seat: asyncio.ensure_future(anext(stream)) for seat, stream in streams.items()}
    await asyncio.sleep(0.05)
    discard = table.rules.parse_command({"seat": 0, "action": "discard", "tile": "N"})
    await node.execute(table_id, Act("ann", discard), command_id="ann:N", actor="ann")
    for observer, stream in streams.items():
        first = await asyncio.wait_for(nexts[observer], 5)
        second = await asyncio.wait_for(anext(stream), 5)
        assert (first.version, first.actor, first.table.version) == (before + 2, "ann", before + 2)
        assert [v for v, _ in first.events] == [before + 1, before + 2]  # the discard and its window
        assert (second.version, second.actor, second.table.version) == (before + 3, "server", before + 3)
        await stream.aclose()
