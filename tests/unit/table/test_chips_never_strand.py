"""No chips stay on a table that is over (rules revision 3): a seat kept for a player who left is
still theirs, so what it wins names them and goes back to them; every way a table ends (match
over, abandoned, closed by an operator, everyone left) cashes every stack out first. Tables
recorded under an older revision decide as they did then (docs/rules/payments.md)."""

from __future__ import annotations

import functools
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.chips import HandSettled, StackBoughtIn, StackCashedOut
from engine.core.contract import Status
from engine.table import (
    MATCH_OVER,
    RULES,
    Act,
    Close,
    CreateTable,
    Leave,
    PlayerSeated,
    Ready,
    Sit,
    Table,
    TableClosed,
    Timeout,
    decide,
    evolve,
)

DAQI = ["ann", "bob", "cy", "dee", "eve"]
KOUDIAN = ["ann", "bob", "cy", "dee"]


def run(table: Table, cmd: Any) -> tuple[Table, list[Any]]:
    events = decide(table, cmd)
    return functools.reduce(evolve, events, table), events


def dealt(ruleset: str, players: list[str], rules: int = RULES, **options: Any) -> Table:
    table, _ = run(Table(), CreateTable("t1", ruleset, options, "ann", rules=rules))
    for p in players:
        table, _ = run(table, Sit(p))
    for n, p in enumerate(players):
        table, _ = run(table, Ready(p, bytes([1, n]) * 8, b"salt"))
    assert table.status is Status.IN_HAND
    return table


def play_until(table: Table, done: Any, seed: int = 7) -> tuple[Table, list[Any]]:
    """Let every decision time out (the server plays each seat) until `done(table)`."""
    seen: list[Any] = []
    for step in range(40_000):
        if done(table):
            return table, seen
        table, events = run(table, Timeout(table.version, bytes([seed, step % 256]) * 8, b"s" * 16))
        seen += events
    raise AssertionError("the table never got there")


def play_with_bots(table: Table, done: Any, seed: int = 7) -> tuple[Table, list[Any]]:
    """The greedy bot plays every seated player (they win hands, so matches end); the server
    plays the seats nobody sits in."""
    rng, seen = random.Random(seed), []
    for _ in range(40_000):
        if done(table):
            return table, seen
        rs = table.rules
        deadline = rs.deadline(table.game) if table.status is Status.IN_HAND else None
        owing = [s for s in (deadline.defaults if deadline else ()) if s is not None and table.seats[s]]
        if deadline and owing:
            seat = owing[0]
            action = rs.bots["greedy"](rs.view(table.game, seat), rs.legal_actions(table.game, seat), rng)
            table, events = run(table, Act(table.seats[seat], action or deadline.defaults[seat]))
        else:
            table, events = run(table, Timeout(table.version, rng.randbytes(16), rng.randbytes(16)))
        seen += events
    raise AssertionError("the table never got there")


def kept_seat_paid() -> tuple[Table, list[Any]]:
    """打七 without 积分最小化: eve leaves during the first hand; her kept seat (stack 0 once the
    hand she left is over) wins chips in a later hand (hand 6 with these seeds)."""
    table, _ = run(dealt("daqi", DAQI, score_minimisation=False), Leave("eve"))
    return play_until(table, lambda t: t.hands_started >= 2 and t.chips.stacks[4] > 0)


def settled(events: list[Any]) -> list[HandSettled]:
    return [ev for ev in events if isinstance(ev, HandSettled)]


def test_what_a_kept_seat_wins_is_paid_to_the_player_it_is_kept_for():
    table, events = kept_seat_paid()
    to_kept = [p for ev in settled(events) for p in ev.payments if p.payee == 4 and p.chips > 0]
    assert to_kept and all(p.payee_player == "eve" for p in to_kept)
    assert table.seats[4] is None and table.held[4] == "eve"


def test_a_kept_seats_winnings_go_back_to_its_player_when_the_table_is_closed():
    table, _ = kept_seat_paid()
    stacks = table.chips.stacks
    table, events = run(table, Close("operator"))
    assert events[-1] == TableClosed("operator")
    cashed = {ev.seat: ev for ev in events if isinstance(ev, StackCashedOut)}
    assert cashed[4] == StackCashedOut(4, "eve", stacks[4], 5, kept=True)
    assert {s: ev.chips for s, ev in cashed.items()} == {s: c for s, c in enumerate(stacks) if c > 0}
    assert table.chips.stacks == (0,) * 5


def test_a_player_back_at_their_kept_seat_gets_its_winnings_then_buys_in_again():
    table, _ = kept_seat_paid()
    table, _ = play_until(table, lambda t: t.status is Status.WAITING_FOR_HAND)
    won = table.chips.stacks[4]
    table, events = run(table, Sit("eve"))
    assert events == [StackCashedOut(4, "eve", won, 5, kept=True), PlayerSeated(4, "eve"),
                      StackBoughtIn(4, "eve", 100, 6)]
    assert table.chips.stacks[4] == 100


def test_closing_a_table_mid_hand_pays_back_every_stack_even_of_a_player_who_left_during_it():
    table, _ = run(dealt("koudian", KOUDIAN), Leave("bob"))
    table, events = run(table, Close("abandoned"))
    assert events == [StackCashedOut(0, "ann", 100, 1), StackCashedOut(1, "bob", 100, 2),
                      StackCashedOut(2, "cy", 100, 3), StackCashedOut(3, "dee", 100, 4),
                      TableClosed("abandoned")]
    assert table.chips.stacks == (0,) * 4 and table.status is Status.MATCH_OVER


def test_a_table_everyone_left_holds_no_chips_and_closes_with_nothing_to_pay():
    table, _ = play_until(dealt("koudian", KOUDIAN), lambda t: t.status is Status.WAITING_FOR_HAND)
    for p in KOUDIAN:
        table, _ = run(table, Leave(p))
    assert table.chips.stacks == (0,) * 4
    assert run(table, Close("abandoned"))[1] == [TableClosed("abandoned")]


def test_the_matchs_end_pays_back_every_stack_then_records_the_table_closed():
    table, _ = run(dealt("jj", KOUDIAN, rounds_per_match=1), Leave("bob"))
    table, events = play_with_bots(table, lambda t: t.status is Status.MATCH_OVER)
    last = max(i for i, ev in enumerate(events) if isinstance(ev, HandSettled))
    paid_back = events[last + 1:-1]
    assert events[-1] == TableClosed(MATCH_OVER) and table.closed == MATCH_OVER
    assert paid_back and all(isinstance(ev, StackCashedOut) and ev.chips > 0 for ev in paid_back)
    assert {ev.player_id for ev in paid_back} <= {"ann", "cy", "dee"}
    assert table.chips.stacks == (0,) * 4
    assert run(table, Close("abandoned"))[1] == []


def test_a_table_recorded_before_revision_3_closes_and_pays_kept_seats_as_it_did():
    table, _ = run(dealt("daqi", DAQI, rules=2, score_minimisation=False), Leave("eve"))
    table, events = play_until(table, lambda t: t.hands_started >= 2 and t.chips.stacks[4] > 0)
    assert table.revision == 0
    assert any(p.payee == 4 and p.payee_player == "" for ev in settled(events) for p in ev.payments)
    assert run(table, Close("abandoned"))[1] == [TableClosed("abandoned")]
    assert run(table, Sit("eve"))[1] == [PlayerSeated(4, "eve"), StackBoughtIn(4, "eve", 100, 6)]


@settings(max_examples=12, deadline=None)
@given(leaver=st.sampled_from(DAQI), leave_at=st.integers(0, 400), seed=st.integers(0, 255))
def test_no_positive_payment_names_nobody_and_a_closed_table_holds_no_chips(leaver, leave_at, seed):
    start = dealt("daqi", DAQI, score_minimisation=False)
    table, events = play_until(start, lambda t: t.version >= start.version + leave_at, seed)
    if table.seat_of(leaver) is not None:
        table, more = run(table, Leave(leaver))
        events += more
    table, more = play_until(table, lambda t: t.hands_started >= 4, seed)
    events += more
    assert all(p.payer_player and p.payee_player for ev in settled(events) for p in ev.payments)
    table, _ = run(table, Close("operator"))
    assert table.chips.stacks == (0,) * 5
