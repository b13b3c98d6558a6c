"""The whole journey over gRPC, as a client makes it: log in, check in, queue, get matched, play
the match to its end, see the balance changed by exactly the hands' payments, leave."""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict

import pytest

from clients.client import Player, admin_replay, channel, play_seat
from qipai.v1 import game_pb2, ledger_pb2, ledger_pb2_grpc, matchmaking_pb2_grpc
from qipai.v1 import matchmaking_pb2 as pb
from services import auth
from tests.e2e.conftest import wait_healthy
from tests.e2e.test_matchmaking import queues_file

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"


async def _balance(p: Player) -> int:
    reply = await ledger_pb2_grpc.LedgerStub(p.chan).GetBalance(ledger_pb2.GetBalanceRequest(),
                                                                metadata=p.metadata)
    return int(reply.balance)


async def _journey(address: str) -> None:
    chan = channel(address)
    players = [await Player.guest(chan, name) for name in ("ann", "bob", "cy", "dee")]
    for p in players:
        await ledger_pb2_grpc.LedgerStub(chan).CheckIn(ledger_pb2.CheckInRequest(), metadata=p.metadata)
    before = {p.player_id: await _balance(p) for p in players}

    async def queue(p: Player) -> pb.Ticket:
        stub = matchmaking_pb2_grpc.MatchmakingStub(chan)
        states = [t async for t in stub.Queue(pb.QueueRequest(ruleset="koudian", preset="quick"),
                                              metadata=p.metadata)]
        return states[-1]

    tickets = await asyncio.gather(*(queue(p) for p in players))
    assert {t.state for t in tickets} == {pb.TICKET_STATE_MATCHED}
    [table_id] = {t.table_id for t in tickets}
    assert sorted(t.seat for t in tickets) == [0, 1, 2, 3]
    seat_of = {t.player_id: t.seat for t in tickets}
    for p in players:
        await p.ready(table_id, commit=True)
    await asyncio.gather(*(play_seat(p, table_id, seed=seat_of[p.player_id], hands=1000)
                           for p in players))
    assert (await players[0].view(table_id)).status == "match_over"

    admin = Player(chan, auth.issue(SECRET, "operator", auth.ADMIN)[0], "operator")
    paid: dict[str, int] = defaultdict(int)
    hands = 0
    for step in await admin_replay(admin, table_id):
        if step.type == "table.HandSettled":
            hands += 1
            for payment in json.loads(step.data_json)["payments"]:
                paid[payment["payer_player"]] -= payment["chips"]
                paid[payment["payee_player"]] += payment["chips"]
    assert hands >= 1 and sum(paid.values()) == 0
    deadline = time.monotonic() + 60
    while True:  # the ledger settles the cash-outs from the event log
        after = {p.player_id: await _balance(p) for p in players}
        changed = {pid: after[pid] - before[pid] for pid in after}
        if changed == {pid: paid.get(pid, 0) for pid in after} or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.3)
    assert changed == {pid: paid.get(pid, 0) for pid in after}
    # Their ratings follow the hands from the event log.
    rated = next(pid for pid in after if paid.get(pid, 0) != 0)
    me = next(p for p in players if p.player_id == rated)
    stub = matchmaking_pb2_grpc.MatchmakingStub(chan)
    deadline = time.monotonic() + 60
    while True:
        profile = await stub.GetProfile(pb.GetProfileRequest(), metadata=me.metadata)
        if profile.ratings or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.3)
    [rating] = profile.ratings
    assert rating.ruleset == "koudian" and rating.hands >= 1 and rating.rating != 1500
    for p in players:
        left = await p.game.Leave(game_pb2.TableRequest(table_id=table_id, request_id="bye"),
                                  metadata=p.metadata)
        assert left.seat == -1
    # Having left a finished match, a player may queue again.
    again = stub.Queue(pb.QueueRequest(ruleset="koudian"), metadata=players[0].metadata)
    assert (await again.read()).state == pb.TICKET_STATE_SEARCHING
    again.cancel()
    await chan.close()


def test_the_whole_journey_login_check_in_queue_match_play_settle_leave(start_server, tmp_path):
    path = queues_file(tmp_path, bot_fill_after_s=0)
    with open(path, "a") as f:
        # No claim-window minimum: four bots play a whole match here, and the pace is not the point.
        f.write("[rulesets.koudian.presets.quick]\nrounds_per_match = 1\nclaim_window_min_ms = 0\n")
    server = start_server({"QIPAI_QUEUES_FILE": path}, wait=False)
    wait_healthy(server.address, timeout=120)
    asyncio.run(_journey(server.address))
