"""Seats are not free to take mid-match: a seat left during the match is kept for its player (the
server plays it) until the match ends, so nobody reads another seat's concealed hand; everyone
who sat at the table stays one of its members (engine/table.py)."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.table import (
    CreateTable,
    Leave,
    Ready,
    Sit,
    Table,
    TableCreated,
    Timeout,
    decide,
    evolve,
    redact,
)

PLAYERS = ["ann", "bob", "cy", "dee"]


def run(table: Table, cmd: Any) -> Table:
    return functools.reduce(evolve, decide(table, cmd), table)


def koudian() -> Table:
    return run(Table(), CreateTable("t1", "koudian", {"rounds_per_match": 2}, "host"))


def in_hand() -> Table:
    table = koudian()
    for p in PLAYERS:
        table = run(table, Sit(p))
    for n, p in enumerate(PLAYERS):
        table = run(table, Ready(p, bytes([n]) * 16, b"salt"))
    assert table.status is Status.IN_HAND
    return table


def finish_hand(table: Table) -> Table:
    for step in range(2000):
        table = run(table, Timeout(table.version, bytes([step % 256]) * 16, b"s" * 16))
        if table.status is not Status.IN_HAND:
            return table
    raise AssertionError("the hand did not end")


def refused(table: Table, cmd: Any) -> str:
    with pytest.raises(RuleViolation) as caught:
        decide(table, cmd)
    return caught.value.code


def test_a_seat_left_mid_hand_cannot_be_taken_by_another_player_or_a_spectator():
    table = run(in_hand(), Leave("bob"))
    assert refused(table, Sit("eve", seat=1)) == "seat_held"
    assert refused(table, Sit("eve")) == "table_full"


def test_a_seated_player_cannot_move_to_the_seat_another_player_left_mid_hand():
    table = run(in_hand(), Leave("bob"))
    table = run(table, Leave("ann"))
    assert refused(table, Sit("ann", seat=1)) == "seat_held"


def test_the_seat_stays_kept_after_the_hand_until_the_match_ends():
    table = finish_hand(run(in_hand(), Leave("bob")))
    assert table.status is Status.WAITING_FOR_HAND
    assert refused(table, Sit("eve", seat=1)) == "seat_held"
    assert refused(table, Sit("eve")) == "table_full"


def test_a_seat_left_between_hands_of_the_match_is_kept_too():
    table = run(finish_hand(in_hand()), Leave("cy"))
    assert refused(table, Sit("eve", seat=2)) == "seat_held"


def test_the_leaver_comes_back_to_their_own_seat_once_the_hand_ended():
    table = run(in_hand(), Leave("bob"))
    assert refused(table, Sit("bob")) == "seat_held"  # the hand they left is still played for them
    table = finish_hand(table)
    assert refused(table, Sit("bob", seat=3)) == "seat_held"
    table = run(table, Sit("bob"))
    assert table.seats[1] == "bob" and table.held[1] == ""


def test_the_next_hand_starts_with_the_kept_seat_played_by_the_server():
    table = finish_hand(run(in_hand(), Leave("bob")))
    for p in ["ann", "cy", "dee"]:
        table = run(table, Ready(p, b"r" * 16, b"salt"))
    assert table.status is Status.IN_HAND and table.seats[1] is None and table.is_auto(1)


def test_no_hand_starts_when_every_player_has_left():
    table = finish_hand(in_hand())
    for p in PLAYERS:
        table = run(table, Leave(p))
    assert decide(table, Timeout(table.version, b"t" * 16, b"s" * 16)) == []


def test_before_the_first_hand_a_seat_left_is_free_for_anyone():
    table = run(koudian(), Sit("bob"))
    table = run(table, Leave("bob"))
    assert run(table, Sit("eve", seat=0)).seats[0] == "eve"


def test_everyone_who_sat_stays_a_member_and_so_does_the_creator():
    table = run(in_hand(), Leave("bob"))
    assert table.is_member("bob") and table.is_member("host") and not table.is_member("eve")


def test_the_created_event_shows_no_seat_the_fixed_deal():
    deal = json.dumps({"hands": {"0": ["1m"] * 13}})
    ev = TableCreated("t1", "koudian", {}, "op", True, deal)
    for seat in (0, 1, 2, 3, None):
        assert redact(ev, seat).fixed_deal == ""
