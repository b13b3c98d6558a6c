"""The game service over gRPC, in real processes on real Postgres and Redis."""

from __future__ import annotations

import asyncio
import json
import random
import signal

import grpc
import pytest
from grpc_status import rpc_status

from clients.client import Player, admin_replay, channel, play_seat, seat_players
from engine import rulesets
from engine import table as tables
from engine.core.messages import decode, encode
from qipai.v1 import actions_pb2, admin_pb2, common_pb2, game_pb2
from services import auth

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
# Claim windows close once decided (no minimum): bots play whole hands in these tests, and a
# window nobody is asked in would wait its minimum at every discard
# (tests/e2e/test_claim_window_observers.py holds the minimum).
FAST = {"koudian": {"turn_timeout_ms": 60_000, "claim_timeout_ms": 60_000, "claim_window_min_ms": 0},
        "daqi": {"deal_interval_ms": 0, "bid_window_ms": 0},
        "wuhan": {"turn_timeout_ms": 60_000, "claim_timeout_ms": 60_000, "claim_window_min_ms": 0},
        "jj": {"turn_timeout_ms": 60_000, "claim_timeout_ms": 60_000, "claim_window_min_ms": 0}}
SEATS = {"koudian": 4, "daqi": 5, "wuhan": 4, "jj": 4}


@pytest.fixture(scope="module")
def server(module_production_env, module_start_server):
    """One server for the tests here that each make their own tables."""
    return module_start_server(module_production_env)


def admin_of(chan: grpc.aio.Channel) -> Player:
    return Player(chan, auth.issue(SECRET, "operator", auth.ADMIN)[0], "operator")


async def new_table(chan, ruleset: str, options: dict | None = None) -> tuple[str, list[Player]]:
    players = [await Player.guest(chan, f"p{i}") for i in range(SEATS[ruleset])]
    created = await players[0].create_table(ruleset, options if options is not None else FAST[ruleset])
    await seat_players(players, created.table_id)
    return created.table_id, players


async def verify(chan, table_id: str) -> admin_pb2.VerifyResponse:
    admin = admin_of(chan)
    return await admin.admin.Verify(admin_pb2.VerifyRequest(table_id=table_id), metadata=admin.metadata)


async def test_bots_play_20_tables_of_each_ruleset_twelve_at_a_time_and_every_table_verifies(twenty_tables):
    # The shared run (tests/e2e/twenty_tables.py): bots played 20 tables of each ruleset, many at once.
    run = twenty_tables
    assert sorted(t.ruleset for t in run.tables) == sorted(list(SEATS) * 20)
    async with channel(run.address) as chan:
        for table in run.tables:
            # The next hand may have begun by itself since (between-hands timer): look at the log.
            steps = await admin_replay(admin_of(chan), table.table_id)
            assert any(s.type.endswith(".HandEnded") for s in steps), table.table_id
            result = await verify(chan, table.table_id)
            assert result.ok, list(result.problems)
            assert result.decks_checked >= 1


async def test_a_player_who_stops_acting_is_played_by_the_server_and_the_hand_ends(start_server, production_env):
    server = start_server(production_env)
    async with channel(server.address) as chan:
        table_id, players = await new_table(chan, "koudian", {"turn_timeout_ms": 200, "claim_timeout_ms": 200})
        # Seats 1-3 play; seat 0 never acts.
        await asyncio.wait_for(asyncio.gather(*(play_seat(p, table_id, "greedy", seed=i)
                                                for i, p in enumerate(players[1:]))), 300)
        assert (await verify(chan, table_id)).ok
    steps = await _replay(server.address, table_id)
    assert any(s.type == "koudian.HandEnded" for s in steps)
    assert any(s.type == "table.AutoPlaySet" and json.loads(s.data_json) == {"seat": 0, "on": True}
               for s in steps)


async def test_a_deadline_fires_after_the_service_restarts(start_server, production_env):
    server = start_server(production_env)
    async with channel(server.address) as chan:
        table_id, players = await new_table(chan, "koudian", {"turn_timeout_ms": 3000, "claim_timeout_ms": 3000})
        before = (await players[0].view(table_id)).version
    server.stop(signal.SIGTERM)
    restarted = start_server(production_env)
    async with channel(restarted.address) as chan:
        players[0].chan = chan
        for _ in range(100):
            if (await players[0].view(table_id)).version > before:
                break
            await asyncio.sleep(0.1)
        assert (await players[0].view(table_id)).version > before


async def test_the_same_action_sent_three_times_makes_one_set_of_events(server):
    async with channel(server.address) as chan:
        table_id, players = await new_table(chan, "koudian")
        view, player = await _whose_turn(players, table_id)
        action = view.legal_actions[0]
        replies = [await player.act(table_id, action, action_id="same-action") for _ in range(3)]
        assert [r.duplicate for r in replies] == [False, True, True]
        # The first answer is the version right after the move; the table's own step after it
        # (a claim window closing) is not in it, or its timing would tell who could claim. A
        # retry answers the table as it is.
        assert replies[0].version <= replies[1].version == replies[2].version
        assert (await player.view(table_id)).version == replies[2].version


async def test_two_different_actions_racing_for_one_turn_one_wins_the_other_is_told_why(server):
    async with channel(server.address) as chan:
        table_id, players = await new_table(chan, "koudian")
        view, player = await _whose_turn(players, table_id)
        # Two discards: a kong or a win first could leave the seat a discard to make after it.
        a, b = [x for x in view.legal_actions if x.mahjong.WhichOneof("kind") == "discard"][:2]
        results = await asyncio.gather(player.act(table_id, a), player.act(table_id, b),
                                       return_exceptions=True)
        ok = [r for r in results if isinstance(r, game_pb2.TableResponse)]
        failed = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
        assert len(ok) == 1 and len(failed) == 1
        assert failed[0].code() == grpc.StatusCode.FAILED_PRECONDITION
        assert _rule(failed[0]).message


async def test_a_watch_dropped_at_random_points_resumes_with_exactly_the_seats_events(server):
    async with channel(server.address) as chan:
        table_id, players = await new_table(chan, "daqi")
        watcher = players[2]
        received: list[game_pb2.TableEvent] = []
        rng = random.Random(5)

        async def flaky_watch(stop: asyncio.Event) -> None:
            while not stop.is_set():
                stream = watcher.watch(table_id, received[-1].version if received else 0)
                budget = rng.randint(1, 40)
                try:
                    async for update in stream:
                        received.extend(update.events)
                        budget -= 1
                        if budget == 0:
                            break
                finally:
                    stream.cancel()
                await asyncio.sleep(0.01)

        stop = asyncio.Event()
        watching = asyncio.create_task(flaky_watch(stop))
        await asyncio.wait_for(asyncio.gather(*(play_seat(p, table_id, "random", seed=i)
                                                for i, p in enumerate(players))), 300)
        final = (await watcher.view(table_id)).version
        for _ in range(200):
            if received and received[-1].version >= final:
                break
            await asyncio.sleep(0.05)
        stop.set()
        watching.cancel()
        expected = _redacted_log(await _replay(server.address, table_id), "daqi", seat=2)
        got = [(e.version, e.type, json.loads(e.data_json)) for e in received if e.version <= final]
        assert got == [x for x in expected if x[0] <= final]


@pytest.mark.parametrize("ruleset", ["koudian", "daqi", "jj"])
async def test_every_event_sent_to_a_seat_is_the_logs_event_redacted_for_that_seat(server, ruleset):
    async with channel(server.address) as chan:
        table_id, players = await new_table(chan, ruleset)
        streams: dict[int, list] = {i: [] for i in range(len(players))}

        async def collect(i: int, p: Player) -> None:
            async for update in p.watch(table_id, 0):
                streams[i].extend((ev.version, ev.type, json.loads(ev.data_json)) for ev in update.events)

        tasks = [asyncio.create_task(collect(i, p)) for i, p in enumerate(players)]
        await asyncio.wait_for(asyncio.gather(*(play_seat(p, table_id, "random", seed=i)
                                                for i, p in enumerate(players))), 300)
        final = (await players[0].view(table_id)).version
        for _ in range(100):
            if all(s and s[-1][0] >= final for s in streams.values()):
                break
            await asyncio.sleep(0.05)
        for t in tasks:
            t.cancel()
        log = await _replay(server.address, table_id)
        rs = rulesets.get(ruleset)
        for seat, got in streams.items():
            assert got == _redacted_log(log, ruleset, seat)
            # Seeds and decks stay secret until the hand's end reveals the deck, then the seeds.
            end = next(i for i, (_, name, data) in enumerate(got)
                       if rs.deck_reveal(decode(name, _schema(name), data)) is not None)
            for _, _, data in got[:end]:
                assert data.get("seed") is None and data.get("order") is None
            assert got[-1][1] == "table.DealRevealed"


async def test_bad_input_gets_the_right_status_and_leaves_the_table_unharmed(server):
    async with channel(server.address) as chan:
        table_id, players = await new_table(chan, "koudian")
        version = (await players[0].view(table_id)).version
        view, player = await _whose_turn(players, table_id)
        other = next(p for p in players if p is not player)
        stranger = await Player.guest(chan, "stranger")
        nobody = Player(chan, "not-a-token")
        discard = actions_pb2.Action(mahjong=actions_pb2.MahjongAction(
            discard=actions_pb2.MahjongAction.Discard(tile="1m")))

        async def code(call) -> grpc.StatusCode:
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await call
            return err.value.code()

        assert await code(nobody.view(table_id)) == grpc.StatusCode.UNAUTHENTICATED
        assert await code(stranger.act(table_id, view.legal_actions[0])) == grpc.StatusCode.PERMISSION_DENIED
        assert await code(other.act(table_id, view.legal_actions[0])) == grpc.StatusCode.FAILED_PRECONDITION
        assert await code(stranger.view("table-0000000000000000")) == grpc.StatusCode.NOT_FOUND
        assert await code(stranger.view("no-such-thing")) == grpc.StatusCode.INVALID_ARGUMENT
        assert await code(player.act(table_id, actions_pb2.Action())) == grpc.StatusCode.INVALID_ARGUMENT
        bad_tile = actions_pb2.Action()
        bad_tile.mahjong.discard.tile = "0x"
        assert await code(player.act(table_id, bad_tile)) == grpc.StatusCode.INVALID_ARGUMENT
        huge = game_pb2.ActRequest(table_id=table_id, action_id="x" * (2 << 20), action=discard)
        assert await code(player.game.Act(huge, metadata=player.metadata)) == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert await code(player.act(table_id, discard, action_id="y" * 500)) == grpc.StatusCode.INVALID_ARGUMENT
        illegal = await code(player.act(table_id, _not_held(view)))
        assert illegal == grpc.StatusCode.FAILED_PRECONDITION
        assert await code(stranger.admin.Verify(admin_pb2.VerifyRequest(table_id=table_id),
                                                metadata=stranger.metadata)) == grpc.StatusCode.PERMISSION_DENIED
        assert (await players[0].view(table_id)).version == version
        assert (await verify(chan, table_id)).ok


async def test_an_illegal_move_carries_the_rules_code_and_message(server):
    async with channel(server.address) as chan:
        table_id, players = await new_table(chan, "koudian")
        view, player = await _whose_turn(players, table_id)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await player.act(table_id, _not_held(view))
        rule = _rule(err.value)
        assert rule.code and rule.message


async def test_an_operator_reproduces_a_fixed_deal_and_replays_it(server):
    deal = json.loads(open("tests/scenarios/daqi/" + _first_scenario("daqi")).read())["deal"]
    async with channel(server.address) as chan:
        admin = admin_of(chan)
        created = await admin.admin.CreateFixedTable(admin_pb2.CreateFixedTableRequest(
            ruleset="daqi", deal_json=json.dumps(deal), request_id="r1"), metadata=admin.metadata)
        players = [await Player.guest(chan, f"p{i}") for i in range(5)]
        await seat_players(players, created.table_id)
        # daqi's dealing clock may tick between two reads: the view first, then the log holds it.
        seen = (await players[0].view(created.table_id)).version
        steps = await admin_replay(admin, created.table_id)
        assert seen in {s.version for s in steps} and steps[-1].version >= seen
        assert all(json.loads(s.state_json) for s in steps)


def _first_scenario(ruleset: str) -> str:
    import os

    return sorted(f for f in os.listdir(f"tests/scenarios/{ruleset}") if f.endswith(".json"))[0]


async def _whose_turn(players: list[Player], table_id: str):
    for _ in range(50):
        for p in players:
            view = await p.view(table_id)
            if len(view.legal_actions) >= 2:
                return view, p
        await asyncio.sleep(0.1)
    raise AssertionError("nobody can act")


def _not_held(view: game_pb2.ViewResponse) -> actions_pb2.Action:
    held = set(view.view.koudian.hand) | {view.view.koudian.drawn}
    tile = next(t for t in ("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m") if t not in held)
    return actions_pb2.Action(mahjong=actions_pb2.MahjongAction(
        discard=actions_pb2.MahjongAction.Discard(tile=tile)))


def _rule(err: grpc.aio.AioRpcError) -> common_pb2.RuleViolation:
    status = rpc_status.from_call(err)
    assert status is not None, "no rich status details"
    rule = common_pb2.RuleViolation()
    assert status.details[0].Unpack(rule)
    return rule


async def _replay(address: str, table_id: str) -> list[admin_pb2.ReplayStep]:
    async with channel(address) as chan:
        return await admin_replay(admin_of(chan), table_id)


def _redacted_log(steps, ruleset: str, seat: int) -> list[tuple[int, str, dict]]:
    """What the log says `seat` should have been sent: each event through the engine's
    redaction, numbered as the seat counts (the events it may see, from 1)."""
    return [(n, name, data) for n, (_, name, data) in enumerate(_shown(steps, ruleset, seat), 1)]


def _shown(steps, ruleset: str, seat: int) -> list[tuple[int, str, dict]]:
    """The events `seat` may see, redacted, with their table versions."""
    rs = rulesets.get(ruleset)
    out = []
    for s in steps:
        ev = decode(s.type, _schema(s.type), json.loads(s.data_json))
        shown = tables.redact(ev, seat) if s.type.startswith("table.") else rs.redact(ev, seat)
        if shown is not None:
            name, _, data = encode(shown)
            out.append((s.version, name, data))
    return out


def _schema(name: str) -> int:
    from engine.core.messages import schema_version

    return schema_version(name)



@pytest.mark.parametrize("ruleset", ["koudian", "daqi", "jj"])
async def test_a_watch_with_views_keeps_a_seat_current_with_its_own_view_only(server, ruleset):
    async with channel(server.address) as chan:
        table_id, players = await new_table(chan, ruleset)
        watcher = players[1]
        views: list[game_pb2.ViewResponse] = []

        async def collect() -> None:
            async for update in watcher.watch(table_id, 0, with_views=True):
                if update.HasField("view"):
                    views.append(update.view)

        task = asyncio.create_task(collect())
        await asyncio.wait_for(asyncio.gather(*(play_seat(p, table_id, "random", seed=i)
                                                for i, p in enumerate(players))), 300)
        final = await watcher.view(table_id)
        for _ in range(100):
            if views and views[-1].version >= final.version:
                break
            await asyncio.sleep(0.05)
        task.cancel()
        assert views and all(v.seat == 1 and v.players[1] == watcher.player_id for v in views)
        assert [v.version for v in views] == sorted({v.version for v in views})
        assert views[-1] == final  # the stream's last word is what GetView says
        # Every decision the seat made came to it on the stream: a view with legal actions.
        assert any(v.legal_actions for v in views)
