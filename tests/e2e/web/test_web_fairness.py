"""Fair deals checked by the web table (docs/fairness.md): the page's TypeScript gives what the
Python code gives, and a page that played a hand in Chromium shows "deal verified" — or, once the
server's seed was changed in the database, the mismatch naming the hand."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from tests.e2e.web.conftest import ROOT
from tests.e2e.web.fairness_vectors import (
    apply,
    deck_vectors,
    mt_vectors,
    vectors,
    verdicts,
    worked_example,
)
from tests.e2e.web.test_web_table import DESKTOP, PHONE, play_from_page, server_record

VECTORS = ROOT / "web" / "test" / "fairness-vectors.json"


def test_the_checked_in_vectors_are_what_the_python_code_gives_now() -> None:
    kept = json.loads(VECTORS.read_text())
    fresh = {"mt": mt_vectors(), "decks": deck_vectors(), "example": worked_example()}
    assert {k: kept[k] for k in fresh} == fresh, (
        "regenerate: .venv/bin/python -m tests.e2e.web.fairness_vectors > web/test/fairness-vectors.json")
    # Hands recorded earlier still get the same verdicts (the engine's play may have changed since).
    for hand in kept["hands"]:
        assert verdicts(hand["seat"], hand["events"]) == hand["verdicts"]
        for t in hand["tampered"]:
            assert verdicts(hand["seat"], apply(hand["events"], t)) == t["verdicts"], (hand["ruleset"], t["what"])


def run_node_tests(vectors_file: Path) -> None:
    done = subprocess.run(["node", "scripts/test.mjs"], cwd=ROOT / "web", capture_output=True, text=True,
                          timeout=300, env={**os.environ, "FAIRNESS_VECTORS": str(vectors_file)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout and "# pass 9" in done.stdout  # fairness.test.mjs 6, history.test.mjs 3


def test_the_page_s_mersenne_twister_decks_hashes_and_verdicts_are_python_s(built_page: Path) -> None:
    run_node_tests(VECTORS)


def test_the_page_checks_hands_the_engine_plays_today_as_python_does(built_page: Path, tmp_path: Path) -> None:
    today = tmp_path / "vectors.json"
    today.write_text(json.dumps(vectors(), ensure_ascii=False))
    run_node_tests(today)


@pytest.mark.e2e
async def test_the_page_commits_a_nonce_reveals_it_and_shows_deal_verified_at_the_hand_s_end(web) -> None:
    played = await play_from_page(web, "koudian", DESKTOP, "koudian-deal-verified")
    assert "hand 1: deal verified" in played["dealCheck"]
    steps, verified = await server_record(web.address, played["table_id"])
    assert verified.ok, list(verified.problems)
    seat = played["seat"]
    committed = next(json.loads(s.data_json) for s in steps if s.type == "table.DealCommitted")
    assert len(committed["commitments"][seat]) == 64  # the page committed with its Ready
    assert any(s.type == "table.NonceRevealed" and json.loads(s.data_json)["seat"] == seat for s in steps)
    revealed = next(json.loads(s.data_json) for s in steps if s.type == "table.DealRevealed")
    assert seat not in revealed["server_nonce_seats"]  # its own nonce went into the deck


@pytest.mark.e2e
async def test_a_server_seed_changed_in_the_database_makes_the_page_show_the_mismatch_naming_the_hand(
        web, postgres_url: str, pg_schema: str) -> None:
    def tamper(table_id: str) -> None:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            changed = conn.execute(sql.SQL(
                "UPDATE {}.events SET data = jsonb_set(data, '{{seed}}', %s::jsonb) "
                "WHERE stream_id = %s AND type = 'table.DealRevealed' AND data->>'hand' = '1'"
            ).format(sql.Identifier(pg_schema)), (json.dumps("ab" * 16), table_id)).rowcount
        assert changed == 1

    async def changed_seed(table_id: str) -> None:
        tamper(table_id)

    played = await play_from_page(web, "daqi", PHONE, "daqi-deal-mismatch", recheck=changed_seed)
    assert "hand 1: deal verified" in played["dealCheck"]  # as the hand was played
    assert "hand 1: DEAL MISMATCH: the server seed and salt do not match the server's commitment" \
        in played["recheck"]
    _, verified = await server_record(web.address, played["table_id"])
    assert any(p.startswith("hand 1: DEAL MISMATCH") for p in verified.problems)
