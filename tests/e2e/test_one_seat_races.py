"""A player is at most one live table, atomically: the races the matchmaker's own checks cannot
see, over gRPC in real `qipai serve` processes, on the embedded default (one process, memory +
SQLite), on Postgres + Redis with two processes (two matchmakers, two game nodes), and split
(two matchmaker processes calling one game process over gRPC, the ledger a process of its own).

Each trial races two ways of seating one player: two ready rooms of theirs started at once
(`asyncio.gather`), and a room start against the same player's public-queue match. A double is
the player seated at two live tables (the game's state) or bought in twice (the ledger's). The
starts pause around each game call (QIPAI_ROOM_START_PAUSE_MS), so every trial's two seatings
overlap: the matchmaker's checks before seating all pass, and only the game's seat reservation
stands between the player and a second table."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from clients import rooms
from clients.client import Player, channel
from qipai.v1 import game_pb2, ledger_pb2, ledger_pb2_grpc, matchmaking_pb2, matchmaking_pb2_grpc
from services import auth
from tests.e2e.conftest import StartServer, wait_healthy

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
TRIALS = 50
STAKE = 10
LONG_TURNS = {"turn_timeout_ms": 600_000}  # the tables wait for their first move: the test is idle


def _queues_file(path: Path) -> str:
    path.write_text("""
[defaults]
bot_fill_after_s = 0.05
grace_s = 600
[rulesets.koudian.presets]
standard = { turn_timeout_ms = 600000 }
[rulesets.koudian.tiers]
bronze = { stake = 1 }
""")
    return str(path)


@dataclass(frozen=True)
class Deployment:
    matchmakers: tuple[str, str]  # two matchmaker addresses (embedded: the one process twice)
    game: str
    ledger: str


@pytest.fixture(scope="module", params=["embedded", "production", "split"])
def deployment(request: pytest.FixtureRequest, module_start_server: StartServer,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    env = {"QIPAI_QUEUES_FILE": _queues_file(tmp_path_factory.mktemp("q") / "queues.toml"),
           "QIPAI_ROOM_START_PAUSE_MS": "25",
           "QIPAI_ROOM_JOINS_PER_MINUTE": "100000", "QIPAI_ROOM_JOINS_PER_MINUTE_PER_ADDRESS": "100000",
           "QIPAI_TOKEN_SECRET": SECRET}
    if request.param == "embedded":
        server = module_start_server(env)
        yield Deployment((server.address, server.address), server.address, server.address)
        return
    env.update(request.getfixturevalue("module_production_env"))
    if request.param == "production":
        servers = [module_start_server({**env, "QIPAI_NODE_ID": f"node{n}-{uuid.uuid4().hex[:4]}"},
                                       wait=False) for n in range(2)]
        for server in servers:
            wait_healthy(server.address, timeout=120)
        yield Deployment((servers[0].address, servers[1].address), servers[0].address, servers[0].address)
        return
    game = module_start_server({**env, "QIPAI_NODE_ID": f"game-{uuid.uuid4().hex[:4]}"}, service="game",
                               wait=False)
    ledger = module_start_server(env, service="ledger", wait=False)
    matchmakers = [module_start_server({**env, "QIPAI_GAME_ADDR": game.address,
                                        "QIPAI_NODE_ID": f"mm{n}-{uuid.uuid4().hex[:4]}"},
                                       service="matchmaking", wait=False) for n in range(2)]
    for server in (game, ledger, *matchmakers):
        wait_healthy(server.address, timeout=120)
    yield Deployment((matchmakers[0].address, matchmakers[1].address), game.address, ledger.address)


def player(chan: grpc.aio.Channel, name: str) -> Player:
    token, _ = auth.issue(SECRET, name, auth.PLAYER)
    return Player(chan, token, name)


def on(p: Player, chan: grpc.aio.Channel) -> Player:
    """The same player, calling another process."""
    return Player(chan, p.token, p.player_id)


async def ready_room(host: Player, members: list[Player]) -> str:
    """A koudian room of `host` and `members`, every seat taken and ready, not started."""
    room = await rooms.create_room(host, "koudian", LONG_TURNS, stake=STAKE, auto_start=False)
    for m in members:
        await rooms.join_room(m, room.code)
    for m in [host, *members]:
        await rooms.set_ready(m, room.code)
    return str(room.code)


async def queue_once(p: Player) -> matchmaking_pb2.Ticket | grpc.aio.AioRpcError:
    """`p` queues for koudian: their ticket once matched or cancelled (or the refusal)."""
    stream = matchmaking_pb2_grpc.MatchmakingStub(p.chan).Queue(
        matchmaking_pb2.QueueRequest(ruleset="koudian"), metadata=p.metadata, timeout=60)
    try:
        async for ticket in stream:
            if ticket.state in (matchmaking_pb2.TICKET_STATE_MATCHED, matchmaking_pb2.TICKET_STATE_CANCELLED):
                return ticket
    except grpc.aio.AioRpcError as exc:
        if exc.code() is grpc.StatusCode.FAILED_PRECONDITION:  # already seated: refused up front
            return exc
        raise
    raise AssertionError("the Queue stream ended without a match or a cancellation")


async def doubled(p: Player, tables: set[str], game: grpc.aio.Channel,
                  ledger: grpc.aio.Channel) -> tuple[int, int]:
    """(live tables `p` sits at, buy-ins of `p` in the ledger), over `tables` and every table
    the ledger shows them buying in at."""
    reply = await ledger_pb2_grpc.LedgerStub(ledger).ListTransfers(
        ledger_pb2.ListTransfersRequest(page_size=100), metadata=p.metadata)
    buy_ins = [t for t in reply.transfers if t.kind == "buyin"]
    tables |= {"table-" + t.id.split("/")[1] for t in buy_ins}
    live = 0
    for table_id in tables:
        try:
            view = await on(p, game).game.GetView(game_pb2.TableRequest(table_id=table_id),
                                                  metadata=p.metadata)
        except grpc.aio.AioRpcError as exc:
            assert exc.code() is grpc.StatusCode.PERMISSION_DENIED  # never sat there (private)
            continue
        live += view.seat >= 0 and view.status != "match_over"
    return live, len(buy_ins)


Channels = tuple[grpc.aio.Channel, grpc.aio.Channel, grpc.aio.Channel, grpc.aio.Channel]
"""Two matchmakers', the game's and the ledger's."""


async def two_rooms(chans: Channels, n: int) -> tuple[int, int]:
    chan_a, chan_b, game, ledger = chans
    tag = uuid.uuid4().hex[:6]
    p = player(chan_a, f"p{n}-{tag}")
    first = [player(chan_a, f"a{n}{i}-{tag}") for i in range(3)]
    second = [player(chan_b, f"b{n}{i}-{tag}") for i in range(3)]
    code_a = await ready_room(p, first)
    code_b = await ready_room(second[0], [on(p, chan_b), *second[1:]])
    started = await asyncio.gather(rooms.start_room(p, code_a), rooms.start_room(second[0], code_b),
                                   return_exceptions=True)
    for outcome in started:
        if isinstance(outcome, BaseException):
            assert isinstance(outcome, grpc.aio.AioRpcError), outcome
            assert outcome.code() is grpc.StatusCode.FAILED_PRECONDITION, outcome
    assert any(not isinstance(o, BaseException) for o in started), started  # one of them starts
    return await doubled(p, {o.table_id for o in started if not isinstance(o, BaseException)}, game, ledger)


async def room_and_queue(chans: Channels, n: int) -> tuple[int, int]:
    chan_a, chan_b, game, ledger = chans
    tag = uuid.uuid4().hex[:6]
    host = player(chan_a, f"h{n}-{tag}")
    p = player(chan_a, f"q{n}-{tag}")
    code = await ready_room(host, [p, *(player(chan_a, f"m{n}{i}-{tag}") for i in range(2))])
    started, ticket = await asyncio.gather(rooms.start_room(host, code), queue_once(on(p, chan_b)),
                                           return_exceptions=True)
    tables = set()
    if isinstance(started, BaseException):
        assert isinstance(started, grpc.aio.AioRpcError), started
        assert started.code() is grpc.StatusCode.FAILED_PRECONDITION, started
    else:
        tables.add(started.table_id)
    assert not isinstance(ticket, BaseException), ticket
    if isinstance(ticket, matchmaking_pb2.Ticket) and ticket.table_id:
        tables.add(ticket.table_id)
    assert tables, (started, ticket)  # one of them seats the player
    return await doubled(p, tables, game, ledger)


@pytest.mark.parametrize("race", [two_rooms, room_and_queue], ids=["two_room_starts", "room_start_and_queue"])
def test_a_player_racing_two_seatings_sits_and_buys_in_at_one_table_only(deployment, race) -> None:
    (a, b), game, ledger = deployment.matchmakers, deployment.game, deployment.ledger

    async def run() -> list[tuple[int, int]]:
        async with channel(a) as chan_a, channel(b) as chan_b, channel(game) as chan_g, \
                channel(ledger) as chan_l:
            return [await race((chan_a, chan_b, chan_g, chan_l), n) for n in range(TRIALS)]

    outcomes = asyncio.run(run())
    doubles = [n for n, (live, buy_ins) in enumerate(outcomes) if live > 1 or buy_ins > 1]
    assert doubles == [], f"{len(doubles)} of {TRIALS} trials seated or bought the player in twice"
    assert all(live == 1 for live, _ in outcomes), outcomes  # and each seats them once
