"""Fair deals over gRPC (docs/fairness.md): clients add nonces, check every hand they played from
their own Watch events, and catch a server seed changed after the fact, as Verify does."""

from __future__ import annotations

import asyncio
import json
import subprocess
from urllib.parse import parse_qs, urlsplit

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


@pytest.fixture(scope="module")
def server(module_production_env, module_start_server):
    """One server for the tests here that each make their own tables."""
    return module_start_server(module_production_env)


async def fair_table(chan, ruleset: str, options: dict | None = None) -> tuple[str, list[Player]]:
    """A table whose players sit and Ready with a nonce each (play_seat reveals them)."""
    players = [await Player.guest(chan, f"p{i}") for i in range(SEATS[ruleset])]
    table_id = (await players[0].create_table(ruleset, options or FAST[ruleset])).table_id
    for i, p in enumerate(players):
        await p.join(table_id, i)
    await asyncio.gather(*(p.ready(table_id, commit=True) for p in players))
    return table_id, players


async def test_every_client_checks_every_hand_of_20_tables_of_each_ruleset(twenty_tables):
    # The shared run (tests/e2e/twenty_tables.py): every seat of 20 tables of each ruleset
    # committed a nonce with its Ready, revealed it when asked and checked its hand's deal.
    run = twenty_tables
    assert sorted(t.ruleset for t in run.tables) == sorted(list(SEATS) * TABLES)
    async with channel(run.address) as chan:
        for table in run.tables:
            assert len(table.checks) == SEATS[table.ruleset]
            for seat, got in enumerate(table.checks):
                assert [str(c) for c in got] == ["hand 1: deal verified"], (table.table_id, seat)
                assert got[0].server_nonce_seats == ()  # every seat's own nonce went in
            # Verify checks every deal the table made (one whose next hand began by itself
            # before everyone stood up made two).
            steps = await admin_replay(admin_of(chan), table.table_id)
            dealt = sum(s.type == "table.DealRevealed" for s in steps)
            result = await verify(chan, table.table_id)
            assert result.ok and result.deals_checked == dealt >= 1, list(result.problems)


async def test_a_server_seed_changed_in_the_database_fails_every_check_and_verify_naming_the_hand(
        server, postgres_url):
    pg_schema = parse_qs(urlsplit(server.env["QIPAI_DATABASE_URL"]).query)["schema"][0]
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
