"""ListQueues from any matchmaker process shows every process's tickets and matches (the figures
live in Redis, not in the process that seated the match): two `qipai serve` processes on
Postgres and Redis."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest

from qipai.v1 import matchmaking_pb2 as pb
from qipai.v1 import matchmaking_pb2_grpc
from services import auth
from tests.e2e.conftest import wait_healthy

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
QUEUE = "koudian/standard/bronze"


def _md(player: str, admin: bool = False) -> list[tuple[str, str]]:
    token, _ = auth.issue(SECRET, player, auth.ADMIN if admin else auth.PLAYER)
    return [("authorization", f"Bearer {token}")]


async def _queue(address: str, player: str) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        stream = matchmaking_pb2_grpc.MatchmakingStub(channel).Queue(
            pb.QueueRequest(ruleset="koudian"), metadata=_md(player), timeout=30)
        await stream.read()
        stream.cancel()  # the ticket stays: the grace period is long


async def _figures(address: str) -> pb.QueueInfo:
    async with grpc.aio.insecure_channel(address) as channel:
        reply = await matchmaking_pb2_grpc.MatchmakingStub(channel).ListQueues(
            pb.ListQueuesRequest(), metadata=_md("olga", admin=True), timeout=30)
    return next(q for q in reply.queues if q.queue == QUEUE)


async def _all_matched(address: str, players: list[str]) -> None:
    deadline = time.monotonic() + 60
    async with grpc.aio.insecure_channel(address) as channel:
        stub = matchmaking_pb2_grpc.MatchmakingStub(channel)
        while True:
            states = [(await stub.GetTicket(pb.GetTicketRequest(), metadata=_md(p), timeout=30)).state
                      for p in players]
            if all(s == pb.TICKET_STATE_MATCHED for s in states):
                return
            assert time.monotonic() < deadline, "the players were not all matched"
            await asyncio.sleep(0.2)


def test_every_matchmaker_process_lists_the_tickets_and_matches_of_all(
        start_server, production_env, tmp_path: Path):
    queues = tmp_path / "queues.toml"
    queues.write_text("[defaults]\nbot_fill_after_s = 0\ngrace_s = 600\n"
                      "[rulesets.koudian.presets]\nstandard = {}\n"
                      "[rulesets.koudian.tiers]\nbronze = { stake = 1 }\n")
    env = {**production_env, "QIPAI_QUEUES_FILE": str(queues)}
    servers = [start_server({**env, "QIPAI_NODE_ID": f"node{n}"}, wait=False) for n in range(2)]
    for server in servers:
        wait_healthy(server.address, timeout=120)
    a, b = (s.address for s in servers)

    async def run() -> tuple[list[pb.QueueInfo], list[pb.QueueInfo]]:
        # Three tables' worth, queued through both processes: each forms some of the matches.
        players = [f"p{n}" for n in range(12)]
        for n, p in enumerate(players):
            await _queue((a, b)[n % 2], p)
        await _all_matched(a, players)
        matched = [await _figures(x) for x in (a, b)]
        await _queue(b, "late")
        return matched, [await _figures(x) for x in (a, b)]

    matched, waiting = asyncio.run(run())
    for info in matched:
        assert (info.matches, info.searching) == (3, 0)
        assert info.median_wait_ms == matched[0].median_wait_ms > 0
    assert [(info.searching, info.matches) for info in waiting] == [(1, 3), (1, 3)]
