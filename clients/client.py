"""A Python client of the game service over gRPC (used by bots, the terminal client, the demo,
the load benchmark and the end-to-end tests)."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import struct_pb2

from clients.deals import DealFollower, strict
from engine import rulesets
from engine.core import fairness
from engine.deal_check import HandCheck
from protocol import wire
from qipai.v1 import (
    actions_pb2,
    admin_pb2,
    admin_pb2_grpc,
    auth_pb2,
    auth_pb2_grpc,
    game_pb2,
    game_pb2_grpc,
)

# Calls go round-robin over every node given; a call that finds its node gone (UNAVAILABLE: killed,
# draining; CANCELLED: cut off by a node shutting down) is retried on another. Safe because every
# write carries an idempotency id.
_SERVICE_CONFIG = json.dumps({
    "loadBalancingConfig": [{"round_robin": {}}],
    "methodConfig": [{
        "name": [{"service": "qipai.v1.Game"}, {"service": "qipai.v1.Auth"}, {"service": "qipai.v1.Admin"}],
        "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.1s", "maxBackoff": "1s",
                        "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE", "CANCELLED"]},
    }],
})


def channel(address: str, own_connection: bool = False) -> grpc.aio.Channel:
    """A channel to one node (`host:port`) or several (`host:port,host:port`); calls of many
    players may share it. Channels to one address share one connection unless
    `own_connection` (a load generator standing for many devices)."""
    target = address if "," not in address else "ipv4:" + address
    return grpc.aio.insecure_channel(target, options=[
        ("grpc.max_receive_message_length", 8 << 20),
        ("grpc.service_config", _SERVICE_CONFIG),
        ("grpc.enable_retries", 1),
        ("grpc.use_local_subchannel_pool", int(own_connection)),
    ])


@dataclass
class Player:
    """One logged-in player on a shared channel."""

    chan: grpc.aio.Channel
    token: str
    player_id: str = ""
    nonces: dict[str, bytes] = field(default_factory=dict)  # fair deals: commitment -> nonce

    @classmethod
    async def guest(cls, chan: grpc.aio.Channel, name: str) -> Player:
        reply = await auth_pb2_grpc.AuthStub(chan).GuestLogin(auth_pb2.GuestLoginRequest(name=name))
        return cls(chan, reply.token, reply.player_id)

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),)

    @property
    def game(self) -> game_pb2_grpc.GameStub:
        return game_pb2_grpc.GameStub(self.chan)

    @property
    def admin(self) -> admin_pb2_grpc.AdminStub:
        return admin_pb2_grpc.AdminStub(self.chan)

    async def create_table(self, ruleset: str, options: dict[str, Any] | None = None,
                           request_id: str = "") -> game_pb2.TableResponse:
        opts = struct_pb2.Struct()
        opts.update(options or {})
        return await self.game.CreateTable(
            game_pb2.CreateTableRequest(ruleset=ruleset, options=opts, request_id=request_id),
            metadata=self.metadata)

    async def join(self, table_id: str, seat: int | None = None) -> game_pb2.TableResponse:
        req = game_pb2.JoinRequest(table_id=table_id, request_id=uuid.uuid4().hex)
        if seat is not None:
            req.seat = seat
        return await self.game.Join(req, metadata=self.metadata)

    async def ready(self, table_id: str, request_id: str | None = None,
                    commit: bool = False) -> game_pb2.TableResponse:
        """Ready for the next hand; with `commit`, adding a fresh nonce of this player's to the
        deal (then something must `reveal` it when the table asks: `play_seat` does)."""
        req = game_pb2.TableRequest(table_id=table_id, request_id=request_id or uuid.uuid4().hex)
        if commit:
            nonce = secrets.token_bytes(fairness.NONCE_BYTES)
            req.nonce_commitment = fairness.nonce_commitment(nonce)
            self.nonces[req.nonce_commitment] = nonce
        return await self.game.Ready(req, metadata=self.metadata)

    async def reveal(self, table_id: str, nonce: bytes) -> game_pb2.TableResponse:
        """Reveal the nonce this player committed to, once the table sent DealCommitted."""
        return await _persisting(self.game.Ready, game_pb2.TableRequest(
            table_id=table_id, request_id=uuid.uuid4().hex, nonce=nonce), metadata=self.metadata)

    async def take_back(self, table_id: str) -> game_pb2.TableResponse:
        """Take this player's seat back from auto-play (托管); nothing happens if it is not on it."""
        return await self.game.TakeBack(game_pb2.TableRequest(
            table_id=table_id, request_id=uuid.uuid4().hex), metadata=self.metadata)

    async def view(self, table_id: str) -> game_pb2.ViewResponse:
        return await self.game.GetView(game_pb2.TableRequest(table_id=table_id), metadata=self.metadata)

    async def act(self, table_id: str, action: actions_pb2.Action, action_id: str | None = None,
                  expected_version: int | None = None) -> game_pb2.TableResponse:
        req = game_pb2.ActRequest(table_id=table_id, action_id=action_id or uuid.uuid4().hex,
                                  action=action)
        if expected_version is not None:
            req.expected_version = expected_version
        return await self.game.Act(req, metadata=self.metadata)

    def watch(self, table_id: str, from_version: int = 0, with_views: bool = False) -> Any:
        return self.game.Watch(game_pb2.WatchRequest(table_id=table_id, from_version=from_version,
                                                     with_views=with_views),
                               metadata=self.metadata)


async def seat_players(players: list[Player], table_id: str, commit: bool = False) -> None:
    """Everyone sits (in list order: player i takes seat i) and declares ready (with `commit`,
    each with a nonce: `play_seat` reveals it)."""
    for i, p in enumerate(players):
        await p.join(table_id, i)
    await asyncio.gather(*(p.ready(table_id, commit=commit) for p in players))


Ack = Callable[[str, game_pb2.TableResponse, float], None]

_CUT_OFF = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
STUCK_STREAM_S = 5.0


async def _persisting(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`call(*args, **kwargs)`, again after a short wait when its connection was cut (a node
    killed, draining, or shedding load: a gRPC server cancels calls beyond its queue of pending
    ones): safe for reads and for writes carrying their idempotency id. The waits are jittered,
    so that players cut off together do not all come back together."""
    attempts = 8  # about 20 s in all: longer than a dead node's tables take to move
    for attempt in range(attempts):
        try:
            return await call(*args, **kwargs)
        except grpc.aio.AioRpcError as err:
            if err.code() not in _CUT_OFF or attempt == attempts - 1:
                raise
            await asyncio.sleep(min(0.2 * 2**attempt, 5.0) * random.uniform(0.5, 1.5))
    raise AssertionError("unreachable")


async def play_seat(player: Player, table_id: str, bot: str = "greedy", seed: int = 0,
                    hands: int = 1, idle_s: float = 2.0, on_ack: Ack | None = None,
                    pace_s: float = 0.0, stop: asyncio.Event | None = None,
                    on_deal: Callable[[HandCheck], None] = strict) -> int:
    """Act for this player's seat with a bot until `hands` hands have ended (or the match is
    over, or `stop` is set); returns how many actions it sent. Like a real client it learns its
    view from its Watch stream (asking GetView only at the start, after a rejected action, and
    when the stream has been quiet for `idle_s`, then twice as long each time it was only
    quiet). `on_ack` hears of every acknowledged action
    (its id, the reply, the seconds it took); `pace_s` is a mean think time: the seat acts half
    to one and a half times that long after it learns of a decision (a human pace for load
    tests; never all seats of all tables in step).

    Fair deals (docs/fairness.md): the seat commits a fresh nonce with each Ready, reveals it
    when the table asks, and checks every hand's deal when it ends; `on_deal` hears of each
    check (by default a mismatch raises DealMismatch).

    Actions are not pinned to the version they were decided on: the server checks that each is
    legal when it arrives, and a pinned version would make simultaneous answers (every seat
    passing in a bid window) conflict with each other."""
    loop = asyncio.get_running_loop()
    rng = random.Random(seed)
    reply = await _persisting(player.view, table_id)
    rs = rulesets.get(reply.view.WhichOneof("ruleset"))
    choose = rs.bots[bot]
    latest = reply
    news = asyncio.Event()
    seen = 0  # from the start: the deal checks need the table's options and commitments
    heard = loop.time()  # when the stream last brought anything
    deals = DealFollower(reply.seat, player.nonces, lambda n: player.reveal(table_id, n), on_deal)

    async def pump() -> None:
        # A stream that breaks (its node died or drained) resumes from the last version seen.
        nonlocal seen, latest, heard
        while True:
            stream = player.watch(table_id, seen, with_views=True)
            try:
                async for update in stream:
                    seen, heard = update.version, loop.time()
                    deals.update(update)
                    if update.HasField("view") and update.view.version > latest.version:
                        latest = update.view
                        news.set()
            except grpc.aio.AioRpcError as err:
                if err.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
                                      grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL):
                    raise
            finally:
                stream.cancel()
            await asyncio.sleep(0.2)

    async def refresh() -> None:
        nonlocal latest
        fresh = await _persisting(player.view, table_id)
        if fresh.version >= latest.version:
            latest = fresh

    pumping = asyncio.create_task(pump())
    sent = ended = 0
    acted_on, floor = None, 0
    quiet_s, quiet_mark = idle_s, heard
    in_hand = reply.status == "in_hand"
    try:
        while reply.status != "match_over" and not (stop is not None and stop.is_set()):
            if in_hand and reply.status == "waiting_for_hand":
                ended += 1
                if ended >= hands:
                    break
                await _persisting(player.ready, table_id, uuid.uuid4().hex, commit=True)
            in_hand = reply.status == "in_hand"
            # A view older than this seat's last acknowledged action (one still in flight when
            # it acted) offers a decision already spent.
            if reply.legal_actions and reply is not acted_on and reply.version >= floor:
                legal = [wire.action_to_command(a, reply.seat) for a in reply.legal_actions]
                cmd = choose(engine_view(rs, reply), legal, rng)
                if cmd is not None:
                    if pace_s:
                        await asyncio.sleep(pace_s * rng.uniform(0.5, 1.5))
                    action_id = uuid.uuid4().hex
                    try:
                        started = loop.time()
                        action = wire.command_to_action(cmd)
                        ack = await _persisting(player.act, table_id, action, action_id=action_id)
                        sent += 1
                        acted_on, floor = reply, ack.version  # its decision is spent
                        if on_ack is not None:
                            on_ack(action_id, ack, loop.time() - started)
                    except grpc.aio.AioRpcError as err:
                        # Somebody moved first (a claim resolved, the clock dealt): look again.
                        if err.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                            raise
                        await refresh()
            if pumping.done():
                pumping.result()  # the watch failed for good: raise its error
            if latest is reply:
                try:
                    await asyncio.wait_for(news.wait(), quiet_s)
                except TimeoutError:
                    if loop.time() - heard > quiet_s:
                        # A quiet stream may be a stuck one (its node frozen): look directly,
                        # and look again twice as late each time, so that a slow table is not
                        # asked again and again. A stream silent for long while the table
                        # moved on starts over (a busy node's stream merely lags).
                        await refresh()
                        if latest.version > seen and loop.time() - heard > STUCK_STREAM_S:
                            pumping.cancel()
                            pumping = asyncio.create_task(pump())
                        quiet_s, quiet_mark = min(quiet_s * 2, 30.0), heard
                news.clear()
            if heard > quiet_mark:  # the stream spoke since: back to the first wait
                quiet_s = idle_s
            reply = latest
    finally:
        pumping.cancel()
    return sent


def engine_view(rs: Any, reply: game_pb2.ViewResponse) -> Any:
    return wire.view_from_proto(rs.name, reply.view, rs.view_type)


async def admin_replay(admin: Player, table_id: str) -> list[admin_pb2.ReplayStep]:
    return [step async for step in admin.admin.Replay(admin_pb2.ReplayRequest(table_id=table_id),
                                                       metadata=admin.metadata)]
