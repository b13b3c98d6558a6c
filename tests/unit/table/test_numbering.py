"""Each observer numbers the table's events by counting those it may see (engine/numbering.py):
its numbers never count another seat's hidden events."""

from __future__ import annotations

from typing import Any

from engine import table as tables
from engine.core.contract import Status
from engine.table import CreateTable, Ready, Sit, Table, Timeout, decide, evolve

PLAYERS = ["ann", "bob", "cy", "dee", "eve"]


def played(ruleset: str, hands: int = 1) -> tuple[Table, list[Any]]:
    """A table's whole log through `hands` hands the server plays (timeouts)."""
    log: list[Any] = []

    def run(table: Table, cmd: Any) -> Table:
        events = decide(table, cmd)
        log.extend(events)
        for ev in events:
            table = evolve(table, ev)
        return table

    table = run(Table(), CreateTable("t1", ruleset, {}, "host"))
    for p in PLAYERS[:len(table.seats)]:
        table = run(table, Sit(p))
    for step in range(5000):
        if table.status is Status.WAITING_FOR_HAND and table.hands_started < hands and not table.ready:
            for n, p in enumerate(table.seats):
                table = run(table, Ready(str(p), bytes([n, step % 256]) * 8, b"salt"))
        elif table.status is Status.WAITING_FOR_HAND and table.hands_started >= hands:
            return table, log
        else:
            table = run(table, Timeout(table.version, bytes([step % 256]) * 16, b"s" * 16))
    raise AssertionError("the hands did not end")


def visible(table: Table, ev: Any, seat: int | None) -> bool:
    return tables.is_table_event(ev) or table.rules.redact(ev, seat) is not None


def test_an_observers_version_is_the_number_of_events_it_may_see():
    for ruleset in ("koudian", "wuhan", "jj", "daqi"):
        table, log = played(ruleset)
        assert table.version == len(log)
        for seat in (*range(len(table.seats)), None):
            assert table.seen_by(seat) == sum(visible(table, ev, seat) for ev in log), (ruleset, seat)


def test_an_event_hidden_from_a_seat_does_not_move_its_version():
    table, log = played("koudian", hands=2)
    hidden = 0
    state = Table()
    for ev in log:
        after = evolve(state, ev)
        for seat in (*range(4), None):
            if state.exists and not visible(after, ev, seat):
                hidden += 1
                assert after.seen_by(seat) == state.seen_by(seat)
        state = after
    assert hidden, "the hands had no hidden event: the test shows nothing"


def test_a_seat_sees_every_event_a_spectator_sees():
    # The counts rely on it: an event the spectator sees is counted for every seat at once.
    for ruleset in ("koudian", "wuhan", "jj", "daqi"):
        table, log = played(ruleset, hands=2)
        for ev in log:
            if visible(table, ev, None):
                assert all(visible(table, ev, seat) for seat in range(len(table.seats))), (ruleset, ev)
