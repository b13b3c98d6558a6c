"""Several game nodes on one Postgres and Redis: takeover when a node dies, Redis loss, fencing
of a paused node, graceful drain. Bots talk to both nodes through one channel, as clients would.

The faults run on a single Redis and on a Redis Cluster (where "Redis loss" is one master
flushed); the drain, which Redis does not take part in, on the single Redis only. A master that
dies and fails over to its replica runs on a cluster of the test's own."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
from pathlib import Path

import pytest
import redis as redis_lib

from clients.client import Player, admin_replay, channel, play_seat, seat_players
from qipai.v1 import admin_pb2
from services import auth
from services.live import open_live_state
from tests.conftest import redis_client, unavailable

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
ROOT = Path(__file__).resolve().parents[2]
# Bots play whole hands: claim windows close once decided (no minimum to wait at each discard).
OPTIONS = {"koudian": {"claim_window_min_ms": 0}, "daqi": {"deal_interval_ms": 0, "bid_window_ms": 0}}


@pytest.fixture
def redis_url(live_redis_url: str) -> str:
    """The nodes' live state: a single Redis, then a Redis Cluster (see live_redis_url)."""
    return live_redis_url


@pytest.fixture
def nodes(start_server, production_env):
    return (*two_nodes(start_server, production_env), production_env)


def two_nodes(start_server, env: dict[str, str]):
    return (start_server({**env, "QIPAI_NODE_ID": "node-a"}, service="game"),
            start_server({**env, "QIPAI_NODE_ID": "node-b"}, service="game"))


async def start_playing(tables, acks: list, until: int) -> asyncio.Task:
    """Bots play every table; returns once `until` actions were acknowledged."""
    playing = asyncio.create_task(play_all(tables, acks))
    while len(acks) < until and not playing.done():
        await asyncio.sleep(0.05)
    return playing


async def make_tables(chan, n: int) -> list[tuple[str, list[Player]]]:
    tables = []
    for i in range(n):
        ruleset = ("koudian", "daqi")[i % 2]
        players = [await Player.guest(chan, f"p{i}-{s}") for s in range((4, 5)[i % 2])]
        table_id = (await players[0].create_table(ruleset, OPTIONS[ruleset])).table_id
        await seat_players(players, table_id)
        tables.append((table_id, players))
    return tables


async def play_all(tables, acks: list[tuple[str, str, int]], timeout: float = 200) -> None:
    def ack(table_id: str, player: Player):
        return lambda action_id, reply, _: acks.append((table_id, f"{player.player_id}:{action_id}", reply.version))

    await asyncio.wait_for(asyncio.gather(*(
        play_seat(p, t, "greedy", seed=i, on_ack=ack(t, p)) for t, players in tables
        for i, p in enumerate(players))), timeout)


async def check_logs(address: str, tables, acks) -> None:
    """No gap, no duplicate, every acknowledged action stored once, Verify passes."""
    async with channel(address) as chan:
        admin = Player(chan, auth.issue(SECRET, "operator", auth.ADMIN)[0])
        for table_id, _ in tables:
            steps = await admin_replay(admin, table_id)
            assert [s.version for s in steps] == list(range(1, len(steps) + 1)), table_id
            commands = [json.loads(s.metadata_json).get("command_id") for s in steps
                        if "command" in json.loads(s.metadata_json)]
            for t, command_id, _ in acks:
                if t == table_id:
                    assert commands.count(command_id) == 1, (table_id, command_id)
            assert any(s.type.endswith(".HandEnded") for s in steps), table_id
            result = await admin.admin.Verify(admin_pb2.VerifyRequest(table_id=table_id), metadata=admin.metadata)
            assert result.ok, list(result.problems)


async def holders(env: dict, tables) -> set[str]:
    live = open_live_state(env["QIPAI_REDIS_URL"], namespace=env["QIPAI_LIVE_NAMESPACE"])
    try:
        found = {await live.lease_holder(t) for t, _ in tables}
        return {h.node_id for h in found if h is not None}
    finally:
        await live.close()


async def test_kill_9_of_a_node_mid_hand_its_tables_finish_on_the_other(nodes):
    a, b, env = nodes
    acks: list = []
    async with channel(f"{a.address},{b.address}") as chan:
        tables = await make_tables(chan, 20)
        assert await holders(env, tables) == {"node-a", "node-b"}  # spread over both nodes
        playing = await start_playing(tables, acks, 150)
        a.process.kill()
        await playing
    await check_logs(b.address, tables, acks)


async def test_flushall_twice_mid_hand_every_table_still_finishes_and_verifies(nodes):
    a, b, env = nodes
    acks: list = []
    rng = random.Random(7)
    async with channel(f"{a.address},{b.address}") as chan:
        tables = await make_tables(chan, 10)
        playing = asyncio.create_task(play_all(tables, acks))
        client = redis_client(env["QIPAI_REDIS_URL"])
        try:
            for threshold in sorted(rng.sample(range(50, 400), 2)):
                while len(acks) < threshold and not playing.done():
                    await asyncio.sleep(0.02)
                _flushall(client, rng)
        finally:
            client.close()
        await playing
    await check_logs(b.address, tables, acks)


def _flushall(client, rng: random.Random) -> None:
    """FLUSHALL of the single Redis, or of one master of the cluster (its keys alone are lost)."""
    if isinstance(client, redis_lib.RedisCluster):
        client.flushall(target_nodes=rng.choice(client.get_primaries()))
    else:
        client.flushall()


async def test_a_paused_node_whose_table_was_taken_over_cannot_write(nodes):
    a, b, env = nodes
    async with channel(a.address) as chan_a, channel(b.address) as chan_b:
        (table_id, players), = await make_tables(chan_a, 1)
        a.process.send_signal(signal.SIGSTOP)
        try:
            await asyncio.sleep(4)  # longer than a lease: node a's runs out while it is paused
            for p in players:
                p.chan = chan_b  # node b takes the table over on the first call
            view, mover = await _whose_turn(players, table_id)
            mover.chan = chan_a
            # The move reaches the paused node, which still believes it serves the table.
            stale = asyncio.create_task(mover.act(table_id, view.legal_actions[0], action_id="stale-move"))
            await asyncio.sleep(0.5)
        finally:
            a.process.send_signal(signal.SIGCONT)
        reply = await asyncio.wait_for(stale, 20)
    log = a.log()
    assert "fenced_out" in log or "lease_lost" in log  # it found out, one way or the other
    async with channel(b.address) as chan:
        admin = Player(chan, auth.issue(SECRET, "operator", auth.ADMIN)[0])
        steps = await admin_replay(admin, table_id)
    assert [s.version for s in steps] == list(range(1, len(steps) + 1))
    command_ids = [json.loads(s.metadata_json).get("command_id") for s in steps
                   if "command" in json.loads(s.metadata_json)]
    assert command_ids.count(f"{mover.player_id}:stale-move") == 1  # written once, by node b
    # The answer is node b's write, counted as the mover's seat counts (the events it may see,
    # up to its move's own; the table's follow-up step after it is not part of the answer).
    metas = [json.loads(s.metadata_json) for s in steps]
    first = next(i for i, m in enumerate(metas) if m.get("command_id") == f"{mover.player_id}:stale-move")
    last = next((i - 1 for i in range(first + 1, len(metas)) if "command" in metas[i]), len(metas) - 1)
    assert json.loads(steps[last].state_json)["seen"][view.seat] == reply.version
    writers = [json.loads(s.metadata_json)["node"] for s in steps if "command" in json.loads(s.metadata_json)]
    takeover = writers.index("node-b")
    assert set(writers[takeover:]) == {"node-b"}  # once node b took over, node a never wrote


@pytest.fixture
def cluster_with_replicas(tmp_path):
    """A Redis Cluster of its own, 3 masters each with a replica, on free loopback ports."""
    if shutil.which("redis-server") is None:
        unavailable("redis-server is not installed; the failover test starts its own cluster")
    port = _free_port_run(6)
    script = ROOT / "infra" / "redis-cluster"
    data = tmp_path / "cluster"
    started = subprocess.run([str(script / "start.sh"), "--port", str(port), "--replicas", "1",
                              "--dir", str(data)], capture_output=True, text=True, timeout=60)
    assert started.returncode == 0, started.stderr
    try:
        yield started.stdout.strip(), port, data
    finally:
        subprocess.run([str(script / "stop.sh"), "--port", str(port), "--nodes", "6",
                        "--dir", str(data)], timeout=30)


def _free_port_run(count: int) -> int:
    """The first of `count` consecutive free ports whose cluster-bus ports (+10000) are free too."""
    rng = random.Random()
    for _ in range(100):
        first = rng.randrange(20000, 30000)
        ports = [p for n in range(count) for p in (first + n, first + n + 10000)]
        try:
            with contextlib.ExitStack() as stack:
                for p in ports:
                    sock = stack.enter_context(socket.socket())
                    sock.bind(("127.0.0.1", p))
            return first
        except OSError:
            continue
    raise AssertionError("no run of free ports")


@pytest.mark.parametrize("live_redis_url", ["redis"], indirect=True)  # the nodes use their own
async def test_a_redis_cluster_master_failing_over_mid_hand_every_table_still_finishes(
    start_server, production_env, cluster_with_replicas
):
    url, port, data = cluster_with_replicas
    a, b = two_nodes(start_server, {**production_env, "QIPAI_REDIS_URL": url})
    acks: list = []
    async with channel(f"{a.address},{b.address}") as chan:
        tables = await make_tables(chan, 10)
        playing = await start_playing(tables, acks, 100)
        master = next(p for p in range(port, port + 6)
                      if redis_lib.Redis(port=p).execute_command("ROLE")[0] == b"master")
        os.kill(int((data / f"{master}.pid").read_text()), signal.SIGKILL)
        await playing
    promoted = redis_client(url)
    try:
        primaries = {node.port for node in promoted.get_primaries()}
        assert len(primaries) == 3 and master not in primaries  # its replica took its slots
        assert promoted.cluster_info()["cluster_state"] == "ok"
    finally:
        promoted.close()
    await check_logs(b.address, tables, acks)


@pytest.mark.parametrize("live_redis_url", ["redis"], indirect=True)
async def test_two_workers_share_one_address_split_the_tables_and_drain_on_sigterm(
    start_server, production_env
):
    server = start_server(production_env, service="game", workers=2)
    live = open_live_state(production_env["QIPAI_REDIS_URL"],
                           namespace=production_env["QIPAI_LIVE_NAMESPACE"])
    try:  # the first worker to answer made the address healthy; wait for the second
        for _ in range(100):
            if len(await live.live_nodes()) == 2:
                break
            await asyncio.sleep(0.1)
    finally:
        await live.close()
    tables: list = []
    acks: list = []
    for _ in range(12):  # a connection per table: the kernel spreads connections (all 12 on
        async with channel(server.address, own_connection=True) as chan:  # one: p = 1/2048)
            tables += await make_tables(chan, 1)
    assert len(await holders(production_env, tables)) == 2
    async with channel(server.address) as chan:
        for _, players in tables:
            for p in players:
                p.chan = chan
        playing = await start_playing(tables, acks, 100)
        assert server.stop(signal.SIGTERM, timeout=30) == 0
        playing.cancel()
    assert "supervising 2 game workers" in server.log()
    assert server.log().count("shutting down") == 2


async def _whose_turn(players: list[Player], table_id: str):
    for _ in range(50):
        for p in players:
            view = await p.view(table_id)
            if view.legal_actions:
                return view, p
        await asyncio.sleep(0.1)
    raise AssertionError("nobody can act")


@pytest.mark.parametrize("live_redis_url", ["redis"], indirect=True)
async def test_sigterm_drains_a_node_and_no_client_sees_an_error(nodes):
    a, b, env = nodes
    acks: list = []
    async with channel(f"{a.address},{b.address}") as chan:
        tables = await make_tables(chan, 10)
        playing = await start_playing(tables, acks, 100)
        assert a.stop(signal.SIGTERM, timeout=30) == 0
        await playing  # any error a client saw would fail here
    await check_logs(b.address, tables, acks)
