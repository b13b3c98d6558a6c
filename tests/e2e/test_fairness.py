"""Fair deals over gRPC (docs/fairness.md): clients add nonces, check every hand they played from
their own Watch events, and catch a server seed changed after the fact, as Verify does."""

from __future__ import annotations

import asyncio
import json
import subprocess

import psycopg
import pytest
from psycopg import sql

from clients.client import Player, admin_replay, channel, play_seat
from clients.deals import check_hand
from engine.deal_check import HandCheck
from services.game.feed import HISTORY_REUSE_S
from tests.e2e.conftest import QIPAI
from tests.e2e.test_game import FAST, SEATS, admin_of, verify

pytestmark = pytest.mark.e2e

TABLES = 20


def check_hand_cli(server, table_id: str, token: str, hand: int) -> subprocess.CompletedProcess:
    return subprocess.run([QIPAI, "check-hand", table_id, "--hand", str(hand)],
                          env={**server.env, "QIPAI_TOKEN": token}, capture_output=True, text=True,
                          timeout=60)


@pytest.fixture
def server(start_server, production_env):
    return start_server(production_env)


async def fair_table(chan, ruleset: str, options: dict | None = None) -> tuple[str, list[Player]]:
    """A table whose players sit and Ready with a nonce each (play_seat reveals them)."""
    players = [await Player.guest(chan, f"p{i}") for i in range(SEATS[ruleset])]
    table_id = (await players[0].create_table(ruleset, options or FAST[ruleset])).table_id
    for i, p in enumerate(players):
        await p.join(table_id, i)
    await asyncio.gather(*(p.ready(table_id, commit=True) for p in players))
    return table_id, players


async def test_every_client_checks_every_hand_of_20_tables_of_each_ruleset(server):
    async with channel(server.address) as chan:
        checks: dict[tuple[str, int], list[HandCheck]] = {}

        # A few tables at a time: each seat must reveal within the server's 5 s of the last
        # commitment, and 60 tables' clients starting at once in one process on a loaded
        # machine can take longer than that to open their streams (they would all be
        # recorded as withheld, which is the protocol working, not what this test is about).
        at_once = asyncio.Semaphore(6)

        async def play(n: int, ruleset: str) -> tuple[str, list[Player]]:
            # Each table's players follow it from their Ready on, as real clients do.
            async with at_once:
                table_id, players = await fair_table(chan, ruleset)
                await asyncio.gather(*(
                    play_seat(p, table_id, "greedy", seed=n * 10 + i,
                              on_deal=checks.setdefault((table_id, i), []).append)
                    for i, p in enumerate(players)))
            return table_id, players

        tables = await asyncio.wait_for(asyncio.gather(*(
            play(n, ruleset) for n, ruleset in enumerate(["koudian", "daqi", "jj"] * TABLES))), 600)
        for table_id, players in tables:
            for i in range(len(players)):
                got = checks[table_id, i]
                assert [str(c) for c in got] == ["hand 1: deal verified"], (table_id, i)
                assert got[0].server_nonce_seats == ()  # every seat's own nonce went in
            result = await verify(chan, table_id)
            assert result.ok and result.deals_checked == 1, list(result.problems)


async def test_a_server_seed_changed_in_the_database_fails_every_check_and_verify_naming_the_hand(
        server, postgres_url, pg_schema):
    async with channel(server.address) as chan:
        table_id, players = await fair_table(chan, "koudian")
        await asyncio.wait_for(asyncio.gather(*(
            play_seat(p, table_id, "greedy", seed=i, hands=2) for i, p in enumerate(players))), 300)
        steps = await admin_replay(admin_of(chan), table_id)
        assert sum(s.type == "table.DealRevealed" for s in steps) >= 2
        assert [str(c) for c in await check_hand(players[0], table_id)][:2] == [
            "hand 1: deal verified", "hand 2: deal verified"]
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            changed = conn.execute(sql.SQL(
                "UPDATE {}.events SET data = jsonb_set(data, '{{seed}}', %s::jsonb) "
                "WHERE stream_id = %s AND type = 'table.DealRevealed' AND data->>'hand' = '2'"
            ).format(sql.Identifier(pg_schema)), (json.dumps("ab" * 16), table_id)).rowcount
        assert changed == 1
        # The server shares a stretch of history it read among the watchers that ask within
        # HISTORY_REUSE_S (a real store's events never change): the changed rows show after.
        await asyncio.sleep(HISTORY_REUSE_S + 0.5)
        for p in players:
            checks = {c.hand: c for c in await check_hand(p, table_id)}
            assert checks[1].ok
            assert str(checks[2]).startswith("hand 2: DEAL MISMATCH: the server seed and salt do not match")
        # The command line, with nothing but the player's own token.
        cli = await asyncio.to_thread(check_hand_cli, server, table_id, players[1].token, 2)
        assert cli.returncode == 1 and f"{table_id} hand 2: DEAL MISMATCH" in cli.stdout
        cli = await asyncio.to_thread(check_hand_cli, server, table_id, players[1].token, 1)
        assert cli.returncode == 0 and f"{table_id} hand 1: deal verified" in cli.stdout
        result = await verify(chan, table_id)
        assert not result.ok
        assert any(problem.startswith("hand 2: DEAL MISMATCH") for problem in result.problems)


async def test_a_seat_that_never_reveals_gets_a_server_nonce_and_the_hand_goes_on(server):
    async with channel(server.address) as chan:
        table_id, players = await fair_table(chan, "koudian", {"turn_timeout_ms": 200,
                                                               "claim_timeout_ms": 200})
        # Seat 0 committed with its Ready but never reveals (nor plays: the server does).
        checks: list[HandCheck] = []
        await asyncio.wait_for(asyncio.gather(*(
            play_seat(p, table_id, "greedy", seed=i, on_deal=checks.append)
            for i, p in enumerate(players[1:], start=1))), 300)
        assert [c.server_nonce_seats for c in checks] == [(0,)] * 3
        assert all(c.ok for c in checks)
        steps = await admin_replay(admin_of(chan), table_id)
        assert any(s.type == "table.NonceWithheld" and json.loads(s.data_json) == {"seat": 0}
                   for s in steps)
