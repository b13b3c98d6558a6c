"""Over gRPC: a client checks the tiles its seat was dealt and drew against the deck revealed at
the hand's end (docs/fairness.md, step 7). A server that reveals a deck following from every seed
and nonce but showed a seat other tiles (here: the stored events changed after the fact) is
caught by that seat's own check, from its own Watch stream."""

from __future__ import annotations

import asyncio
import json

import psycopg
import pytest
from psycopg import sql

from clients.client import channel, play_seat
from clients.deals import check_hand
from services.game.feed import HISTORY_REUSE_S
from tests.e2e.test_fairness import fair_table

pytestmark = pytest.mark.e2e


@pytest.fixture
def server(start_server, production_env):
    return start_server(production_env)


def _change(postgres_url: str, schema: str, table_id: str, version: int, path: list[str], value: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        changed = conn.execute(sql.SQL(
            "UPDATE {}.events SET data = jsonb_set(data, %s, %s::jsonb) WHERE stream_id = %s AND version = %s"
        ).format(sql.Identifier(schema)), ("{" + ",".join(path) + "}", json.dumps(value), table_id, version)).rowcount
    assert changed == 1


def _events(postgres_url: str, schema: str, table_id: str) -> list[tuple[int, str, dict]]:
    with psycopg.connect(postgres_url) as conn:
        return conn.execute(sql.SQL("SELECT version, type, data FROM {}.events WHERE stream_id = %s ORDER BY version")
                            .format(sql.Identifier(schema)), (table_id,)).fetchall()


async def test_a_dealt_or_drawn_tile_changed_after_the_fact_is_flagged_by_that_seat_alone(
        server, postgres_url, pg_schema):
    async with channel(server.address) as chan:
        table_id, players = await fair_table(chan, "koudian")
        await asyncio.wait_for(asyncio.gather(*(
            play_seat(p, table_id, "greedy", seed=i) for i, p in enumerate(players))), 300)
        for p in players:
            assert [str(c) for c in await check_hand(p, table_id)] == ["hand 1: deal verified"]

        events = _events(postgres_url, pg_schema, table_id)
        started = next((v, d) for v, t, d in events if t == "koudian.HandStarted")
        first = started[1]["dealt"][0][0]
        _change(postgres_url, pg_schema, table_id, started[0], ["dealt", "0", "0"], "9p" if first != "9p" else "1m")
        drawn = next((v, d) for v, t, d in events if t == "mahjong.TileDrawn" and d["seat"] == 1)
        _change(postgres_url, pg_schema, table_id, drawn[0], ["tile"], "E" if drawn[1]["tile"] != "E" else "S")

        # The server shares a stretch of history it read among the watchers that ask within
        # HISTORY_REUSE_S (a real store's events never change): the changed rows show after.
        await asyncio.sleep(HISTORY_REUSE_S + 0.5)
        checks = [[str(c) for c in await check_hand(p, table_id)] for p in players]
        assert checks[0][0].startswith("hand 1: DEAL MISMATCH: the tiles you were dealt: you were shown")
        assert checks[1][0].startswith("hand 1: DEAL MISMATCH: a tile you drew: you were shown")
        assert checks[2] == checks[3] == ["hand 1: deal verified"]  # they were shown neither tile
