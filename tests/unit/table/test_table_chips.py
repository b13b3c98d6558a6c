"""The table records its chips: a buy-in on sitting down, each hand settled in chips capped by
积分最小化, the stack back to the player on leaving (engine/table.py with engine/chips.py)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from engine.chips import HandSettled, StackBoughtIn, StackCashedOut, Stakes
from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.table import (
    CreateTable,
    Leave,
    PlayerLeft,
    PlayerSeated,
    Ready,
    Sit,
    Table,
    Timeout,
    decide,
    evolve,
)

PLAYERS = ["ann", "bob", "cy", "dee"]


def run(table: Table, cmd: Any) -> tuple[Table, list[Any]]:
    events = decide(table, cmd)
    return functools.reduce(evolve, events, table), events


def koudian(**chips: Any) -> Table:
    table, _ = run(Table(), CreateTable("t1", "koudian", {"seven_pairs": True, **chips}, "ann"))
    return table


def seated_and_ready(table: Table, seed: int = 1) -> Table:
    for p in PLAYERS:
        table, _ = run(table, Sit(p))
    for n, p in enumerate(PLAYERS):
        table, _ = run(table, Ready(p, bytes([seed, n]) * 8, b"salt"))
    assert table.status is Status.IN_HAND
    return table


def finish_hand(table: Table) -> tuple[Table, list[Any]]:
    """Let every decision time out until the hand ends (the server's 托管 plays it)."""
    seen: list[Any] = []
    for step in range(2000):
        table, events = run(table, Timeout(table.version, bytes([step % 256]) * 16, b"s" * 16))
        seen += events
        if table.status is not Status.IN_HAND:
            return table, seen
    raise AssertionError("the hand did not end")


def test_the_chip_options_are_the_tables_and_recorded_when_it_is_created():
    table = koudian(stake=5, buy_in=700)
    assert table.chips.stakes == Stakes(stake=5, buy_in=700)
    assert koudian().chips.stakes.chips_to_sit == 100


def test_a_bad_chip_option_is_a_bad_option():
    with pytest.raises(RuleViolation) as caught:
        koudian(stake=-1)
    assert caught.value.code == "bad_options" and "'stake'" in caught.value.message


def test_at_a_free_table_sitting_down_brings_no_chips():
    table, events = run(koudian(stake=0), Sit("ann"))
    assert events == [PlayerSeated(0, "ann"), StackBoughtIn(0, "ann", 0, 1)]


def test_sitting_down_records_the_buy_in_of_the_seats_stack():
    table, events = run(koudian(stake=2), Sit("ann"))
    assert events == [PlayerSeated(0, "ann"), StackBoughtIn(0, "ann", 200, 1)]
    table, events = run(table, Sit("bob", seat=2))
    assert events[-1] == StackBoughtIn(2, "bob", 200, 2) and table.chips.stacks == (200, 0, 200, 0)


def test_a_finished_hand_is_settled_in_chips_right_after_it_ends_and_the_stacks_follow():
    table, events = finish_hand(seated_and_ready(koudian(stake=2)))
    ended = next(i for i, ev in enumerate(events) if type(ev).__name__ == "HandEnded")
    settled = events[ended + 1]
    assert isinstance(settled, HandSettled) and settled.ruleset == "koudian" and settled.hand == 1
    result = table.rules.hand_result(table.game)
    assert sum(p.chips for p in settled.payments) == sum(d for d in result.deltas if d > 0) * 2
    assert sum(table.chips.stacks) == 800 and min(table.chips.stacks) >= 0
    for p in settled.payments:
        assert (p.payer_player, p.payee_player) == (PLAYERS[p.payer], PLAYERS[p.payee])


def test_score_minimisation_caps_each_payment_by_the_stacks_at_the_table():
    # A 1-chip buy-in: no winner can take more than 1 chip from each loser.
    table, events = finish_hand(seated_and_ready(koudian(stake=10, buy_in=1)))
    settled = [ev for ev in events if isinstance(ev, HandSettled)]
    assert all(p.chips <= 1 for ev in settled for p in ev.payments)
    assert sum(table.chips.stacks) == 4 and min(table.chips.stacks) >= 0


def test_leaving_between_hands_returns_the_stack_then_frees_the_seat():
    table, _ = finish_hand(seated_and_ready(koudian()))
    stack = table.chips.stacks[1]
    table, events = run(table, Leave("bob"))
    assert events == [StackCashedOut(1, "bob", stack, 2), PlayerLeft(1, "bob")]
    assert table.chips.stacks[1] == 0 and table.seats[1] is None


def test_leaving_mid_hand_returns_the_stack_when_the_hand_ends_and_the_seat_waits_till_then():
    table = seated_and_ready(koudian())
    table, events = run(table, Leave("bob"))
    assert events == [PlayerLeft(1, "bob")]
    with pytest.raises(RuleViolation):
        run(table, Sit("eve", seat=1))
    table, events = finish_hand(table)
    settled = next(ev for ev in events if isinstance(ev, HandSettled))
    cashed = [ev for ev in events if isinstance(ev, StackCashedOut)]
    after = 100 + sum(p.chips for p in settled.payments if p.payee == 1) - sum(
        p.chips for p in settled.payments if p.payer == 1)
    assert cashed == [StackCashedOut(1, "bob", after, 2)]
    assert table.chips.leaving == () and run(table, Sit("bob", seat=1))[1][-1] == StackBoughtIn(1, "bob", 100, 5)
