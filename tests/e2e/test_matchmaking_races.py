"""Public queues across several matchmaker processes on Postgres and Redis: a thousand players
queueing and cancelling at random, and matchmakers killed (-9) in the middle of formation. Every
player ends in exactly one table or still queued, no table seats a player twice, and nobody's
chips move twice."""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections import Counter
from pathlib import Path

import grpc
import psycopg
import pytest

from qipai.v1 import admin_pb2, admin_pb2_grpc, matchmaking_pb2_grpc
from qipai.v1 import matchmaking_pb2 as pb
from services import auth
from tests.e2e.conftest import wait_healthy

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
WELCOME, BUY_IN = 1000, 100  # the ledger's welcome grant; a bronze seat (stake 1) brings 100


def queues_file(tmp_path: Path) -> str:
    path = tmp_path / "queues.toml"
    # No bot fill, a long grace: a ticket ends matched or cancelled by its player, nothing else.
    # Long turns: a match's first hand is dealt at once, and its tables wait for a first move
    # instead of timing out and auto-playing hundreds of tables while the test runs.
    path.write_text("""
[defaults]
bot_fill_after_s = 0
grace_s = 600
match_lease_s = 2
[rulesets.koudian.presets]
standard = { turn_timeout_ms = 600000, claim_timeout_ms = 600000 }
[rulesets.koudian.tiers]
bronze = { stake = 1 }
[rulesets.daqi.presets]
standard = { play_timeout_ms = 600000, bury_timeout_ms = 600000 }
[rulesets.daqi.tiers]
bronze = { stake = 1 }
""")
    return str(path)


def _md(player: str, admin: bool = False) -> list[tuple[str, str]]:
    token, _ = auth.issue(SECRET, player, auth.ADMIN if admin else auth.PLAYER)
    return [("authorization", f"Bearer {token}")]


def _cluster(start_server, production_env, tmp_path):
    """One game process and two matchmakers (-k: started together, waited for generously: three
    processes loading at once on a small machine)."""
    game = start_server({**production_env, "QIPAI_NODE_ID": "game"}, service="game", wait=False)
    env = {**production_env, "QIPAI_GAME_ADDR": game.address, "QIPAI_QUEUES_FILE": queues_file(tmp_path)}
    matchmakers = [start_server({**env, "QIPAI_NODE_ID": f"mm{n}"}, service="matchmaking", wait=False)
                   for n in range(2)]
    for server in (game, *matchmakers):
        wait_healthy(server.address, timeout=120)
    return game, env, matchmakers


async def _queue(address: str, player: str, ruleset: str, cancel: bool) -> bool:
    """Queue `player` (and cancel at once if asked); False when the matchmaker refuses because
    the player already sits at a table whose match is not over (one table at a time:
    services/matchmaking/one_table.py), which a player queueing again may meet."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = matchmaking_pb2_grpc.MatchmakingStub(channel)
        for attempt in range(20):
            try:
                stream = stub.Queue(pb.QueueRequest(ruleset=ruleset), metadata=_md(player), timeout=30)
                first = await stream.read()
                stream.cancel()  # the ticket stays: the grace period is long
                if cancel:
                    await stub.Cancel(pb.CancelRequest(ticket_id=first.ticket_id), metadata=_md(player),
                                      timeout=30)
                return True
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.FAILED_PRECONDITION and "you sit at table" in (exc.details() or ""):
                    return False
                if exc.code() != grpc.StatusCode.UNAVAILABLE or attempt == 19:
                    raise
                await asyncio.sleep(0.5)  # that matchmaker was killed: try again (maybe another)


async def _tickets(address: str, players: list[str]) -> dict[str, pb.Ticket]:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = matchmaking_pb2_grpc.MatchmakingStub(channel)
        sem = asyncio.Semaphore(50)

        async def one(p: str) -> tuple[str, pb.Ticket]:
            async with sem:
                return p, await stub.GetTicket(pb.GetTicketRequest(), metadata=_md(p), timeout=30)

        return dict(await asyncio.gather(*(one(p) for p in players)))


async def _settled(address: str, players: list[str], seats: dict[str, int]) -> dict[str, pb.Ticket]:
    """The tickets once formation has nothing left to do: every ticket matched or cancelled,
    except fewer than a table's worth still searching in each queue."""
    deadline = time.monotonic() + 300
    while True:
        tickets = await _tickets(address, players)
        searching = Counter(t.queue for t in tickets.values() if t.state == pb.TICKET_STATE_SEARCHING)
        if all(n < seats[q.split("/")[0]] for q, n in searching.items()) or time.monotonic() > deadline:
            return tickets
        await asyncio.sleep(1.0)


def _check(game_address: str, env: dict[str, str], tickets: dict[str, pb.Ticket]) -> None:
    with grpc.insecure_channel(game_address) as channel:
        tables = admin_pb2_grpc.AdminStub(channel).ListTables(
            admin_pb2.ListTablesRequest(), metadata=_md("op", admin=True), timeout=60).tables
    seated = Counter(p for t in tables for p in t.players if p and not p.startswith("bot-"))
    assert not [p for p, n in seated.items() if n > 1], "a player sits at two tables"
    for t in tables:
        humans = [p for p in t.players if p]
        assert len(humans) == len(set(humans)), f"table {t.table_id} seats a player twice"
    matched = {p: t for p, t in tickets.items() if t.state == pb.TICKET_STATE_MATCHED}
    assert set(seated) == set(matched), "every matched ticket, and only those, has a seat"
    by_table = {t.table_id: list(t.players) for t in tables}
    for p, t in matched.items():
        assert by_table[t.table_id][t.seat] == p
    # Chips: each seated player bought in once; nobody else was charged.
    url = env["QIPAI_DATABASE_URL"]
    base, _, schema = url.partition("?schema=")
    with psycopg.connect(base) as conn:
        rows = conn.execute(f'SELECT account, balance FROM "{schema}".ledger_accounts '
                            "WHERE account LIKE 'player/%%'").fetchall()
        buyins = conn.execute(f'SELECT debit, count(*) FROM "{schema}".ledger_transfers '
                              "WHERE kind = 'buyin' GROUP BY debit").fetchall()
    balances = {a.removeprefix("player/"): b for a, b in rows}
    assert {d.removeprefix("player/"): n for d, n in buyins} == dict.fromkeys(matched, 1)
    for p in tickets:
        assert balances.get(p, WELCOME) == (WELCOME - BUY_IN if p in matched else WELCOME), p


def test_a_thousand_players_queueing_and_cancelling_across_two_matchmakers_sit_once_each(
        start_server, production_env, tmp_path):
    game, env, matchmakers = _cluster(start_server, production_env, tmp_path)
    rng = random.Random(14)
    players = [f"p{n:04d}" for n in range(1000)]
    refused: set[str] = set()  # queued again after their first ticket had already seated them

    async def run() -> dict[str, pb.Ticket]:
        sem = asyncio.Semaphore(40)

        async def player(p: str) -> None:
            async with sem:
                mm = rng.choice(matchmakers).address
                ruleset = rng.choice(["koudian", "daqi"])
                assert await _queue(mm, p, ruleset, cancel=rng.random() < 0.25), f"{p} refused at first"
                if rng.random() < 0.1:  # some queue again, maybe elsewhere
                    if not await _queue(rng.choice(matchmakers).address, p, ruleset, cancel=False):
                        refused.add(p)

        await asyncio.gather(*(player(p) for p in players))
        return await _settled(matchmakers[0].address, players, {"koudian": 4, "daqi": 5})

    tickets = asyncio.run(run())
    assert sum(t.state == pb.TICKET_STATE_MATCHED for t in tickets.values()) > 500
    # A refusal to queue again is right only for a player whose ticket seated them.
    assert all(tickets[p].state == pb.TICKET_STATE_MATCHED for p in refused)
    _check(game.address, env, tickets)


def test_a_matchmaker_killed_in_the_middle_of_formation_loses_no_ticket_and_the_other_carries_on(
        start_server, production_env, tmp_path):
    game, env, matchmakers = _cluster(start_server, production_env, tmp_path)
    rng = random.Random(9)
    players = [f"k{n:03d}" for n in range(240)]

    async def run() -> dict[str, pb.Ticket]:
        async def arrivals() -> None:
            for chunk in range(0, len(players), 20):
                queued = await asyncio.gather(*(_queue(matchmakers[1].address, p, rng.choice(["koudian", "daqi"]),
                                                       cancel=False) for p in players[chunk:chunk + 20]))
                assert all(queued), "a player queueing once was refused"
                await asyncio.sleep(rng.uniform(0.05, 0.3))

        async def killer() -> None:
            for _ in range(3):  # kill -9 at random points while matches form and seat
                await asyncio.sleep(rng.uniform(0.3, 1.5))
                victim = matchmakers[0]
                victim.process.send_signal(signal.SIGKILL)
                victim.process.wait()
                matchmakers[0] = start_server({**env, "QIPAI_NODE_ID": f"mm0-{rng.random()}"},
                                              service="matchmaking", wait=False)

        await asyncio.gather(arrivals(), killer())
        return await _settled(matchmakers[1].address, players, {"koudian": 4, "daqi": 5})

    tickets = asyncio.run(run())
    assert not [p for p, t in tickets.items() if t.state == pb.TICKET_STATE_CANCELLED]
    _check(game.address, env, tickets)
