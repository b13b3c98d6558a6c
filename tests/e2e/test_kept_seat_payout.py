"""Issue 25, "chips paid to a seat nobody holds", over gRPC on Postgres + Redis: at a 打七 table
without 积分最小化 one player leaves during the first hand; the server plays her kept seat and it
wins chips in a later hand. Those payments name her, and when the table ends (here: the others
leave, and the abandon policy closes it) the seat's winnings go back to her: her balance is the
welcome plus what her seat won, every seat account of the table is 0 and the audit passes."""

from __future__ import annotations

import asyncio
import uuid
from collections import defaultdict

import pytest

from clients.client import Player, channel, play_seat, seat_players
from engine import table as _table_events  # noqa: F401  (registers table.* events for decoding)
from qipai.v1 import game_pb2
from services.eventstore import open_event_store
from services.ledger.settlement import SUBSCRIPTION
from services.ledger.store import open_ledger

pytestmark = pytest.mark.e2e

WELCOME = 1000
FAST_DAQI = {"deal_interval_ms": 0, "bid_window_ms": 0, "score_minimisation": False}


async def leave(player: Player, table_id: str) -> None:
    await player.game.Leave(game_pb2.TableRequest(table_id=table_id, request_id=uuid.uuid4().hex),
                            metadata=player.metadata)


async def test_a_kept_seats_winnings_end_at_the_player_who_left_it(start_server, production_env):
    # Nobody acts for 15 s once the others stand up: the table is closed as abandoned (long
    # enough that it never happens while the bots play, even on a busy machine).
    server = start_server({**production_env, "QIPAI_ABANDON_AFTER_S": "15"})
    url = server.env["QIPAI_DATABASE_URL"]
    events = await open_event_store(url)
    ledger = await open_ledger(url)
    try:
        async with channel(server.address) as chan:
            players = [await Player.guest(chan, name) for name in ("ann", "bob", "cy", "dee", "eve")]
            table_id = (await players[0].create_table("daqi", FAST_DAQI)).table_id
            await seat_players(players, table_id)
            eve = players[4]
            await leave(eve, table_id)  # during the first hand: her seat is kept for her

            async def kept_seat_paid() -> bool:
                return any(p["payee"] == 4 and p["chips"] > 0 and rec.data["hand"] > 1
                           for rec in await events.read_stream(table_id) if rec.type == "table.HandSettled"
                           for p in rec.data["payments"])

            stop = asyncio.Event()
            playing = [asyncio.create_task(play_seat(p, table_id, "greedy", seed=n, hands=1_000, stop=stop))
                       for n, p in enumerate(players[:4])]
            async with asyncio.timeout(600):
                while not await kept_seat_paid():
                    assert not any(t.done() for t in playing), [t.result() for t in playing if t.done()]
                    await asyncio.sleep(0.5)
            stop.set()
            await asyncio.gather(*playing)
            for p in players[:4]:
                await leave(p, table_id)
        async with asyncio.timeout(120):
            while not any(rec.type == "table.Closed" for rec in await events.read_stream(table_id)):
                await asyncio.sleep(0.5)
        stream = await events.read_stream(table_id)
        async with asyncio.timeout(60):
            while await events.checkpoint(SUBSCRIPTION) < stream[-1].position:
                await asyncio.sleep(0.1)
        won: dict[str, int] = defaultdict(int)
        for rec in stream:
            if rec.type == "table.HandSettled":
                for p in rec.data["payments"]:
                    assert p["payer_player"] and p["payee_player"], p  # nobody's seat is paid
                    won[p["payee_player"]] += p["chips"]
                    won[p["payer_player"]] -= p["chips"]
        kept = [rec.data for rec in stream if rec.type == "table.StackCashedOut" and rec.data["kept"]]
        assert [(c["seat"], c["player_id"]) for c in kept] == [(4, eve.player_id)] and kept[0]["chips"] > 0
        for p in players:
            assert await ledger.balance(f"player/{p.player_id}") == WELCOME + won[p.player_id], p.player_id
        for seat in range(5):
            assert await ledger.balance(f"table/{table_id.removeprefix('table-')}/seat/{seat}") == 0, seat
        report = await ledger.audit()
        assert report.ok, report
    finally:
        await ledger.close()
        await events.close()
