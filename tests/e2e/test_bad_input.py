"""Bad input gets a clear answer over gRPC: the right status code and a message naming the bad
part, never INTERNAL or UNKNOWN, never a hang."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from clients.client import Player, channel
from qipai.v1 import admin_pb2, auth_pb2, auth_pb2_grpc, game_pb2
from services import auth
from tests.e2e.conftest import Server, free_port, wait_healthy

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
QIPAI = Path(sys.executable).with_name("qipai")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One `make run`-style server (SQLite, in-memory live state) for every test here."""
    folder = tmp_path_factory.mktemp("bad-input")
    env = {k: v for k, v in os.environ.items() if not k.startswith("QIPAI_")}
    env.update({"QIPAI_GRPC_ADDR": f"127.0.0.1:{free_port()}", "QIPAI_TOKEN_SECRET": SECRET,
                "QIPAI_DATABASE_URL": f"sqlite:///{folder / 'events.sqlite3'}"})
    log_path = folder / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen([str(QIPAI), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    running = Server(env["QIPAI_GRPC_ADDR"], process, log_path, env)
    try:
        wait_healthy(running.address)
        yield running
    finally:
        running.stop()


async def refused(call) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    return err.value


def signed(claims_json: str) -> str:
    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    claims = b64(claims_json.encode())
    return f"{claims}.{b64(hmac.new(SECRET.encode(), claims.encode(), hashlib.sha256).digest())}"


@pytest.mark.parametrize(("claims", "says"), [
    ('{"sub":"p1","role":"player","exp":1e400}', "malformed token claims"),
    ('{"sub":["p1"],"role":"player","exp":9999999999}', "'sub' must be a non-empty string"),
    ('{"sub":"p1","role":"player","exp":9999999999,"name":{"x":1}}', "'name' must be a string"),
])
async def test_a_token_with_malformed_claims_is_unauthenticated(server, claims, says):
    async with channel(server.address) as chan:
        err = await refused(Player(chan, signed(claims)).view("table-0000000000000000"))
    assert err.code() == grpc.StatusCode.UNAUTHENTICATED and says in err.details()


@pytest.mark.parametrize("name", ["ann\x00", "\x1b[31mann", "ann\nbob", "ann\u202e"])
async def test_a_guest_name_with_control_characters_is_invalid(server, name):
    async with channel(server.address) as chan:
        err = await refused(auth_pb2_grpc.AuthStub(chan).GuestLogin(auth_pb2.GuestLoginRequest(name=name)))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "a name cannot contain control characters (found U+" in err.details()


async def test_leaving_a_table_you_are_not_at_is_refused_and_leaving_your_own_is_not(server):
    async with channel(server.address) as chan:
        ann, bob = await Player.guest(chan, "ann"), await Player.guest(chan, "bob")
        table_id = (await ann.create_table("koudian")).table_id
        await ann.join(table_id)
        leave = game_pb2.TableRequest(table_id=table_id, request_id="leave-1")
        err = await refused(bob.game.Leave(leave, metadata=bob.metadata))
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "not_seated: you are not seated at this table" in err.details()
        left = await ann.game.Leave(leave, metadata=ann.metadata)
        assert left.seat == -1 and not left.duplicate
        again = await ann.game.Leave(leave, metadata=ann.metadata)  # a retry: applied once
        assert again.duplicate and again.version == left.version


def admin_of(chan: grpc.aio.Channel) -> Player:
    return Player(chan, auth.issue(SECRET, "operator", auth.ADMIN)[0], "operator")


@pytest.mark.parametrize(("deal_json", "says"), [
    ("[]", "deal_json must be a JSON object"),
    ('"koudian"', "deal_json must be a JSON object"),
    ("{oops", "deal_json is not valid JSON"),
    ('{"hands": 5}', "deal 'hands' must list 4 hands in tile notation"),
])
async def test_a_fixed_deal_that_is_not_a_deal_is_invalid_and_says_why(server, deal_json, says):
    async with channel(server.address) as chan:
        admin = admin_of(chan)
        request = admin_pb2.CreateFixedTableRequest(ruleset="koudian", deal_json=deal_json)
        err = await refused(admin.admin.CreateFixedTable(request, metadata=admin.metadata))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and says in err.details(), err.details()


async def test_watching_from_beyond_the_tables_version_is_answered_at_once(server):
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        table_id = (await ann.create_table("koudian")).table_id
        version = (await ann.join(table_id)).version
        stream = ann.game.Watch(game_pb2.WatchRequest(table_id=table_id, from_version=1_000_000),
                                metadata=ann.metadata, timeout=10)
        err = await refused(stream.read())
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert f"from_version 1000000 is beyond your latest version {version}" in err.details()


async def test_a_huge_ruleset_name_is_not_echoed_whole(server):
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        err = await refused(ann.create_table("x" * 5000))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "ruleset" in err.details() and "xxxx" in err.details() and len(err.details()) < 300


async def test_an_unknown_ruleset_is_invalid_and_says_so(server):
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        err = await refused(ann.create_table("poker"))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "unknown ruleset 'poker'; known: koudian" in err.details()


async def test_a_bad_option_is_invalid_and_named(server):
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        err = await refused(ann.create_table("koudian", {"base_score": "x"}))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "options: koudian option 'base_score' must be an integer in 1..1000, not 'x'" in err.details()


async def test_a_table_that_does_not_exist_is_named_in_full(server):
    async with channel(server.address) as chan:
        ann = await Player.guest(chan, "ann")
        err = await refused(ann.view("table-nope"))
    assert err.code() == grpc.StatusCode.NOT_FOUND and err.details() == "no table 'table-nope'"
