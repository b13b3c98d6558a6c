"""No chips stay on a table that is over, as the ledger sees it: tables played through the game
service, their chip events settled by the consumer on the same database. Every way a table ends
(match over, abandoned, closed by an operator, everyone left) pays every stack back; a kept
seat's winnings end at the player who left it; and the audit fails while any seat account of a
closed table is not 0 (issues 25 and 26)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from engine import table as tables
from engine.core.contract import Status
from engine.table import Act, Close, CreateTable, Leave, Sit
from qipai.v1 import ledger_pb2 as pb
from qipai.v1 import ledger_pb2_grpc
from services import auth
from services.bootstrap import table_service
from services.eventstore import EventStore, open_event_store
from services.game.clock import ABANDONED
from services.game.tables import TableService
from services.game.verify import verify
from services.ledger.leaderboard import MemoryLeaderboards
from services.ledger.service import LedgerService
from services.ledger.servicer import LedgerServicer
from services.ledger.settlement import SettlementConsumer
from services.ledger.store import open_ledger
from services.live import open_live_state
from services.live.memory import MemoryLiveState

from .test_settlement import settle_all

pytestmark = pytest.mark.integration

WELCOME = 1000
ABANDON_MS = 600_000
DAQI = ["ann", "bob", "cy", "dee", "eve"]
FOUR = ["ann", "bob", "cy", "dee"]
FAST_DAQI = {"deal_interval_ms": 0, "bid_window_ms": 0, "play_timeout_ms": 100, "bury_timeout_ms": 100}
FAST_MAHJONG = {"turn_timeout_ms": 100, "claim_timeout_ms": 100}


class MsClock:
    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now


@dataclass
class Node:
    """A game node and the ledger's settlement on one database."""

    events: EventStore
    game: TableService
    consumer: SettlementConsumer
    clock: MsClock

    async def table(self, table_id: str, ruleset: str, options: dict[str, Any], players: list[str],
                    rules: int = tables.RULES) -> None:
        """A table created under `rules`, every player funded, seated and ready (dealt)."""
        await self.game.execute(table_id, CreateTable(table_id, ruleset, options, players[0], rules=rules),
                                command_id="create", actor=players[0])
        for p in players:
            await self.consumer.service.welcome(p)
            await self.game.execute(table_id, Sit(p), command_id=f"{p}:sit", actor=p)
        for p in players:
            await self.game.ready(table_id, p, command_id=f"{p}:ready")

    async def run_until(self, table_id: str, done: Any, limit_ms: int = 3_000_000) -> None:
        """Let time pass on the node's clock (its deadlines fire, the server plays the seats
        nobody plays) until `done(table)`."""
        for _ in range(limit_ms // 100):
            if done(await self.game.get(table_id)):
                return
            self.clock.now += 100
            await self.game.leases.renew_once()
            await self.game.fire_due()
        raise AssertionError("the table never got there")

    async def settled(self) -> None:
        await settle_all(self.consumer)

    async def balance(self, account: str) -> int:
        return await self.consumer.service.store.balance(account)

    async def won(self, table_id: str) -> dict[str, int]:
        """What each player won or lost at the table, from its HandSettled events."""
        won: dict[str, int] = defaultdict(int)
        for rec in await self.events.read_stream(table_id):
            if rec.type == "table.HandSettled":
                for p in rec.data["payments"]:
                    won[p["payee_player"]] += p["chips"]
                    won[p["payer_player"]] -= p["chips"]
        return won

    async def assert_every_stack_went_back(self, table_id: str, players: list[str]) -> None:
        """The table is closed, each seat account is 0, each player holds the welcome plus what
        they won, the audit passes and the table's log verifies."""
        await self.settled()
        assert (await self.game.get(table_id)).status is Status.MATCH_OVER
        key = table_id.removeprefix("table-")
        for seat in range(len(players)):
            assert await self.balance(f"table/{key}/seat/{seat}") == 0, seat
        won = await self.won(table_id)
        assert set(won) <= set(players), "a payment named nobody"
        for p in players:
            assert await self.balance(f"player/{p}") == WELCOME + won[p], p
        report = await self.consumer.service.store.audit()
        assert report.ok, report
        checked = verify(await self.events.read_stream(table_id))  # re-decided as recorded
        assert checked.ok and checked.commands_checked > 0, checked.problems


@pytest.fixture
async def node(ledger_url: str, clock, ledger_config) -> AsyncIterator[Node]:
    events = await open_event_store(ledger_url)
    ledger = await open_ledger(ledger_url, store=events)
    ms = MsClock()
    live = open_live_state("memory://", clock=ms)
    game = table_service(events, live, node_id="node-a", address="a:1", clock_ms=ms,
                         abandon_after_ms=ABANDON_MS)
    consumer = SettlementConsumer(events, LedgerService(ledger, MemoryLeaderboards(), ledger_config, clock),
                                  batch_size=16)
    yield Node(events, game, consumer, ms)
    await live.close()
    await ledger.close()
    await events.close()


async def kept_seat_paid(node: Node, table_id: str, rules: int) -> None:
    """打七 without 积分最小化: eve leaves during the first hand; the server plays her kept seat
    until, in a later hand, it wins chips."""
    await node.table(table_id, "daqi", {**FAST_DAQI, "score_minimisation": False}, DAQI, rules)
    await node.game.execute(table_id, Leave("eve"), command_id="eve:leave", actor="eve")
    await node.run_until(table_id, lambda t: t.hands_started >= 2 and t.chips.stacks[4] > 0)


async def test_a_kept_seats_winnings_end_at_the_player_who_left_it_and_the_audit_passes(node):
    await kept_seat_paid(node, "table-kept", tables.RULES)
    await node.run_until("table-kept", lambda t: t.status is Status.WAITING_FOR_HAND)
    await node.game.execute("table-kept", Close("operator"), command_id="op:close", actor="operator")
    await node.assert_every_stack_went_back("table-kept", DAQI)
    won = await node.won("table-kept")
    assert await node.balance("player/eve") == WELCOME + won["eve"]
    cashed = [rec.data for rec in await node.events.read_stream("table-kept")
              if rec.type == "table.StackCashedOut" and rec.data["seat"] == 4]
    assert [c["kept"] for c in cashed] == [False, True] and cashed[1]["chips"] > 0


async def test_before_revision_3_a_kept_seats_winnings_stay_on_the_closed_table_and_the_audit_fails(node):
    await kept_seat_paid(node, "table-old", 2)
    await node.game.execute("table-old", Close("operator"), command_id="op:close", actor="operator")
    await node.settled()
    payees = [p["payee_player"] for rec in await node.events.read_stream("table-old")
              if rec.type == "table.HandSettled" for p in rec.data["payments"] if p["payee"] == 4]
    assert "" in payees  # paid to a seat nobody held, as recorded then
    report = await node.consumer.service.store.audit()
    assert not report.ok and "table/old/seat/4" in {s.account for s in report.stranded}
    assert verify(await node.events.read_stream("table-old")).ok  # decided as revision 2 did


async def test_a_table_closed_as_abandoned_pays_every_stack_back(node):
    await node.table("table-idle", "koudian", FAST_MAHJONG, FOUR)
    await node.run_until("table-idle", lambda t: t.closed == ABANDONED, limit_ms=ABANDON_MS + 10_000)
    await node.assert_every_stack_went_back("table-idle", FOUR)


async def test_a_table_closed_by_an_operator_mid_hand_pays_every_stack_back(node):
    await node.table("table-op", "koudian", FAST_MAHJONG, FOUR)
    await node.game.execute("table-op", Leave("bob"), command_id="bob:leave", actor="bob")
    await node.game.execute("table-op", Close("operator"), command_id="op:close", actor="operator")
    await node.assert_every_stack_went_back("table-op", FOUR)


async def test_a_table_everyone_left_pays_every_stack_back_when_the_hand_ends(node):
    await node.table("table-empty", "koudian", FAST_MAHJONG, FOUR)
    for p in FOUR:
        await node.game.execute("table-empty", Leave(p), command_id=f"{p}:leave", actor=p)
    await node.run_until("table-empty", lambda t: t.status is Status.WAITING_FOR_HAND)
    await node.settled()
    for seat in range(4):
        assert await node.balance(f"table/empty/seat/{seat}") == 0
    await node.run_until("table-empty", lambda t: t.closed == ABANDONED, limit_ms=ABANDON_MS + 10_000)
    await node.assert_every_stack_went_back("table-empty", FOUR)


async def test_the_matchs_end_pays_every_stack_back_and_closes_the_table_for_the_ledger(node):
    await node.table("table-match", "jj", {**FAST_MAHJONG, "rounds_per_match": 1}, FOUR)
    rng = random.Random(3)
    for step in range(20_000):
        table = await node.game.get("table-match")
        if table.status is Status.MATCH_OVER:
            break
        rs = table.rules
        deadline = rs.deadline(table.game) if table.status is Status.IN_HAND else None
        owing = [s for s in (deadline.defaults if deadline else ()) if s is not None]
        if deadline and owing:  # the greedy bot plays each player's seat: hands are won
            seat = owing[0]
            action = rs.bots["greedy"](rs.view(table.game, seat), rs.legal_actions(table.game, seat), rng)
            await node.game.execute("table-match", Act(FOUR[seat], action or deadline.defaults[seat]),
                                    command_id=f"act:{step}", actor=FOUR[seat])
        else:
            node.clock.now += 10_000
            await node.game.leases.renew_once()
            await node.game.fire_due()
    closed = [rec.data for rec in await node.events.read_stream("table-match") if rec.type == "table.Closed"]
    assert closed == [{"reason": tables.MATCH_OVER}]
    await node.assert_every_stack_went_back("table-match", FOUR)


async def test_the_audit_names_each_seat_account_of_a_closed_table_that_still_holds_chips(node):
    await node.table("table-left", "koudian", FAST_MAHJONG, FOUR, rules=2)
    await node.game.execute("table-left", Close(ABANDONED), command_id="close", actor="server")
    await node.settled()
    report = await node.consumer.service.store.audit()
    assert not report.ok and report.mismatches == [] and set(report.totals.values()) == {0}
    assert [(s.account, s.balance) for s in report.stranded] == [
        (f"table/left/seat/{seat}", 100) for seat in range(4)]


async def test_the_audit_command_exits_1_naming_each_stranded_stack(node, ledger_url):
    await node.table("table-left", "koudian", FAST_MAHJONG, FOUR, rules=2)
    await node.game.execute("table-left", Close(ABANDONED), command_id="close", actor="server")
    await node.settled()
    env = {k: v for k, v in os.environ.items() if not k.startswith("QIPAI_")}
    env.update({"QIPAI_DATABASE_URL": ledger_url, "QIPAI_REDIS_URL": "memory://"})
    audit = subprocess.run([sys.executable, "-m", "cli", "ledger", "audit"], env=env, capture_output=True,
                           text=True, timeout=120)
    assert audit.returncode == 1 and "audit FAILED" in audit.stdout, audit.stdout + audit.stderr
    assert "STRANDED table/left/seat/3 chips: 100 left on a table that is over" in audit.stdout


async def test_an_operators_audit_over_grpc_lists_the_chips_left_on_a_closed_table(node):
    await node.table("table-left", "koudian", FAST_MAHJONG, FOUR, rules=2)
    await node.game.execute("table-left", Close(ABANDONED), command_id="close", actor="server")
    await node.settled()
    server = grpc.aio.server(interceptors=[auth.AuthInterceptor("secret")])
    ledger_pb2_grpc.add_LedgerServicer_to_server(LedgerServicer(node.consumer.service, MemoryLiveState()), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    token, _ = auth.issue("secret", "olga", auth.ADMIN)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            report = await ledger_pb2_grpc.LedgerStub(channel).Audit(
                pb.AuditRequest(), metadata=[("authorization", f"Bearer {token}")])
    finally:
        await server.stop(0)
    assert not report.ok
    assert [(s.account, s.currency, s.balance) for s in report.stranded] == [
        (f"table/left/seat/{seat}", "chips", 100) for seat in range(4)]
