"""The lobby's text of a table: rendered again only when more than its version changed, and
always what rendering it whole would give."""

from __future__ import annotations

import dataclasses
import json

from engine import table as tables
from engine.table import RULES, CreateTable, Ready, Sit, Table
from services.game.lobby import public_view


def rendered(table: Table) -> bytes:
    return json.dumps({
        "table_id": table.table_id, "ruleset": table.ruleset, "version": table.seen_by(None),
        "seats": list(table.seats), "ready": sorted(table.ready), "auto": sorted(table.auto),
        "status": table.status.value, "hands_started": table.hands_started,
    }, ensure_ascii=False, separators=(",", ":")).encode()


def test_the_lobby_text_follows_every_change_of_the_table() -> None:
    table = Table()
    commands = [CreateTable('t-"version":0,-座', "koudian", {}, "ann", rules=RULES),
                *(Sit(p, s) for s, p in enumerate(["ann", "bob", "cai", "dan"])),
                *(Ready(p, bytes(16), bytes(16)) for p in ["ann", "bob", "cai", "dan"])]
    seen = set()
    for command in commands:
        for event in tables.decide(table, command):
            table = tables.evolve(table, event)
            assert public_view(table) == rendered(table)
            seen.add(public_view(table))
    assert len(seen) > 8  # seats, readiness, status and version all moved
    again = dataclasses.replace(table, auto=frozenset({2}))  # the same version, more on auto-play
    assert public_view(again) == rendered(again) != public_view(table)
    assert public_view(table) == rendered(table)
