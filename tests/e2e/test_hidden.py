"""Streams, seats and private tables keep hidden information hidden (docs/hidden-information.md):
a seat's versions count only what it may see, nobody takes a seat mid-match, private tables show
themselves only to their members and operators, and a table's fixed deal reaches no stream."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import struct_pb2

from clients.client import Player, channel
from qipai.v1 import actions_pb2, admin_pb2, game_pb2
from tests.e2e.conftest import Server, server_starter
from tests.e2e.test_game import admin_of
from tests.e2e.test_hidden_audit import MAHJONG_HANDS, SLOW, WALL

pytestmark = pytest.mark.e2e

@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One embedded-default server for the module: each test makes its own table."""
    with server_starter(tmp_path_factory.mktemp("hidden")) as start:
        yield start()


# Seat 2 holds a pair of N: seat 0's first discard opens a claim window only seat 2 sees.
DEAL = {"dealer": 0, "hands": MAHJONG_HANDS, "wall": WALL, "tail": ""}


async def fixed_table(chan: grpc.aio.Channel) -> tuple[str, list[Player]]:
    admin = admin_of(chan)
    opts = struct_pb2.Struct()
    opts.update(SLOW)
    created = await admin.admin.CreateFixedTable(admin_pb2.CreateFixedTableRequest(
        ruleset="koudian", options=opts, deal_json=json.dumps(DEAL), request_id=uuid.uuid4().hex),
        metadata=admin.metadata)
    players = [await Player.guest(chan, f"p{s}") for s in range(4)]
    for s, p in enumerate(players):
        await p.join(created.table_id, s)
    for p in players:
        await p.ready(created.table_id)
    return created.table_id, players


def mahjong(kind: str, tile: str = "") -> actions_pb2.Action:
    action = actions_pb2.Action()
    target = getattr(action.mahjong, kind)
    target.SetInParent()
    if tile:
        target.tile = tile
    return action


async def updates(player: Player, table_id: str, from_version: int = 0) -> list[game_pb2.TableUpdate]:
    """The seat's Watch from `from_version` up to its current version."""
    latest = (await player.view(table_id)).version
    got: list[game_pb2.TableUpdate] = []
    call = player.watch(table_id, from_version)
    try:
        async for update in call:
            got.append(update)
            if update.version >= latest:
                return got
    finally:
        call.cancel()
    return got


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


async def claim_window_seen_by_seat_2_only(table_id: str, players: list[Player]) -> None:
    """Seat 0 discards N; seat 2 passes on its pong (both hidden from the others); the window
    then closes at its minimum (claim_window_min_ms)."""
    await players[0].act(table_id, mahjong("discard", "N"))
    await players[2].act(table_id, mahjong("pass"))
    for _ in range(200):
        if (await players[0].view(table_id)).view.koudian.phase != "claims":
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the claim window did not close")


async def test_a_seats_versions_count_only_the_events_it_may_see_with_no_gap(server):
    async with channel(server.address) as chan:
        table_id, players = await fixed_table(chan)
        await claim_window_seen_by_seat_2_only(table_id, players)
        for seat in (0, 1, 3):
            got = await updates(players[seat], table_id)
            numbers = [e.version for u in got for e in u.events]
            assert numbers == list(range(1, len(numbers) + 1)), seat
            assert got[-1].version == numbers[-1] == (await players[seat].view(table_id)).version
        table_version = len([s async for s in admin_of(chan).admin.Replay(
            admin_pb2.ReplayRequest(table_id=table_id), metadata=admin_of(chan).metadata)])
        assert (await players[0].view(table_id)).version < table_version  # some were hidden


async def test_resuming_a_watch_from_any_of_its_versions_repeats_nothing_and_misses_nothing(server):
    async with channel(server.address) as chan:
        table_id, players = await fixed_table(chan)
        await claim_window_seen_by_seat_2_only(table_id, players)
        whole = [(e.version, e.type, e.data_json) for u in await updates(players[0], table_id)
                 for e in u.events]
        for start in range(len(whole)):
            rest = [(e.version, e.type, e.data_json)
                    for u in await updates(players[0], table_id, start) for e in u.events]
            assert rest == whole[start:], start
        err = await refused(updates(players[0], table_id, len(whole) + 1))
        assert err.code() is grpc.StatusCode.INVALID_ARGUMENT


async def test_expected_version_is_the_callers_own_and_a_conflict_names_only_that(server):
    async with channel(server.address) as chan:
        table_id, players = await fixed_table(chan)
        before = (await players[1].view(table_id)).version
        await claim_window_seen_by_seat_2_only(table_id, players)
        view = await players[1].view(table_id)
        seen = [e for u in await updates(players[1], table_id, before) for e in u.events]
        assert view.version == before + len(seen)  # the hidden window and answer are not counted
        discard = next(a for a in view.legal_actions if a.mahjong.WhichOneof("kind") == "discard")
        err = await refused(players[1].act(table_id, discard, expected_version=before))
        assert f"at version {view.version}," in err.details()
        done = await players[1].act(table_id, discard, expected_version=view.version)
        # After the move, the table's own step may follow it (a claim window closing).
        assert view.version < done.version <= (await players[1].view(table_id)).version


async def test_nobody_takes_a_seat_its_player_left_mid_hand_and_reads_its_hand(server):
    async with channel(server.address) as chan:
        table_id, players = await fixed_table(chan)
        await players[3].game.Leave(game_pb2.TableRequest(table_id=table_id, request_id="l3"),
                                    metadata=players[3].metadata)
        spectator = await Player.guest(chan, "eve")
        err = await refused(spectator.join(table_id, 3))
        assert err.code() is grpc.StatusCode.FAILED_PRECONDITION and "kept" in err.details()
        await players[1].game.Leave(game_pb2.TableRequest(table_id=table_id, request_id="l1"),
                                    metadata=players[1].metadata)
        err = await refused(players[1].join(table_id, 3))
        assert err.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert (await players[1].view(table_id)).seat == -1  # a member still looks on, as a spectator


async def test_a_private_table_shows_itself_only_to_its_members_and_operators(server):
    async with channel(server.address) as chan:
        table_id, players = await fixed_table(chan)
        outsider = await Player.guest(chan, "eve")
        err = await refused(outsider.view(table_id))
        assert err.code() is grpc.StatusCode.PERMISSION_DENIED
        err = await refused(updates(outsider, table_id))
        assert err.code() is grpc.StatusCode.PERMISSION_DENIED
        operator = await admin_of(chan).view(table_id)
        assert operator.seat == -1 and operator.status == "in_hand"
        watched = await asyncio.wait_for(updates(admin_of(chan), table_id), 10)
        assert watched and all(json.loads(e.data_json).get("dealt", [()] * 4) == [[]] * 4
                               for u in watched for e in u.events if e.type.endswith("HandStarted"))


async def test_no_stream_shows_the_fixed_deal_a_table_was_created_with(server):
    async with channel(server.address) as chan:
        table_id, players = await fixed_table(chan)
        for watcher in (*players, admin_of(chan)):
            first = (await updates(watcher, table_id))[0].events[0]
            assert first.type == "table.Created" and json.loads(first.data_json)["fixed_deal"] == ""
