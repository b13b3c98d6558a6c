"""Private rooms over gRPC, in real `qipai serve` processes, on the embedded default (SQLite +
memory) and on Postgres + Redis: the lifecycle, a wrong code, the limit on join attempts, and
the whole journey of friends who meet in a room and play a match for chips."""

from __future__ import annotations

import asyncio
import urllib.request
import uuid
from collections import defaultdict

import grpc
import pytest

from clients import rooms
from clients.client import Player, channel, play_seat
from engine import table as _table_events  # noqa: F401  (registers table.* events for decoding)
from qipai.v1 import game_pb2, ledger_pb2, ledger_pb2_grpc, matchmaking_pb2
from services import auth
from services.eventstore import open_event_store
from tests.e2e.conftest import free_port

pytestmark = pytest.mark.e2e

OPEN, STARTED, CLOSED = (matchmaking_pb2.ROOM_STATE_OPEN, matchmaking_pb2.ROOM_STATE_STARTED,
                         matchmaking_pb2.ROOM_STATE_CLOSED)
QUICK = {"turn_timeout_ms": 60_000, "claim_timeout_ms": 60_000, "claim_window_min_ms": 0}  # bots play: no pause


@pytest.fixture(params=["embedded", "production"])
def backend_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """The QIPAI_ variables of each deployment in turn (embedded: the start_server defaults)."""
    if request.param == "embedded":
        return {}
    return dict(request.getfixturevalue("production_env"))


async def guests(chan: grpc.aio.Channel, *names: str) -> list[Player]:
    return [await Player.guest(chan, name) for name in names]


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


async def test_room_lifecycle_create_join_kick_change_options_and_start(start_server, backend_env):
    server = start_server(backend_env)
    async with channel(server.address) as chan:
        ann, bob, cy, dee, eve = await guests(chan, "ann", "bob", "cy", "dee", "eve")
        room = await rooms.create_room(ann, "koudian", QUICK, stake=100, rounds=2, auto_start=False)
        assert len(room.code) == 6 and room.code.isdigit() and room.share == f"qipai://room/{room.code}"
        assert room.state == OPEN and room.seats == 4 and room.version == 1
        assert [(m.player_id, m.seat, m.host) for m in room.members] == [(ann.player_id, 0, True)]

        assert (await rooms.join_room(bob, room.share)).members[1].player_id == bob.player_id
        await rooms.join_room(cy, room.code)
        kicked = await rooms.kick(ann, room.code, cy.player_id)
        assert cy.player_id not in [m.player_id for m in kicked.members]
        denied = await refused(rooms.kick(bob, room.code, ann.player_id))
        assert denied.code() == grpc.StatusCode.PERMISSION_DENIED

        await rooms.set_ready(bob, room.code)
        changed = await rooms.change_room(ann, room.code, {**QUICK, "base_score": 2}, stake=50)
        assert changed.stake == 50 and changed.options["base_score"] == 2 and changed.rounds == 2
        assert not any(m.ready for m in changed.members)  # a change resets everyone's ready
        bad = await refused(rooms.change_room(ann, room.code, {"base_score": 5000}))
        assert bad.code() == grpc.StatusCode.INVALID_ARGUMENT and "base_score" in bad.details()

        for p in (cy, dee):
            await rooms.join_room(p, room.code)
        full = await refused(rooms.join_room(eve, room.code))
        assert full.code() == grpc.StatusCode.FAILED_PRECONDITION and "full" in full.details()
        early = await refused(rooms.start_room(ann, room.code))
        assert early.code() == grpc.StatusCode.FAILED_PRECONDITION and "not ready" in early.details()
        for p in (ann, bob, cy, dee):
            assert (await rooms.set_ready(p, room.code)).state == OPEN  # auto_start is off
        not_host = await refused(rooms.start_room(bob, room.code))
        assert not_host.code() == grpc.StatusCode.PERMISSION_DENIED
        started = await rooms.start_room(ann, room.code)
        assert started.state == STARTED and started.table_id.startswith("table-")
        view = await bob.view(started.table_id)
        assert view.seat == 1 and len(view.players) == 4
        # Everyone said ready in the room: the first hand is dealt with no Game/Ready from anyone.
        assert view.status == "in_hand" and len(view.view.koudian.hand) in (13, 14)
        # The table is private: eve, not a member, may not look at it; an operator may.
        outsider = await refused(eve.view(started.table_id))
        assert outsider.code() == grpc.StatusCode.PERMISSION_DENIED
        operator = Player(chan, auth.issue(server.env["QIPAI_TOKEN_SECRET"], "olga", auth.ADMIN)[0], "olga")
        assert (await operator.view(started.table_id)).status == "in_hand"
        late = await refused(rooms.leave_room(bob, room.code))
        assert late.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_a_practice_room_starts_with_its_host_alone_and_bots_of_its_level_in_the_free_seats(
        start_server, backend_env):
    server = start_server(backend_env)
    async with channel(server.address) as chan:
        (ann,) = await guests(chan, "ann")
        room = await rooms.create_room(ann, "koudian", QUICK, bots="strong")
        assert room.bots == "strong" and room.state == OPEN
        started = await rooms.set_ready(ann, room.code)  # auto_start: everyone present is ready
        assert started.state == STARTED, started
        view = await ann.view(started.table_id)
        assert view.seat == 0 and view.status == "in_hand"
        bots = list(view.players)[1:]
        assert len(bots) == 3 and all(p.startswith("bot-strong-") for p in bots)
        bad = await refused(rooms.create_room(ann, "koudian", bots="grandmaster"))
        assert bad.code() == grpc.StatusCode.INVALID_ARGUMENT and "strong" in bad.details()


async def test_a_wrong_code_is_not_found_and_a_malformed_one_invalid(start_server, backend_env):
    server = start_server(backend_env)
    async with channel(server.address) as chan:
        ann, bob = await guests(chan, "ann", "bob")
        room = await rooms.create_room(ann, "daqi")
        wrong = f"{(int(room.code) + 1) % 1_000_000:06d}"
        missing = await refused(rooms.join_room(bob, wrong))
        assert missing.code() == grpc.StatusCode.NOT_FOUND and wrong in missing.details()
        malformed = await refused(rooms.join_room(bob, "12ab"))
        assert malformed.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_join_attempts_are_rate_limited_and_failures_counted_in_metrics(start_server, backend_env):
    metrics_port = free_port()
    server = start_server({**backend_env, "QIPAI_ROOM_JOINS_PER_MINUTE": "3",
                           "QIPAI_METRICS_PORT": str(metrics_port)})
    async with channel(server.address) as chan:
        (mallory,) = await guests(chan, "mallory")
        for guess in ("000001", "000002", "000003"):
            assert (await refused(rooms.join_room(mallory, guess))).code() in (
                grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION)
        limited = await refused(rooms.join_room(mallory, "000004"))
        assert limited.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    metrics = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
    counted = {line.split("{")[1].split("}")[0]: float(line.rsplit(" ", 1)[1])
               for line in metrics.splitlines() if line.startswith("qipai_room_join_failures_total{")}
    assert counted.get('reason="rate_limited"') == 1.0, metrics
    assert sum(counted.values()) == 4.0


async def test_a_room_nobody_acts_in_expires_and_its_code_is_freed(start_server, backend_env):
    server = start_server({**backend_env, "QIPAI_ROOM_EXPIRY_S": "2"})
    async with channel(server.address) as chan:
        ann, bob = await guests(chan, "ann", "bob")
        room = await rooms.create_room(ann, "wuhan")
        seen = [r async for r in rooms.watch_room(ann, room.code)]  # ends when the room closes
        assert [r.version for r in seen] == [1, 2] and seen[-1].state == CLOSED
        assert seen[-1].closed_reason == "expired"
        gone = await refused(rooms.join_room(bob, room.code))
        assert gone.code() == grpc.StatusCode.NOT_FOUND
        # The code is free: a new room may draw it (tests/integration/matchmaking shows one
        # that does); here every new room still gets a code no live room holds.
        codes = {(await rooms.create_room(bob, "wuhan")).code for _ in range(5)}
        assert len(codes) == 5


async def _balance(player: Player) -> int:
    reply = await ledger_pb2_grpc.LedgerStub(player.chan).GetBalance(
        ledger_pb2.GetBalanceRequest(), metadata=player.metadata)
    return int(reply.balance)


async def test_the_whole_journey_friends_meet_in_a_room_and_play_a_match_for_chips(start_server, backend_env):
    """login → check-in → create room → friends join → ready → start → a full match → balances
    changed by exactly the hands' payments → leave."""
    server = start_server(backend_env)
    async with channel(server.address) as chan:
        friends = await guests(chan, "ann", "bob", "cy", "dee")
        ann = friends[0]
        before = {}
        for p in friends:
            reply = await ledger_pb2_grpc.LedgerStub(chan).CheckIn(ledger_pb2.CheckInRequest(),
                                                                   metadata=p.metadata)
            assert reply.state.checked_in_today
            before[p.player_id] = await _balance(p)
        room = await rooms.create_room(ann, "koudian", QUICK, stake=300, rounds=1)
        lobby: list[matchmaking_pb2.Room] = []

        async def watch() -> None:
            async for r in rooms.watch_room(ann, room.code):
                lobby.append(r)

        watching = asyncio.create_task(watch())
        for p in friends[1:]:
            await rooms.join_room(p, room.share)
        for p in friends:
            await rooms.set_ready(p, room.code)
        await asyncio.wait_for(watching, 30)
        first = lobby[0].version  # the watch may begin after a join or two
        assert [r.version for r in lobby] == list(range(first, first + len(lobby)))  # every change, in order
        assert lobby[-1].version == 10  # created, 3 joins, 4 readies, starting, started
        table_id = lobby[-1].table_id
        assert lobby[-1].state == STARTED and table_id
        for p in friends:
            assert await _balance(p) == before[p.player_id] - 300  # bought in with the room's stake

        # No Game/Ready: they said ready in the room, and the first hand is dealt already.
        playing = [asyncio.create_task(play_seat(p, table_id, "greedy", seed=i, hands=1))
                   for i, p in enumerate(friends)]
        await asyncio.wait_for(asyncio.gather(*playing), 120)
        for p in friends:  # the match is over: everyone stands up
            await p.game.Leave(game_pb2.TableRequest(table_id=table_id, request_id=uuid.uuid4().hex),
                               metadata=p.metadata)

    events = await open_event_store(server.env["QIPAI_DATABASE_URL"])
    try:
        stream = await events.read_stream(table_id)
    finally:
        await events.close()
    won: dict[str, int] = defaultdict(int)
    for ev in stream:
        if ev.type == "table.HandSettled":
            for pay in ev.data["payments"]:
                won[pay["payee_player"]] += pay["chips"]
                won[pay["payer_player"]] -= pay["chips"]
    assert [e.type for e in stream].count("table.HandSettled") == 1
    async with channel(server.address) as chan:
        for p in friends:
            p.chan = chan
        async with asyncio.timeout(60):  # the ledger settles from the event log, a moment later
            while [await _balance(p) for p in friends] != [before[p.player_id] + won[p.player_id]
                                                           for p in friends]:
                await asyncio.sleep(0.2)
    assert sum(won.values()) == 0
