"""The fair-deal protocol at the table (docs/fairness.md): every seat's nonce goes into the deck,
the server is bound to its seed before any nonce is revealed, and any seat can check the deal."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import rulesets
from engine import table as tables
from engine.core import fairness
from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.deal_check import DealChecker

SEED, SALT = bytes(range(16)), bytes(range(16, 32))
RULESETS = ["koudian", "daqi", "jj"]


def nonce(seat: int) -> bytes:
    return bytes([seat + 1]) * 32


def run(table: tables.Table, cmd: Any, log: list[Any]) -> tables.Table:
    events = tables.decide(table, cmd)
    log += events
    return functools.reduce(tables.evolve, events, table)


def seated(ruleset: str, log: list[Any]) -> tables.Table:
    table = run(tables.Table(), tables.CreateTable("t", ruleset, {}, "p0"), log)
    for seat in range(len(table.seats)):
        table = run(table, tables.Sit(f"p{seat}", seat), log)
    return table


def ready_all(table: tables.Table, log: list[Any], committing: range | list[int]) -> tables.Table:
    for seat in range(len(table.seats)):
        commit = fairness.nonce_commitment(nonce(seat)) if seat in committing else ""
        table = run(table, tables.Ready(f"p{seat}", SEED, SALT, commit, fair=True), log)
    return table


def play_out(table: tables.Table, log: list[Any]) -> tables.Table:
    """The clock and auto-play finish the hand (every seat times out)."""
    while table.status is Status.IN_HAND:
        table = run(table, tables.Timeout(table.version, SEED, SALT, fair=True), log)
    return table


def test_the_deal_waits_for_every_committed_nonce_then_uses_them_all() -> None:
    log: list[Any] = []
    table = ready_all(seated("koudian", log), log, committing=[0, 2])
    committed = next(ev for ev in log if isinstance(ev, tables.DealCommitted))
    assert committed.server_commitment == hashlib.sha256(SEED + SALT).hexdigest()
    assert table.status is Status.WAITING_FOR_HAND
    table = run(table, tables.Ready("p0", SEED, SALT, nonce=nonce(0)), log)
    assert table.status is Status.WAITING_FOR_HAND
    table = run(table, tables.Ready("p2", SEED, SALT, nonce=nonce(2)), log)
    assert table.status is Status.IN_HAND
    nonces = [nonce(0), fairness.server_nonce(SEED, 1), nonce(2), fairness.server_nonce(SEED, 3)]
    started = next(ev for ev in log if getattr(ev, "order", None))
    assert started.seed == fairness.deck_seed(SEED, nonces)


def test_a_nonce_that_does_not_match_its_commitment_is_refused() -> None:
    log: list[Any] = []
    table = ready_all(seated("koudian", log), log, committing=[1])
    with pytest.raises(RuleViolation) as exc:
        tables.decide(table, tables.Ready("p1", SEED, SALT, nonce=nonce(3)))
    assert exc.value.code == "wrong_nonce"


def test_a_withheld_reveal_gets_the_server_nonce_and_the_hand_goes_on() -> None:
    log: list[Any] = []
    table = ready_all(seated("koudian", log), log, committing=[0, 1])
    table = run(table, tables.Ready("p0", SEED, SALT, nonce=nonce(0)), log)
    table = run(table, tables.Timeout(table.version, b"other", b"other", fair=True), log)
    assert tables.NonceWithheld(1) in log
    assert table.status is Status.IN_HAND
    play_out(table, log)
    end = next(ev for ev in log if isinstance(ev, tables.DealRevealed))
    assert end.server_nonce_seats == (1, 2, 3)
    assert end.nonces[1] == fairness.server_nonce(SEED, 1)


def test_a_player_leaving_before_the_deal_abandons_it_until_the_table_is_full_again() -> None:
    log: list[Any] = []
    table = ready_all(seated("koudian", log), log, committing=[0])
    table = run(table, tables.Leave("p3"), log)
    assert log[-1] == tables.DealAbandoned(1) and table.deal is None
    table = run(table, tables.Timeout(table.version, SEED, SALT, fair=True), log)
    assert table.status is Status.WAITING_FOR_HAND and table.seats[3] is None
    table = run(table, tables.Sit("p4", 3), log)
    table = run(table, tables.Ready("p4", SEED, SALT, fair=True), log)
    assert table.status is Status.IN_HAND


def test_without_any_commitment_the_hand_is_dealt_at_once() -> None:
    log: list[Any] = []
    table = ready_all(seated("daqi", log), log, committing=[])
    assert table.status is Status.IN_HAND
    assert any(isinstance(ev, tables.DealCommitted) for ev in log)


def test_tables_recorded_before_fair_deals_deal_from_the_seed_as_before() -> None:
    log: list[Any] = []
    table = seated("koudian", log)
    for seat in range(4):
        table = run(table, tables.Ready(f"p{seat}", SEED, SALT), log)
    assert not any(isinstance(ev, tables.DealCommitted) for ev in log)
    assert next(ev for ev in log if getattr(ev, "order", None)).seed == SEED


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_seat_checks_the_deal_from_what_it_was_shown(ruleset: str) -> None:
    log: list[Any] = []
    table = seated(ruleset, log)
    seats = range(len(table.seats))
    table = ready_all(table, log, committing=seats)
    for seat in seats:
        table = run(table, tables.Ready(f"p{seat}", SEED, SALT, nonce=nonce(seat)), log)
    play_out(table, log)
    rs = rulesets.get(ruleset)
    for seat in seats:
        checker = DealChecker(seat, {fairness.nonce_commitment(nonce(seat)): nonce(seat)})
        checks = []
        for ev in log:
            seen = tables.redact(ev, seat) if tables.is_table_event(ev) else rs.redact(ev, seat)
            if seen is not None:
                checks += checker.feed(seen)
        assert [str(c) for c in checks] == ["hand 1: deal verified"]


def test_a_tampered_server_seed_fails_the_check_naming_the_hand() -> None:
    log: list[Any] = []
    table = ready_all(seated("jj", log), log, committing=[])
    play_out(table, log)
    checker = DealChecker()
    tampered = [dataclasses.replace(ev, seed=b"\xff" * 16) if isinstance(ev, tables.DealRevealed) else ev
                for ev in log]
    checks = [c for ev in tampered for c in checker.feed(ev)]
    assert len(checks) == 1 and not checks[0].ok
    assert str(checks[0]).startswith("hand 1: DEAL MISMATCH: the server seed and salt do not match")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_no_seat_sees_the_server_seed_or_the_deck_before_the_hand_ends(ruleset: str) -> None:
    log: list[Any] = []
    table = ready_all(seated(ruleset, log), log, committing=[0])
    table = run(table, tables.Ready("p0", SEED, SALT, nonce=nonce(0)), log)
    rs = rulesets.get(ruleset)
    secrets_ = [SEED.hex(), SALT.hex(), table.deal.seed.hex()]
    deck_seed = fairness.deck_seed(SEED, table.deal.nonces).hex()  # type: ignore[union-attr]
    from engine.core.messages import encode
    for ev in log:
        for seat in range(len(table.seats)):
            seen = tables.redact(ev, seat) if tables.is_table_event(ev) else rs.redact(ev, seat)
            text = str(encode(seen)) if seen is not None else ""
            assert not any(s in text for s in [*secrets_, deck_seed]), (seat, ev)


nonces_strategy = st.lists(st.binary(min_size=32, max_size=32), min_size=4, max_size=4)


@settings(max_examples=50, deadline=None)
@given(seed=st.binary(min_size=16, max_size=16), nonces=nonces_strategy,
       seat=st.integers(0, 3), other=st.binary(min_size=32, max_size=32))
def test_changing_any_one_nonce_changes_the_deck(seed: bytes, nonces: list[bytes], seat: int,
                                                 other: bytes) -> None:
    changed = [*nonces[:seat], other, *nonces[seat + 1:]]
    rs = rulesets.get("koudian")
    same = other == nonces[seat]
    options = rs.options({})
    assert (rs.deck_order(options, fairness.deck_seed(seed, nonces))
            == rs.deck_order(options, fairness.deck_seed(seed, changed))) is same


@settings(max_examples=50, deadline=None)
@given(seed=st.binary(min_size=16, max_size=16), other=st.binary(min_size=16, max_size=16),
       nonces=nonces_strategy)
def test_changing_the_server_seed_changes_the_deck_and_breaks_its_commitment(
        seed: bytes, other: bytes, nonces: list[bytes]) -> None:
    rs = rulesets.get("jj")
    options = rs.options({})
    same = seed == other
    assert (rs.deck_order(options, fairness.deck_seed(seed, nonces))
            == rs.deck_order(options, fairness.deck_seed(other, nonces))) is same
    assert (fairness.server_commitment(seed, SALT) == fairness.server_commitment(other, SALT)) is same


@settings(max_examples=30, deadline=None)
@given(seed=st.binary(min_size=16, max_size=16), nonces=nonces_strategy)
def test_the_deck_is_a_function_of_the_seed_and_the_nonces(seed: bytes, nonces: list[bytes]) -> None:
    for name in RULESETS:
        rs = rulesets.get(name)
        options = rs.options({})
        first = rs.deck_order(options, fairness.deck_seed(seed, nonces))
        assert first == rs.deck_order(options, fairness.deck_seed(seed, list(nonces)))
        assert sorted(first) == sorted(rs.deck_order(options, b""))
