"""What an attacker tries against a real `qipai serve`: public token keys, absurd options, endless
guests and tables, tables nobody plays, reused command ids, lookups of tables that do not exist."""

from __future__ import annotations

import asyncio
import os
import re
import stat
import subprocess
from collections import Counter

import grpc
import psycopg
import pytest
import redis
from google.protobuf import struct_pb2
from google.protobuf.internal.encoder import _VarintBytes
from psycopg import sql

from clients.client import Player, channel
from protocol.tokens import ADMIN, checked, issue
from qipai.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    auth_pb2,
    auth_pb2_grpc,
    game_pb2,
    game_pb2_grpc,
    ledger_pb2,
    ledger_pb2_grpc,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
)
from tests.e2e.conftest import QIPAI, free_port, wait_healthy

pytestmark = pytest.mark.e2e


# -- secrets ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["dev-insecure-secret", "change-me-in-production", "short"])
def test_beyond_loopback_a_default_or_weak_key_refuses_to_start_with_one_clear_line(start_server, key):
    env = {"QIPAI_GRPC_ADDR": f"0.0.0.0:{free_port()}", "QIPAI_TOKEN_SECRET": key}
    server = start_server(env, wait=False)
    assert server.process.wait(30) == 2
    lines = server.log().strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0]
    assert "refusing to listen on 0.0.0.0" in lines[0] and "QIPAI_TOKEN_SECRET" in lines[0]


def test_a_weak_key_is_refused_when_any_address_qipai_listens_on_is_beyond_loopback(start_server):
    node = f"0.0.0.0:{free_port()}"
    env = {"QIPAI_GRPC_ADDR": f"127.0.0.1:{free_port()}", "QIPAI_NODE_ADDR": node,
           "QIPAI_TOKEN_SECRET": "short"}
    server = start_server(env, wait=False)
    assert server.process.wait(30) == 2
    assert f"refusing to listen on {node}" in server.log()


def test_beyond_loopback_a_strong_key_serves(start_server):
    port = free_port()
    server = start_server({"QIPAI_GRPC_ADDR": f"0.0.0.0:{port}", "QIPAI_TOKEN_SECRET": "7f" * 32},
                          wait=False)
    wait_healthy(f"127.0.0.1:{port}")
    assert server.process.poll() is None


def test_without_a_key_the_server_generates_one_kept_private_under_var_and_signs_with_it(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("QIPAI_")}
    env.update({"QIPAI_GRPC_ADDR": f"127.0.0.1:{port}"})
    process = subprocess.Popen([str(QIPAI), "serve"], cwd=tmp_path, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(f"127.0.0.1:{port}")
        key_file = tmp_path / "var" / "token-secret"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        key = key_file.read_text().strip()
        assert len(key) >= 32 and key != "dev-insecure-secret"

        async def login() -> str:
            async with channel(f"127.0.0.1:{port}") as chan:
                return (await Player.guest(chan, "ann")).token

        identity, _ = checked(key, asyncio.run(login()))
        assert identity.player_id.startswith("guest-")
        token = subprocess.run([str(QIPAI), "token", "--admin"], cwd=tmp_path, env=env, check=True,
                               capture_output=True, text=True).stdout.strip()
        assert checked(key, token)[0].is_admin  # the tools sign with the same key
    finally:
        process.terminate()
        process.wait(15)


# -- options in range --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def options_server(module_start_server):
    """One server for every out-of-range option: each is refused, nothing is made."""
    return module_start_server()


@pytest.mark.parametrize(("ruleset", "options", "named"), [
    ("koudian", {"base_score": 1e300}, "'base_score' must be an integer in 1..1000"),
    ("koudian", {"turn_timeout_ms": 1e300}, "'turn_timeout_ms' must be an integer in 100..600000"),
    # Either option may be named first: a Struct's fields have no order.
    ("koudian", {"turn_timeout_ms": 1, "rounds_per_match": 1e9}, "'(turn_timeout_ms|rounds_per_match)'"),
    ("koudian", {"turn_timeout_ms": 1000, "rounds_per_match": 1e9}, "'rounds_per_match' must be an integer in 1..64"),
    ("daqi", {"base": -5}, "'base' must be an integer in 1..1000"),
    ("daqi", {"play_timeout_ms": 2.5}, "'play_timeout_ms'"),
])
async def test_an_option_outside_its_range_is_invalid_argument_naming_it_and_its_range(
        options_server, ruleset, options, named):
    server = options_server
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await ann.create_table(ruleset, options)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert re.search(named, err.value.details())


# -- limits per address and per player --------------------------------------------------------


async def test_guest_logins_from_one_address_are_rate_limited(start_server):
    server = start_server({"QIPAI_GUEST_LOGINS_PER_MINUTE": "5"})
    async with channel(server.address) as chan:
        for n in range(5):
            await Player.guest(chan, f"g{n}")
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await Player.guest(chan, "one-too-many")
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "guest logins per minute" in err.value.details()


async def test_a_player_may_have_only_so_many_unfinished_tables(start_server):
    server = start_server({"QIPAI_OPEN_TABLES_PER_PLAYER": "2"})
    async with channel(server.address) as chan:
        ann, bob = await Player.guest(chan, "ann"), await Player.guest(chan, "bob")
        await ann.create_table("koudian")
        await ann.create_table("daqi", request_id="second")
        again = await ann.create_table("daqi", request_id="second")
        assert again.duplicate
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await ann.create_table("koudian")
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "2 unfinished tables" in err.value.details()
        await bob.create_table("koudian")  # a limit per player, not per server


async def test_an_abandoned_table_ends_and_frees_its_creators_place(start_server):
    server = start_server({"QIPAI_ABANDON_AFTER_S": "1", "QIPAI_OPEN_TABLES_PER_PLAYER": "1"})
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        table_id = (await ann.create_table("koudian")).table_id
        for _ in range(100):
            view = await ann.game.GetView(game_pb2.TableRequest(table_id=table_id), metadata=ann.metadata)
            if view.status == "match_over":
                break
            await asyncio.sleep(0.1)
        assert view.status == "match_over"
        await ann.create_table("koudian")  # the closed table no longer counts


# -- idempotency --------------------------------------------------------------------------------


async def test_a_request_id_reused_for_another_table_is_already_exists_naming_the_stored_one(start_server):
    server = start_server()
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        first = await ann.create_table("koudian", request_id="r1")
        assert (await ann.create_table("koudian", request_id="r1")).table_id == first.table_id
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await ann.create_table("daqi", request_id="r1")
    assert err.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert "'r1'" in err.value.details() and '"ruleset": "koudian"' in err.value.details()


# -- nothing written for tables that do not exist ---------------------------------------------


async def test_looking_up_a_table_that_does_not_exist_writes_nothing(start_server, production_env,
                                                                      postgres_url, pg_schema):
    server = start_server(production_env)
    missing = "table-0000000000000000"
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        for call, request in ((ann.game.GetView, game_pb2.TableRequest(table_id=missing)),
                              (ann.game.Join, game_pb2.JoinRequest(table_id=missing)),
                              (ann.game.Ready, game_pb2.TableRequest(table_id=missing))):
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await call(request, metadata=ann.metadata)
            assert err.value.code() == grpc.StatusCode.NOT_FOUND
    client = redis.Redis.from_url(server.env["QIPAI_REDIS_URL"])
    try:
        assert list(client.scan_iter(match=f"{production_env['QIPAI_LIVE_NAMESPACE']}*{missing}*")) == []
    finally:
        client.close()
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute(sql.SQL("SELECT count(*) FROM {}.stream_fences WHERE stream_id = %s").format(
            sql.Identifier(pg_schema)), (missing,)).fetchone()
    assert rows == (0,)


# -- values no option may hold ------------------------------------------------------------------


def _nested(depth: int) -> struct_pb2.Struct:
    """An options Struct `depth` levels deep: {"a": {"a": ... {"a": 1}}}."""
    value: dict[str, object] = {"a": 1}
    for _ in range(depth - 1):
        value = {"a": value}
    struct = struct_pb2.Struct()
    struct.update(value)
    return struct


def _options(items: dict[str, object]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(items)
    return struct


NOT_OPTIONS = [
    pytest.param(_options({"base_score": float("nan")}), r"options\.base_score: nan is not a finite number",
                 id="nan"),
    pytest.param(_options({"base_score": float("inf")}), r"options\.base_score: inf is not a finite", id="inf"),
    pytest.param(_options({"x": [1, float("-inf")]}), r"options\.x\[1\]: -inf is not a finite", id="-inf-in-list"),
    pytest.param(_options({"base_score": 1e300}), r"'base_score' must be an integer in 1\.\.1000", id="huge"),
    pytest.param(_nested(30), r"options\.a\.a\.a\.a: nested deeper than 4 levels", id="30-deep"),
    pytest.param(_options({"x": "y" * 300}), r"options\.x: a string longer than 256", id="long-string"),
]


@pytest.mark.parametrize(("options", "named"), NOT_OPTIONS)
async def test_a_non_finite_or_oversize_or_too_deep_option_is_invalid_argument_naming_its_field_everywhere(
        options_server, options, named):
    server = options_server
    admin = (("authorization", f"Bearer {issue('e2e-secret', 'operator', ADMIN)[0]}"),)
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        rooms = matchmaking_pb2_grpc.MatchmakingStub(chan)
        room = await rooms.CreateRoom(matchmaking_pb2.CreateRoomRequest(ruleset="koudian"),
                                      metadata=ann.metadata)
        calls = [
            ann.game.CreateTable(game_pb2.CreateTableRequest(ruleset="koudian", options=options),
                                 metadata=ann.metadata),
            rooms.CreateRoom(matchmaking_pb2.CreateRoomRequest(ruleset="koudian", options=options),
                             metadata=ann.metadata),
            rooms.ChangeRoom(matchmaking_pb2.ChangeRoomRequest(code=room.code, options=options),
                             metadata=ann.metadata),
            ann.admin.CreateFixedTable(admin_pb2.CreateFixedTableRequest(
                ruleset="koudian", options=options, deal_json="{}"), metadata=admin),
        ]
        for call in calls:
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await call
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
            assert re.search(named, err.value.details()), err.value.details()


@pytest.mark.parametrize("depth", [20, 5_000])
async def test_a_deal_nested_too_deep_is_invalid_argument_naming_deal_json(options_server, depth):
    server = options_server
    admin = (("authorization", f"Bearer {issue('e2e-secret', 'operator', ADMIN)[0]}"),)
    async with channel(server.address) as chan:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await admin_pb2_grpc.AdminStub(chan).CreateFixedTable(admin_pb2.CreateFixedTableRequest(
                ruleset="koudian", deal_json='{"hands": ' + "[" * depth + "]" * depth + "}"),
                metadata=admin)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "deal_json: nested deeper than 8 levels" in err.value.details()


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (no client library builds a Struct this deep)."""
    return _VarintBytes(number << 3 | 2) + _VarintBytes(len(payload)) + payload


async def test_options_nested_deeper_than_protobuf_decodes_are_invalid_argument_not_unknown(options_server):
    struct = _field(1, _field(1, b"a") + _field(2, b"\x20\x01"))  # {"a": true}
    for _ in range(50):  # {"a": {"a": ...}}: Struct > map entry > Value > Struct, 150 levels
        struct = _field(1, _field(1, b"a") + _field(2, _field(5, struct)))
    async with channel(options_server.address) as chan:
        ann = await Player.guest(chan, "ann")
        create = chan.unary_unary("/qipai.v1.Game/CreateTable", request_serializer=bytes,
                                  response_deserializer=bytes)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await create(_field(1, b"koudian") + _field(2, struct), metadata=ann.metadata)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "CreateTableRequest" in err.value.details()


# -- limits that hold under concurrency and behind proxies ----------------------------------------

C = grpc.StatusCode


def _codes(results: list[object]) -> Counter[str]:
    """How many calls of a gather(return_exceptions=True) answered with each status."""
    return Counter(r.code().name if isinstance(r, grpc.aio.AioRpcError) else "OK" for r in results)


async def test_the_limits_hold_under_60_concurrent_calls_from_one_player_or_address(start_server,
                                                                                    production_env):
    server = start_server({**production_env, "QIPAI_GUEST_LOGINS_PER_MINUTE": "25",
                           "QIPAI_ROOM_JOINS_PER_MINUTE": "20", "QIPAI_ROOM_JOINS_PER_MINUTE_PER_ADDRESS": "50",
                           "QIPAI_LEDGER_CALLS_PER_MINUTE": "15"})
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        rooms = matchmaking_pb2_grpc.MatchmakingStub(chan)
        ledger = ledger_pb2_grpc.LedgerStub(chan)
        tables = await asyncio.gather(*(ann.create_table("koudian") for _ in range(60)),
                                      return_exceptions=True)
        assert _codes(tables) == {"OK": 20, "RESOURCE_EXHAUSTED": 40}  # QIPAI_OPEN_TABLES_PER_PLAYER
        bob = await Player.guest(chan, "bob")
        made = await asyncio.gather(*(rooms.CreateRoom(matchmaking_pb2.CreateRoomRequest(ruleset="koudian"),
                                                       metadata=bob.metadata) for _ in range(60)),
                                    return_exceptions=True)
        assert _codes(made) == {"OK": 10, "RESOURCE_EXHAUSTED": 50}  # QIPAI_ROOM_CREATES_PER_MINUTE
        balances = await asyncio.gather(*(ledger.GetBalance(ledger_pb2.GetBalanceRequest(),
                                                            metadata=ann.metadata) for _ in range(60)),
                                        return_exceptions=True)
        assert _codes(balances) == {"OK": 15, "RESOURCE_EXHAUSTED": 45}
        joins = await asyncio.gather(*(rooms.JoinRoom(matchmaking_pb2.JoinRoomRequest(code="000000"),
                                                      metadata=ann.metadata) for _ in range(60)),
                                     return_exceptions=True)
        assert _codes(joins) == {"NOT_FOUND": 20, "RESOURCE_EXHAUSTED": 40}
        # WatchRoom is a code lookup like a join: by 60 players of one address, at most the
        # address's budget (50, 20 spent by the joins above) is answered.
        players = await asyncio.gather(*(Player.guest(chan, f"p{n}") for n in range(22)))
        watches = await asyncio.gather(*(_first_room(rooms, players[n % 22]) for n in range(60)),
                                       return_exceptions=True)
        assert _codes(watches) == {"NOT_FOUND": 30, "RESOURCE_EXHAUSTED": 30}
        logins = await asyncio.gather(*(Player.guest(chan, "g") for _ in range(60)), return_exceptions=True)
        assert _codes(logins) == {"OK": 1, "RESOURCE_EXHAUSTED": 59}  # 24 of 25 were spent above


async def _first_room(rooms: matchmaking_pb2_grpc.MatchmakingStub, player: Player) -> object:
    async for room in rooms.WatchRoom(matchmaking_pb2.RoomRequest(code="000000"), metadata=player.metadata):
        return room
    return None


async def test_guests_behind_a_trusted_proxy_are_limited_per_real_address_ipv6_by_its_64(start_server):
    server = start_server({"QIPAI_GUEST_LOGINS_PER_MINUTE": "3", "QIPAI_TRUSTED_PROXIES": "127.0.0.1"})
    async with channel(server.address) as chan:
        auth_stub = auth_pb2_grpc.AuthStub(chan)

        async def login(forwarded: str) -> str:
            try:
                await auth_stub.GuestLogin(auth_pb2.GuestLoginRequest(name="g"),
                                           metadata=(("x-forwarded-for", forwarded),))
            except grpc.aio.AioRpcError as err:
                return err.code().name
            return "OK"

        first = [await login("203.0.113.1") for _ in range(4)]
        assert first == ["OK", "OK", "OK", "RESOURCE_EXHAUSTED"]
        assert await login("203.0.113.2") == "OK"  # another browser behind the same proxy
        # What a client writes in front of the proxy's entry is not believed.
        assert await login("203.0.113.2, 203.0.113.1") == "RESOURCE_EXHAUSTED"
        same_64 = [await login(f"2001:db8:0:7::{n}") for n in range(1, 5)]
        assert same_64 == ["OK", "OK", "OK", "RESOURCE_EXHAUSTED"]
        assert await login("2001:db8:0:8::1") == "OK"


async def test_x_forwarded_for_from_an_untrusted_peer_is_ignored(start_server):
    server = start_server({"QIPAI_GUEST_LOGINS_PER_MINUTE": "2"})
    async with channel(server.address) as chan:
        auth_stub = auth_pb2_grpc.AuthStub(chan)
        for n in range(2):
            await auth_stub.GuestLogin(auth_pb2.GuestLoginRequest(name="g"),
                                       metadata=(("x-forwarded-for", f"203.0.113.{n}"),))
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await auth_stub.GuestLogin(auth_pb2.GuestLoginRequest(name="g"),
                                       metadata=(("x-forwarded-for", "203.0.113.99"),))
    assert err.value.code() == C.RESOURCE_EXHAUSTED


# -- Watch streams ---------------------------------------------------------------------------------


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        kb = next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))
    return kb / 1024


async def test_1500_watch_streams_of_one_player_are_refused_past_the_cap_and_memory_stays_flat(start_server):
    server = start_server({"QIPAI_WATCH_STREAMS_PER_PLAYER": "16"})
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        table_id = (await ann.create_table("koudian")).table_id
        open_streams = []

        async def watch() -> str:
            call = ann.watch(table_id, from_version=0)
            await call.initial_metadata()
            if call.done():
                return (await call.code()).name
            open_streams.append(call)
            return "OK"

        first = [await watch() for _ in range(16)]
        # The first hundred at once warm the server up to that many calls in flight (+20-30 MB,
        # once, as for any burst); the next 1,400 must cost nothing more: no stream is kept.
        rest = Counter(await asyncio.gather(*(watch() for _ in range(84))))
        before = _rss_mb(server.process.pid)
        for _ in range(14):
            rest.update(await asyncio.gather(*(watch() for _ in range(100))))
        after = _rss_mb(server.process.pid)
        assert first == ["OK"] * 16
        assert rest == {"RESOURCE_EXHAUSTED": 1484}
        assert after - before < 10, (before, after)  # on main, all accepted: +80 MB
        open_streams.pop().cancel()
        await asyncio.sleep(0.5)  # the server sees the cancel
        assert await watch() == "OK"  # a closed stream frees its place
        for call in open_streams:
            call.cancel()


async def test_a_client_that_never_reads_its_watch_is_cut_off_with_a_resumable_status(start_server):
    server = start_server()
    async with channel(server.address) as chan:
        players = [await Player.guest(chan, f"p{n}") for n in range(4)]
        table_id = (await players[0].create_table("daqi")).table_id
        # A client that never reads: it keeps no more than 1 KiB of a stream unread, so the
        # server's writes wait once that is sent.
        async with grpc.aio.insecure_channel(server.address, options=[
                ("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)]) as slow:
            call = game_pb2_grpc.GameStub(slow).Watch(game_pb2.WatchRequest(table_id=table_id),
                                                      metadata=players[0].metadata)
            await call.initial_metadata()

            async def come_and_go(player: Player) -> None:
                for _ in range(250):  # 1,500 commands, each an update: past the queue's bound
                    await player.join(table_id)
                    await player.game.Leave(game_pb2.TableRequest(table_id=table_id, request_id=os.urandom(8).hex()),
                                            metadata=player.metadata)

            await asyncio.gather(*(come_and_go(p) for p in players[1:]))
            for _ in range(300):  # the cut-off comes 10 s after the queue overflowed
                if "watch_fell_behind" in server.log() and call.done():
                    break
                await asyncio.sleep(0.1)
            got = 0
            with pytest.raises(grpc.aio.AioRpcError) as err:
                async for _ in call:
                    got += 1
        assert err.value.code() == C.UNAVAILABLE  # the client resumes from its last version
        assert "call again to resume" in err.value.details() or "from_version=" in err.value.details()
        assert got < 1500
        # The server let go of it: the table goes on, and the stream's place is free again.
        update = await anext(aiter(players[0].watch(table_id, from_version=0)))
        assert update.version > 0
