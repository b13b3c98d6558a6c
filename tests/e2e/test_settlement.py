"""Settlement end to end over gRPC: bots play 20 tables of each ruleset; every hand's payments
reach the ledger exactly once, each player's balance is the welcome grant plus their winnings,
and every stack goes back to its player when they leave."""

from __future__ import annotations

import asyncio
from collections import defaultdict

import grpc
import pytest
from grpc_status import rpc_status

from clients.client import Player, channel
from engine import table as _table_events  # noqa: F401  (registers table.* events for decoding)
from qipai.v1 import ledger_pb2
from services.eventstore import open_event_store
from services.ledger.settlement import SUBSCRIPTION
from services.ledger.store import open_ledger
from tests.e2e.test_game import SEATS

pytestmark = pytest.mark.e2e

WELCOME = 1000


async def test_every_hand_of_20_tables_per_ruleset_is_settled_once_and_stacks_return(twenty_tables):
    # The shared run (tests/e2e/twenty_tables.py): 20 tables of each ruleset played a hand for
    # stakes, then every player stood up.
    run = twenty_tables
    assert sorted(t.ruleset for t in run.tables) == sorted(list(SEATS) * 20)
    url = run.database_url
    events = await open_event_store(url)
    ledger = await open_ledger(url)
    try:
        streams = [t.table_id for t in run.tables]

        async def cashed_out(stream: str) -> bool:
            kinds = [e.type for e in await events.read_stream(stream)]
            return kinds.count("table.StackCashedOut") == kinds.count("table.StackBoughtIn")

        async with asyncio.timeout(300):
            while not all([await cashed_out(s) for s in streams]):
                await asyncio.sleep(0.5)
        last = max([(await events.read_stream(s))[-1].position for s in streams])
        async with asyncio.timeout(60):
            while await events.checkpoint(SUBSCRIPTION) < last:
                await asyncio.sleep(0.1)
        won: dict[str, int] = defaultdict(int)
        payments = buy_ins = cash_outs = 0
        for stream in streams:
            for ev in await events.read_stream(stream):
                if ev.type == "table.HandSettled":
                    for p in ev.data["payments"]:
                        won[p["payee_player"]] += p["chips"]
                        won[p["payer_player"]] -= p["chips"]
                        payments += 1
                buy_ins += ev.type == "table.StackBoughtIn"
                cash_outs += ev.type == "table.StackCashedOut" and ev.data["chips"] > 0
        players = {p for t in run.tables for p in t.player_ids}
        assert payments > 0 and buy_ins == len(players)
        for player in players:
            assert await ledger.balance(f"player/{player}") == WELCOME + won[player], player
        for stream in streams:
            ruleset = (await events.read_stream(stream, 1, 1))[0].data["ruleset"]
            for seat in range(SEATS[ruleset]):
                assert await ledger.balance(f"table/{stream.removeprefix('table-')}/seat/{seat}") == 0
        report = await ledger.audit()
        assert report.ok, report
        assert report.transfers == len(players) + buy_ins + payments + cash_outs  # + the welcomes
    finally:
        await ledger.close()
        await events.close()


async def test_a_player_short_of_chips_cannot_sit_and_nothing_moves(start_server, production_env):
    server = start_server(production_env)
    async with channel(server.address) as chan:
        host = await Player.guest(chan, "host")
        table_id = (await host.create_table("koudian", {"buy_in": 5000})).table_id
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await host.join(table_id)
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        need = ledger_pb2.InsufficientChips()
        assert rpc_status.from_call(caught.value).details[0].Unpack(need)
        assert (need.balance, need.need) == (WELCOME, 5000)
        assert "balance 1000, need 5000" in caught.value.details()
    url = production_env["QIPAI_DATABASE_URL"]
    events = await open_event_store(url)
    ledger = await open_ledger(url)
    try:
        assert not [e for e in await events.read_stream(table_id) if e.type.startswith("table.Player")]
        assert await ledger.balance(f"player/{host.player_id}") == WELCOME
        assert (await ledger.audit()).transfers == 1  # the welcome grant, nothing else
    finally:
        await ledger.close()
        await events.close()
