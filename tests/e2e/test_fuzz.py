"""The request fuzzer: hypothesis writes requests for every RPC of every qipai service (found in
the generated descriptors, so a new RPC is fuzzed without touching this file) — huge, negative,
empty and malformed fields, NaN and ±Inf, options and deals nested far too deep, repeated
fields (a list of many, a field sent twice), real and made-up table ids, room codes and ledger
accounts, and every kind of token — and sends them to a real `qipai serve` (Game, Matchmaking
and Ledger) on Postgres and Redis. No answer may be INTERNAL or UNKNOWN, no call may hang (a
unary call outlive its deadline; a stream neither answer nor end within its window), and the
server must be healthy and working afterwards.

`QIPAI_FUZZ_EXAMPLES` (default 200) is the number of requests per RPC.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import importlib
import json
import os
import pkgutil
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory, struct_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qipai.v1
from clients.client import Player, channel, seat_players
from engine import rulesets
from qipai.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from services import auth
from tests.conftest import drop_keys, drop_schema
from tests.e2e.conftest import server_starter

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
EXAMPLES = int(os.environ.get("QIPAI_FUZZ_EXAMPLES", "200"))
UNARY_DEADLINE_S = 10.0  # a unary answer later than this is a hang
STREAM_WINDOW_S = 5.0  # a stream that has neither answered nor ended by then hangs
# Streams that follow something (a table, a ticket, a room) and never end by themselves: their
# first answer (the initial metadata the server sends once it accepted the request, with or
# before the first message) answers the request, the rest is only news, so each is read up to
# that answer and then cancelled. Should the server fail later on, it logs `rpc_failed`, which
# fails `fuzz_server`.
FOLLOWING = {"qipai.v1.Game.Watch", "qipai.v1.Matchmaking.Queue", "qipai.v1.Matchmaking.WatchRoom"}
BAD = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
MAX_DEPTH = 4


def rpcs() -> list[MethodDescriptor]:
    """Every RPC of every service in the generated `qipai.v1` modules."""
    found: dict[str, MethodDescriptor] = {}
    for module in pkgutil.iter_modules(qipai.v1.__path__):
        if not module.name.endswith("_pb2"):
            continue
        file = importlib.import_module(f"qipai.v1.{module.name}").DESCRIPTOR
        for service in file.services_by_name.values():
            for method in service.methods:
                found[method.full_name] = method
    return [found[name] for name in sorted(found)]


# -- values --------------------------------------------------------------------------------------

INT_BOUNDS = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1), FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1), FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1), FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1), FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1), FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)  # protobuf strings are UTF-8
ODD_STRINGS = ["", " ", "\x00", "\n\r\t\x1b[2J", "table-", "table-0000000000000000", "table-\x00",
               "koudian", "daqi", "wuhan", "jj", "null", "[]", "{}", '{"hands": []}', "-1", "1e400",
               "../../etc/passwd", "'; DROP TABLE events; --", "中文名字", "🀄" * 50, "x" * 10_000,
               "y" * 600_000, "NaN", "Infinity", '{"hands": NaN}', "[" * 5_000 + "]" * 5_000,
               '{"a":' * 5_000 + "1" + "}" * 5_000]


TILES = [f"{n}{suit}" for suit in "mps" for n in range(1, 10)] + list("ESWNCFP")
CARDS = [f"{suit}{rank}" for suit in "SHCD" for rank in [*"23456789", "10", *"JQKA"]] + ["SJ", "BJ"]


def integers(kind: int) -> st.SearchStrategy[int]:
    low, high = INT_BOUNDS[kind]
    edges = [v for v in (0, 1, -1, 2, 3, 4, 5, 100, 10**9, low, high, low + 1, high - 1) if low <= v <= high]
    return st.one_of(st.sampled_from(edges), st.integers(low, high))


NON_FINITE = [float("nan"), float("inf"), float("-inf")]
DEEPEST = 30  # a Struct this deep still encodes (protobuf stops at 100 message levels, 3 a level)


def nested(depth: int, leaf: Any, as_list: bool) -> Any:
    """`leaf` inside `depth` lists or maps: [[[...leaf...]]] or {"a": {"a": ...}}."""
    for _ in range(depth):
        leaf = [leaf] if as_list else {"a": leaf}
    return leaf


def json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, -1, 2.5, 1e300, -1e300, 1e9, 2**53]),
                        st.sampled_from(NON_FINITE), st.floats(), TEXT)
    deep = st.builds(nested, st.integers(5, DEEPEST), scalars, st.booleans())
    many = st.builds(lambda v, n: [v] * n, scalars, st.sampled_from([100, 1000]))
    return mostly(st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                                st.dictionaries(TEXT, inner, max_size=3)),
                               max_leaves=8), st.one_of(deep, many))


def option_structs() -> st.SearchStrategy[struct_pb2.Struct]:
    known = st.sampled_from(["base_score", "rounds_per_match", "turn_timeout_ms", "claim_timeout_ms",
                             "seven_pairs", "deal_interval_ms", "bid_window_ms", "threshold",
                             "thresholds", "base", "play_timeout_ms", "allow_throw"])

    def build(items: dict[str, Any]) -> struct_pb2.Struct:
        struct = struct_pb2.Struct()
        struct.update(items)
        return struct

    return st.dictionaries(st.one_of(known, TEXT), json_values(), max_size=4).map(build)


@dataclass
class World:
    """What the fuzzer knows of the server: real table ids and tokens (valid ones first)."""

    tables: list[str]
    tokens: list[str | None]
    rooms: list[str]  # room codes: one the fuzzed players are in, one they are not
    players: list[str]


def mostly(usual: st.SearchStrategy[Any], other: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`usual` about two times in three, else `other`. (`one_of` would not do: hypothesis avoids
    repeating an example, so a branch with few values is soon drawn much less than the rest.)"""
    return st.integers(0, 7).flatmap(lambda n: other if n in (3, 4) else usual)


def strings(world: World, name: str = "") -> st.SearchStrategy[str]:
    """Strings for a field called `name`: mostly what such a field holds (so a request gets past
    the first check), else anything."""
    anything = st.one_of(st.sampled_from(ODD_STRINGS), TEXT)
    fitting = {
        "ruleset": st.sampled_from(rulesets.available()),
        "table_id": st.sampled_from(world.tables),
        "deal_json": json_values().map(json.dumps),
        "code": st.sampled_from([*world.rooms, f"qipai://room/{world.rooms[0]}", "000000"]),
        "player_id": st.sampled_from(world.players),
        "account": st.sampled_from([*(f"player/{p}" for p in world.players), "house", "player/",
                                    "table/x/seat/0"]),
        "currency": st.sampled_from(["chips", "", "gold"]),
        "time_zone": st.sampled_from(["Asia/Shanghai", "UTC", "Mars/Olympus", "../../etc/localtime"]),
        "request_id": st.sampled_from(["r1", "r2", "a1"]),  # few ids: reuse is what to try
        "action_id": st.sampled_from(["r1", "r2", "a1"]),
        "name": st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40),
        "tile": st.sampled_from(TILES), "low": st.sampled_from(TILES), "cards": st.sampled_from(CARDS),
    }.get(name)
    return anything if fitting is None else mostly(fitting, anything)


def scalar(field: FieldDescriptor, world: World) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind in INT_BOUNDS:
        return integers(kind)
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.one_of(st.sampled_from([0.0, -1.0, 1e300, *NON_FINITE]), st.floats())
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_STRING:
        return strings(world, field.name)
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=64)
    if kind == FieldDescriptor.TYPE_ENUM:
        return st.one_of(st.sampled_from([v.number for v in field.enum_type.values]), st.integers(-3, 1000))
    raise AssertionError(f"unhandled field type {kind} of {field.full_name}")


def messages(desc: Descriptor, world: World, depth: int = 0) -> st.SearchStrategy[Any]:
    """Messages of type `desc`: every field maybe set, one member of each oneof at most; now and
    then two such merged, as a request that sends its fields twice reads (a scalar's last value
    wins, repeated fields add up)."""
    one = _message(desc, world, depth)
    if depth > 0:
        return one
    return mostly(one, st.tuples(one, one).map(lambda pair: _merged(*pair)))


def _merged(first: Any, second: Any) -> Any:
    first.MergeFrom(second)
    return first


def _message(desc: Descriptor, world: World, depth: int) -> st.SearchStrategy[Any]:
    if desc.full_name == "google.protobuf.Struct":
        return option_structs()
    cls = message_factory.GetMessageClass(desc)

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        msg = cls()
        chosen = {oneof.name: draw(mostly(st.sampled_from(list(oneof.fields)), st.none())) for oneof in desc.oneofs}
        for field in desc.fields:
            oneof = field.containing_oneof
            if oneof is not None and chosen[oneof.name] is not field:
                continue
            if oneof is None and not draw(mostly(st.just(True), st.just(False))):
                continue
            nested = field.type == FieldDescriptor.TYPE_MESSAGE
            if nested and depth >= MAX_DEPTH:
                continue
            values = (messages(field.message_type, world, depth + 1) if nested
                      else scalar(field, world))
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                _fill_map(draw, msg, field, world, depth)
            elif field.is_repeated:
                drawn = draw(mostly(st.lists(values, max_size=3),
                                    st.builds(lambda v, n: [v] * n, values, st.sampled_from([50, 500]))))
                for value in drawn:
                    if nested:
                        getattr(msg, field.name).add().CopyFrom(value)
                    else:
                        getattr(msg, field.name).append(value)
            elif nested:
                getattr(msg, field.name).CopyFrom(draw(values))
            else:
                setattr(msg, field.name, draw(values))
        return msg

    return build()


def _fill_map(draw: st.DrawFn, msg: Any, field: FieldDescriptor, world: World, depth: int) -> None:
    key_field = field.message_type.fields_by_name["key"]
    value_field = field.message_type.fields_by_name["value"]
    target = getattr(msg, field.name)
    for _ in range(draw(st.integers(0, 2))):
        key = draw(scalar(key_field, world))
        if value_field.type == FieldDescriptor.TYPE_MESSAGE:
            target[key].CopyFrom(draw(messages(value_field.message_type, world, depth + 1)))
        else:
            target[key] = draw(scalar(value_field, world))


# -- tokens --------------------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed(claims: str, secret: str = SECRET) -> str:
    """A token whose claims are any text, correctly signed: the server must still judge them."""
    body = _b64(claims.encode())
    return f"{body}.{_b64(hmac.new(secret.encode(), body.encode(), hashlib.sha256).digest())}"


def tokens(world: World) -> st.SearchStrategy[str | None]:
    claims = st.fixed_dictionaries({}, optional={
        "sub": json_values(), "role": st.one_of(st.sampled_from(["player", "admin", ""]), json_values()),
        "name": json_values(), "exp": st.one_of(st.sampled_from([0, -1, 2**63, 1e300, 4102444800]),
                                                json_values())})
    bad = st.one_of(
        st.sampled_from(world.tokens[4:]),
        claims.map(lambda c: signed(json.dumps(c))),
        st.sampled_from(["{", "[]", '"x"', "null", '{"sub":"a","role":"admin","exp":1e400}']).map(signed),
        st.sampled_from([t for t in world.tokens if t]).map(lambda t: t[:-2] + "AA"),  # tampered
        st.sampled_from(["", ".", "a.b", "Bearer", "x" * 5000, "~!@#$%^&*()"]),  # header-safe
    )
    return mostly(st.sampled_from(world.tokens[:4]), bad)  # so most requests get past the door


# -- the server -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory, postgres_url: str, redis_url: str) -> Iterator[str]:
    """One server for the whole fuzz run."""
    tmp = tmp_path_factory.mktemp("fuzz")
    schema = "fuzz_" + os.urandom(6).hex()
    env = {"QIPAI_DATABASE_URL": f"{postgres_url}{'&' if '?' in postgres_url else '?'}schema={schema}",
           "QIPAI_REDIS_URL": redis_url, "QIPAI_LIVE_NAMESPACE": schema, "QIPAI_LOG_LEVEL": "info",
           # Every request comes from this one address: the per-address limits would refuse the
           # later RPCs' fuzzing before it reached what it tests (test_abuse tests the limits).
           "QIPAI_ROOM_JOINS_PER_MINUTE_PER_ADDRESS": "1000000"}
    try:
        with server_starter(tmp) as start:
            server = start(env)
            yield server.address
            failures = [line for line in server.log().splitlines()
                        if "rpc_failed" in line or "raised by servicer method" in line]
            assert not failures, "the server logged internal errors:\n" + "\n".join(failures[:20])
    finally:
        drop_schema(postgres_url, schema)
        drop_keys(redis_url, f"{schema}:")


@pytest.fixture
def world(fuzz_server: str) -> World:
    """Fresh tables (one mid-hand, one waiting) and players for each RPC's fuzzing, so what
    one RPC's fuzzing did (everyone left) does not blunt the next one's."""
    return asyncio.run(_populate(fuzz_server))


async def _populate(address: str) -> World:
    async with channel(address) as chan:
        rooms = matchmaking_pb2_grpc.MatchmakingStub(chan)
        players = [await Player.guest(chan, f"fuzz{i}") for i in range(4)]
        playing = (await players[0].create_table("koudian", {"turn_timeout_ms": 600_000,
                                                             "claim_timeout_ms": 600_000})).table_id
        await seat_players(players, playing)
        waiting = (await players[1].create_table("daqi")).table_id
        for p in (players[0], players[2]):  # the players whose tokens are fuzzed sit at both tables
            await p.join(waiting)
        stranger = await Player.guest(chan, "stranger")
        theirs = await rooms.CreateRoom(matchmaking_pb2.CreateRoomRequest(ruleset="daqi"),
                                        metadata=players[1].metadata)
        for p in (players[0], players[2]):
            await rooms.JoinRoom(matchmaking_pb2.JoinRoomRequest(code=theirs.code), metadata=p.metadata)
        elsewhere = await rooms.CreateRoom(matchmaking_pb2.CreateRoomRequest(ruleset="koudian"),
                                           metadata=stranger.metadata)
    admin = auth.issue(SECRET, "operator", auth.ADMIN)[0]
    expired = auth.issue(SECRET, "old", auth.PLAYER, ttl_s=-10)[0]
    forged = auth.issue("not-the-key", "operator", auth.ADMIN)[0]
    return World(tables=[playing, waiting],  # the first four tokens are valid
                 tokens=[admin, players[0].token, players[2].token, stranger.token, None, expired, forged],
                 rooms=[theirs.code, elsewhere.code],
                 players=[p.player_id for p in (*players, stranger)])


# -- the fuzzing ------------------------------------------------------------------------------


def _call(chan: grpc.Channel, method: MethodDescriptor, request: Any, token: str | None) -> grpc.StatusCode:
    path = f"/{method.containing_service.full_name}/{method.name}"
    response = message_factory.GetMessageClass(method.output_type)
    metadata = () if token is None else (("authorization", f"Bearer {token}"),)
    if method.server_streaming:
        stream = chan.unary_stream(path, request_serializer=type(request).SerializeToString,
                                   response_deserializer=response.FromString)
        call = stream(request, metadata=metadata, timeout=STREAM_WINDOW_S)
        try:
            if method.full_name in FOLLOWING:
                call.initial_metadata()  # returns once the server answered, or the call ended
                if not call.done():
                    return grpc.StatusCode.OK  # accepted: following, as it should
                return call.code()  # ended: refused, or DEADLINE_EXCEEDED: never answered
            for _ in call:
                pass
        except grpc.RpcError as err:
            return err.code()  # DEADLINE_EXCEEDED: a stream that should end did not
        finally:
            call.cancel()
        return grpc.StatusCode.OK
    unary = chan.unary_unary(path, request_serializer=type(request).SerializeToString,
                             response_deserializer=response.FromString)
    try:
        unary(request, metadata=metadata, timeout=UNARY_DEADLINE_S)
    except grpc.RpcError as err:
        return err.code()
    return grpc.StatusCode.OK



METHODS = rpcs()


def test_the_fuzzer_finds_every_rpc_of_every_service():
    names = {m.full_name for m in METHODS}
    assert {"qipai.v1.Auth.GuestLogin", "qipai.v1.Game.Act", "qipai.v1.Game.Watch",
            "qipai.v1.Admin.Replay", "qipai.v1.Matchmaking.CreateRoom", "qipai.v1.Matchmaking.WatchRoom",
            "qipai.v1.Ledger.GetBalance", "qipai.v1.Ledger.Grant"} <= names


def test_a_stream_that_never_answers_is_a_hang_and_one_that_accepts_and_follows_is_not():
    """The "…or hangs" check can fail for a streaming RPC: a Watch that neither answers (no
    initial metadata, no message) nor ends within the window is DEADLINE_EXCEEDED."""
    from concurrent import futures

    watch = next(m for m in METHODS if m.full_name == "qipai.v1.Game.Watch")
    request_type = message_factory.GetMessageClass(watch.input_type)

    def silent(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        while context.is_active():  # says nothing until the client gives up
            time.sleep(0.05)
        yield from ()

    def following(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        context.send_initial_metadata(())  # accepted; news would follow
        while context.is_active():
            time.sleep(0.05)
        yield from ()

    for behaviour, expected in ((silent, grpc.StatusCode.DEADLINE_EXCEEDED), (following, grpc.StatusCode.OK)):
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        handler = grpc.unary_stream_rpc_method_handler(behaviour, request_deserializer=request_type.FromString)
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("qipai.v1.Game", {"Watch": handler})])
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
                assert _call(chan, watch, request_type(), None) == expected, behaviour.__name__
        finally:
            server.stop(0)


@pytest.mark.parametrize("method", METHODS, ids=[m.full_name for m in METHODS])
def test_no_request_gets_an_internal_or_unknown_answer_or_hangs(fuzz_server, world, method):
    address = fuzz_server
    seen: list[tuple[str, str, str]] = []
    codes: Counter[str] = Counter()

    with grpc.insecure_channel(address, options=[("grpc.max_send_message_length", 4 << 20)]) as chan:

        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(request=messages(method.input_type, world), token=tokens(world))
        def one(request: Any, token: str | None) -> None:
            code = _call(chan, method, request, token)
            codes[code.name] += 1
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                seen.append(("hang", str(request)[:300], str(token)[:80]))
            elif code in BAD:
                seen.append((code.name, str(request)[:300], str(token)[:80]))
            assert code not in BAD and code != grpc.StatusCode.DEADLINE_EXCEEDED, (code, request, token)

        one()
    print(f"{method.full_name}: {dict(codes.most_common())}")
    assert not seen


def test_the_server_is_healthy_and_works_after_the_fuzzing(fuzz_server):
    address = fuzz_server
    with grpc.insecure_channel(address) as chan:
        reply = health_pb2_grpc.HealthStub(chan).Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING

    async def play() -> str:
        async with channel(address) as achan:
            ann = await Player.guest(achan, "after")
            table_id = (await ann.create_table("koudian")).table_id
            await ann.join(table_id, 0)
            return (await ann.view(table_id)).status

    assert asyncio.run(play()) == "waiting_for_hand"
