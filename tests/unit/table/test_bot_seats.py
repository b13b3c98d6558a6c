"""Bots the matchmaker seats (engine/table.py `Sit(bot=True)`): played by the server from the
start, ready, and without a stack, so they never move chips."""

from __future__ import annotations

import functools
import secrets

import pytest

from engine.chips import HandSettled, StackBoughtIn
from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.table import CreateTable, Ready, Sit, Table, Timeout, decide, evolve


def _apply(table: Table, cmd) -> Table:
    return functools.reduce(evolve, decide(table, cmd), table)


def _table(options=None) -> Table:
    return _apply(Table(), CreateTable("table-t", "koudian", options or {"stake": 2}, "matchmaker"))


def test_a_bot_sits_on_auto_play_and_ready_without_buying_in():
    table = _table()
    events = decide(table, Sit("bot-m1-1", 1, bot=True))
    assert not any(isinstance(ev, StackBoughtIn) for ev in events)
    table = functools.reduce(evolve, events, table)
    assert table.seats[1] == "bot-m1-1" and 1 in table.auto and 1 in table.ready
    assert table.chips.stacks[1] == 0


def test_a_bot_id_starts_with_bot():
    with pytest.raises(RuleViolation) as caught:
        decide(_table(), Sit("guest-ann", 1, bot=True))
    assert caught.value.code == "not_a_bot"


def test_bots_sit_only_where_score_minimisation_caps_payments_at_their_empty_stack():
    with pytest.raises(RuleViolation) as caught:
        decide(_table({"score_minimisation": False}), Sit("bot-m1-1", 1, bot=True))
    assert caught.value.code == "bots_need_score_minimisation"


def test_one_player_with_three_bots_plays_a_hand_where_no_chips_move_to_or_from_a_bot():
    table = _table()
    for seat in (1, 2, 3):
        table = _apply(table, Sit(f"bot-m1-{seat}", seat, bot=True))
    table = _apply(table, Sit("ann", 0))
    table = _apply(table, Ready("ann", secrets.token_bytes(16), secrets.token_bytes(16)))
    assert table.status is Status.IN_HAND
    settled: list[HandSettled] = []
    table = _apply(table, Timeout(table.version, b"s" * 16, b"t" * 16))  # ann times out...
    while table.status is Status.IN_HAND:
        events = decide(table, Timeout(table.version, b"s" * 16, b"t" * 16))
        assert events, "the server plays every seat that owes a decision"
        settled += [ev for ev in events if isinstance(ev, HandSettled)]
        table = functools.reduce(evolve, events, table)
    assert settled and not [p for ev in settled for p in ev.payments
                            if "bot-" in p.payer_player + p.payee_player]
    assert {1, 2, 3} <= table.auto
