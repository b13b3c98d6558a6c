"""A seat on auto-play (托管) is its player's again as soon as the player takes it back
(engine/table.py: `TakeBack`), and the server's pending auto move for it no longer happens."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from engine.core.errors import RuleViolation
from engine.table import (
    TIMEOUTS_BEFORE_AUTO_PLAY,
    AutoPlaySet,
    CreateTable,
    Ready,
    SeatTimedOut,
    Sit,
    Table,
    TakeBack,
    Timeout,
    decide,
    evolve,
)
from services.game.clock import AUTO_PLAY_DELAY_MS, Deadlines

PLAYERS = ["ann", "bob", "cy", "dee"]
TURN_MS = 15_000


def run(table: Table, cmd: Any) -> tuple[Table, list[Any]]:
    events = decide(table, cmd)
    return functools.reduce(evolve, events, table), events


def in_hand() -> Table:
    table, _ = run(Table(), CreateTable("t1", "koudian", {"turn_timeout_ms": TURN_MS}, "ann"))
    for p in PLAYERS:
        table, _ = run(table, Sit(p))
    for n, p in enumerate(PLAYERS):
        table, _ = run(table, Ready(p, bytes([1, n]) * 8, b"salt"))
    return table


def timeout(table: Table) -> tuple[Table, list[Any]]:
    return run(table, Timeout(table.version, b"s" * 16, b"t" * 16))


def on_auto_play() -> tuple[Table, int]:
    """A hand where nobody acts until a seat goes on auto-play, at that seat's next decision
    (the server would play it 300 ms from now)."""
    table = in_hand()
    for _ in range(200):
        table, _ = timeout(table)
        if table.auto:
            (seat,) = table.auto
            break
    else:
        raise AssertionError("no seat went on auto-play")
    for _ in range(200):
        if seat in table.rules.deadline(table.game).defaults:
            return table, seat
        table, _ = timeout(table)
    raise AssertionError("the seat on auto-play had no decision to make")


def test_taking_back_a_seat_on_auto_play_turns_auto_play_off():
    table, seat = on_auto_play()
    table, events = run(table, TakeBack(PLAYERS[seat]))
    assert events == [AutoPlaySet(seat, False)]
    assert seat not in table.auto


def test_taking_back_a_seat_not_on_auto_play_changes_nothing():
    table, seat = on_auto_play()
    table, _ = run(table, TakeBack(PLAYERS[seat]))
    assert decide(table, TakeBack(PLAYERS[seat])) == []  # idempotent
    other = next(s for s in range(len(PLAYERS)) if s != seat)
    assert decide(table, TakeBack(PLAYERS[other])) == []


def test_only_a_seated_player_can_take_a_seat_back():
    table, _ = on_auto_play()
    with pytest.raises(RuleViolation) as caught:
        decide(table, TakeBack("stranger"))
    assert caught.value.code == "not_seated"


def test_the_pending_auto_move_of_a_seat_taken_back_does_not_happen():
    table, seat = on_auto_play()
    pending = table.version  # the deadline the clock armed for the auto move
    table, _ = run(table, TakeBack(PLAYERS[seat]))
    assert decide(table, Timeout(pending, b"s" * 16, b"t" * 16)) == []


def test_a_seat_taken_back_has_the_full_turn_timeout_not_the_auto_play_delay():
    table, seat = on_auto_play()
    assert Deadlines.delay_ms(table) == AUTO_PLAY_DELAY_MS
    table, _ = run(table, TakeBack(PLAYERS[seat]))
    assert Deadlines.delay_ms(table) == TURN_MS


def test_a_seat_taken_back_counts_its_timeouts_from_zero_again():
    table, seat = on_auto_play()
    table, _ = run(table, TakeBack(PLAYERS[seat]))
    table, events = timeout(table)
    assert SeatTimedOut(seat, 1) in events and seat not in table.auto
    streak = 1
    while streak < TIMEOUTS_BEFORE_AUTO_PLAY:
        table, events = timeout(table)
        streak += sum(1 for ev in events if isinstance(ev, SeatTimedOut) and ev.seat == seat)
    assert seat in table.auto  # the same two timeouts as before put it back on auto-play
