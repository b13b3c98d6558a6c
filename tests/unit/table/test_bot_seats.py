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


def _outcomes(level: str, hands: int) -> list[str]:
    """ann (on 托管 once her time is up) and three bots of `level` play `hands` koudian hands by
    the table's timeouts alone: each hand's outcome."""
    from engine.bots.levels import bot_id

    table = _table({"stake": 1, "claim_window_min_ms": 0})
    table = _apply(table, Sit("ann", 0))
    for seat in (1, 2, 3):
        table = _apply(table, Sit(bot_id(f"bot-m1-{seat}", level), seat, bot=True))
    table = _apply(table, Ready("ann", b"r" * 16, b"s" * 16))
    outcomes: list[str] = []
    for n in range(hands):
        seed = n.to_bytes(2, "big") * 8
        if table.status is not Status.IN_HAND:
            table = _apply(table, Timeout(table.version, seed, seed))  # the next hand is due
        while table.status is Status.IN_HAND:
            events = decide(table, Timeout(table.version, seed, seed))
            outcomes += [ev.outcome for ev in events if type(ev).__name__ == "HandEnded"]
            table = functools.reduce(evolve, events, table)
    return outcomes


def test_a_bot_seat_plays_at_the_level_its_id_names_when_its_time_is_up():
    # The 托管 default only takes a win it is handed, so easy bots draw hand after hand; strong
    # bots build their hands and win.
    assert set(_outcomes("easy", 6)) <= {"draw", "kong_draw"}
    assert set(_outcomes("strong", 6)) - {"draw", "kong_draw"}


def test_a_player_on_auto_play_keeps_the_simple_default_whatever_the_bots_play():
    table = _table()
    table = _apply(table, Sit("ann", 0))
    for seat in (1, 2, 3):
        table = _apply(table, Sit(f"bot-strong-m1-{seat}", seat, bot=True))
    table = _apply(table, Ready("ann", b"r" * 16, b"s" * 16))
    from engine.table import _auto_command

    default = object()
    assert _auto_command(table, table.rules, table.game, 0, default, b"x" * 16) is default
