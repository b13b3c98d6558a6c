"""Which tickets form a table (services/matchmaking/store.py `pick`, which the Redis script
mirrors) and how a hand moves ratings (ratings.py)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.matchmaking.config import parse_queues
from services.matchmaking.ratings import K, rate_hand
from services.matchmaking.store import pick
from services.matchmaking.tickets import SEARCHING, Ticket

SPEC = parse_queues({"defaults": {"bot_fill_after_s": 20, "band_start": 100, "band_widen_per_s": 25},
                     "rulesets": {"daqi": {"presets": {"standard": {}}, "tiers": {"bronze": {}}}}}
                    ).queues["daqi/standard/bronze"]
NOW = 100_000


def _tickets(specs: list[tuple[int, int]]) -> list[Ticket]:
    """Tickets in arrival order from (rating, waited ms) pairs (waits made non-increasing)."""
    out, waited = [], NOW
    for n, (rating, wait) in enumerate(specs):
        waited = min(waited, wait)
        out.append(Ticket(f"t{n}", f"p{n}", SPEC.name, SEARCHING, NOW - waited, seq=n, rating=rating))
    return out


def test_tickets_of_one_rating_form_tables_in_arrival_order():
    tickets = _tickets([(1500, 1000)] * 12)
    groups = pick(SPEC, tickets, NOW, 10)
    assert [[t.player_id for t in g] for g in groups] == [
        ["p0", "p1", "p2", "p3", "p4"], ["p5", "p6", "p7", "p8", "p9"]]


def test_a_table_short_of_players_waits_for_bots_until_the_oldest_waited_the_bot_fill_time():
    tickets = _tickets([(1500, SPEC.bot_fill_after_ms - 1)] * 3)
    assert pick(SPEC, tickets, NOW, 10) == []
    tickets = _tickets([(1500, SPEC.bot_fill_after_ms)] * 3)
    assert [len(g) for g in pick(SPEC, tickets, NOW, 10)] == [3]


def test_no_bots_when_the_queue_says_never():
    never = dataclasses.replace(SPEC, bot_fill_after_ms=0)
    assert pick(never, _tickets([(1500, 10**6)] * 4), NOW, 10) == []


@settings(deadline=None)  # a loaded CI machine: correctness here, speed in bench/
@given(st.lists(st.tuples(st.integers(1000, 2000), st.integers(0, 60_000)), max_size=40),
       st.integers(1, 10))
def test_a_ticket_is_in_one_group_at_most_every_group_fits_a_table_and_within_its_band(specs, limit):
    tickets = _tickets(specs)
    groups = pick(SPEC, tickets, NOW, limit)
    taken = [t.ticket_id for g in groups for t in g]
    assert len(taken) == len(set(taken)) and len(groups) <= limit
    for g in groups:
        anchor = g[0]
        assert 1 <= len(g) <= SPEC.seats
        assert [t.seq for t in g] == sorted(t.seq for t in g)  # first in, first seated
        if len(g) < SPEC.seats:
            assert NOW - anchor.created_ms >= SPEC.bot_fill_after_ms
        for t in g[1:]:
            band = max(SPEC.band(NOW - anchor.created_ms), SPEC.band(NOW - t.created_ms))
            assert abs(t.rating - anchor.rating) <= band


def test_a_payment_moves_half_of_k_between_equals_and_less_when_the_favourite_wins():
    even = rate_hand({"ann": 1500.0, "bob": 1500.0}, [("bob", "ann")])
    assert even == {"ann": pytest.approx(1500 + K / 2), "bob": pytest.approx(1500 - K / 2)}
    upset = rate_hand({"ann": 1900.0, "bob": 1500.0}, [("bob", "ann")])
    assert 0 < upset["ann"] - 1900 < K / 2 and upset["ann"] + upset["bob"] == pytest.approx(3400)
