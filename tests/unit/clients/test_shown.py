"""A seat checks the pieces it was shown against the deck revealed at the hand's end
(docs/fairness.md, step 7): the tiles or cards it was dealt and drew, and what was turned face up."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clients.deals import SeatChecker
from clients.shown import Shown, ShownPieces, problems_of
from engine import rulesets
from engine import table as tables
from engine.core import fairness
from engine.core.contract import StartHand, Status
from engine.daqi.cards import DECK as CARDS
from engine.daqi.events import BottomTaken, CardDealt
from engine.daqi.events import HandStarted as DaqiStarted
from engine.driver import apply, bot_command, fold
from engine.mahjong.actions import TileDrawn
from engine.mahjong.tiles import ALL_TILES, Tile
from engine.wuhan.events import IndicatorTurned
from tests.unit.clients.hands import RULESETS, SALT, fair_hand, nonce, seen_by


def checks_of(events: list[Any], seat: int) -> list[str]:
    checker = SeatChecker(seat, {fairness.nonce_commitment(nonce(seat)): nonce(seat)})
    return [str(c) for ev in events for c in checker.feed(ev)]


def tampered(events: list[Any], pick: Callable[[Any], bool], change: Callable[[Any], Any]) -> list[Any]:
    """`events` with the first one `pick` accepts changed by `change`."""
    at = next(i for i, ev in enumerate(events) if pick(ev))
    return [*events[:at], change(events[at]), *events[at + 1:]]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_seat_finds_what_it_was_shown_in_the_revealed_deck(ruleset: str) -> None:
    log = fair_hand(ruleset)
    for seat in range(4):
        assert checks_of(seen_by(ruleset, log, seat), seat) == ["hand 1: deal verified"]


@pytest.mark.parametrize("ruleset", ["koudian", "jj", "wuhan"])
def test_a_dealt_tile_other_than_the_deck_gives_is_flagged_naming_the_hand(ruleset: str) -> None:
    seat = 2
    events = seen_by(ruleset, fair_hand(ruleset), seat)

    def swap_first(ev: Any) -> Any:
        dealt = list(ev.dealt)
        dealt[seat] = (_another(dealt[seat][0]), *dealt[seat][1:])
        return dataclasses.replace(ev, dealt=tuple(dealt))

    bad = tampered(events, lambda ev: type(ev).__name__ == "HandStarted", swap_first)
    [verdict] = checks_of(bad, seat)
    assert verdict.startswith("hand 1: DEAL MISMATCH: the tiles you were dealt: you were shown")


def _another(t: Tile) -> Tile:
    """A tile of another kind (any kind but `t`'s)."""
    return next(x for x in ALL_TILES if x != t)


@pytest.mark.parametrize("ruleset", ["koudian", "jj", "wuhan"])
def test_a_drawn_tile_other_than_the_wall_gives_is_flagged(ruleset: str) -> None:
    log = fair_hand(ruleset)
    seat = next(ev.seat for ev in log if isinstance(ev, TileDrawn))
    events = seen_by(ruleset, log, seat)
    bad = tampered(events, lambda ev: isinstance(ev, TileDrawn) and ev.seat == seat,
                   lambda ev: dataclasses.replace(ev, tile=_another(ev.tile)))
    [verdict] = checks_of(bad, seat)
    assert verdict.startswith("hand 1: DEAL MISMATCH: a tile you drew: you were shown")


def test_a_replacement_draw_comes_from_the_wall_s_tail() -> None:
    deck = ("1m", "2m", "3m", "4m")
    assert problems_of([Shown((-1,), ("4m",), "a tile you drew")], deck) == []
    assert problems_of([Shown((-2,), ("4m",), "a tile you drew")], deck) == [
        "a tile you drew: you were shown 4m, the deck order gives 3m"]


def test_wuhan_s_indicator_must_be_the_tile_after_the_deal() -> None:
    events = seen_by("wuhan", fair_hand("wuhan"), 0)
    bad = tampered(events, lambda ev: isinstance(ev, IndicatorTurned),
                   lambda ev: dataclasses.replace(ev, indicator=_another(ev.indicator)))
    assert "the indicator (翻牌): you were shown" in checks_of(bad, 0)[0]


def test_jj_s_indicator_must_be_turned_over_at_the_wall_s_tail() -> None:
    events = seen_by("jj", fair_hand("jj"), 0)
    bad = tampered(events, lambda ev: type(ev).__name__ == "HandStarted",
                   lambda ev: dataclasses.replace(ev, turned=(_another(ev.turned[0]), *ev.turned[1:])))
    assert "the turned-over indicator: you were shown" in checks_of(bad, 0)[0]


def test_a_daqi_card_dealt_other_than_the_deck_gives_is_flagged() -> None:
    seat = 3
    events = seen_by("daqi", fair_hand("daqi"), seat)
    bad = tampered(events, lambda ev: isinstance(ev, CardDealt) and ev.seat == seat and not ev.face_up,
                   lambda ev: dataclasses.replace(ev, card=next(c for c in CARDS if c != ev.card)))
    [verdict] = checks_of(bad, seat)
    assert verdict.startswith("hand 1: DEAL MISMATCH: card ") and "of the deal: you were shown" in verdict


def test_a_daqi_card_dealt_to_the_wrong_seat_is_flagged() -> None:
    seat = 1
    events = seen_by("daqi", fair_hand("daqi"), seat)
    dealer = next(ev.dealer for ev in events if isinstance(ev, DaqiStarted))
    wrong = (seat - dealer + 1) % 5  # an index that belongs to the next seat
    bad = tampered(events, lambda ev: isinstance(ev, CardDealt) and ev.seat == seat,
                   lambda ev: dataclasses.replace(ev, index=wrong))
    assert f"card {wrong} was dealt to you but belongs to seat {(seat + 1) % 5}" in checks_of(bad, seat)[0]


def test_the_daqi_bottom_taken_must_be_the_deck_s_last_eight_cards() -> None:
    log = fair_hand("daqi")
    taker = next(ev.seat for ev in log if isinstance(ev, BottomTaken))
    events = seen_by("daqi", log, taker)
    bad = tampered(events, lambda ev: isinstance(ev, BottomTaken),
                   lambda ev: dataclasses.replace(ev, cards=(*ev.cards[:-1], next(c for c in CARDS if c != ev.cards[-1]))))
    assert "the bottom cards you took: you were shown" in checks_of(bad, taker)[0]


def test_the_daqi_face_up_card_must_sit_where_the_deck_order_puts_it() -> None:
    events = seen_by("daqi", fair_hand("daqi"), 0)
    flip = next(ev for ev in events if isinstance(ev, CardDealt) and ev.face_up)
    deck = next(ev.deck for ev in events if type(ev).__name__ == "HandEnded")
    moved = (flip.index + 5) % 100  # the same seat's card: only its place is wrong, not the card
    bad = tampered(events, lambda ev: ev is flip, lambda ev: dataclasses.replace(ev, index=moved, card=deck[moved]))
    assert f"the face-up card is card {moved}, not the one the deck order fixes" in checks_of(bad, 0)[0]


@settings(max_examples=8, deadline=None)
@given(seed=st.binary(min_size=16, max_size=16), ruleset=st.sampled_from(RULESETS),
       committing=st.sets(st.integers(0, 3)))
def test_an_honest_deal_always_verifies_for_every_seat(seed: bytes, ruleset: str, committing: set[int]) -> None:
    log = fair_hand(ruleset, tuple(sorted(committing)), seed)
    for seat in range(4):
        assert checks_of(seen_by(ruleset, log, seat), seat) == ["hand 1: deal verified"]


HANDS = 30


@pytest.mark.slow
@pytest.mark.parametrize("bot", ["greedy", "random"])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_piece_bots_were_shown_over_many_hands_lies_where_the_deck_puts_it(ruleset: str, bot: str) -> None:
    # Bots that claim, kong, lay out flowers and overcall (反主) draw from both ends of the wall
    # and pass bottoms around: every piece each seat saw, over hands dealt by different dealers,
    # is found at its place.
    rs = rulesets.get(ruleset)
    options = rs.options()
    seats = rs.seats(options)
    rng = random.Random(7)
    log = list(rs.create("t", options))
    state = fold(rs, log)
    followers = [ShownPieces(seat) for seat in range(seats)]
    for f in followers:
        f.feed(tables.TableCreated("t", ruleset, {}, "p0", False, ""))
    shown = 0
    for hand in range(HANDS):
        if rs.status(state) is Status.MATCH_OVER:
            log = list(rs.create("t", options))
            state = fold(rs, log)
        for f in followers:
            f.feed(tables.DealCommitted(hand + 1, "", ("",) * seats, None, None))
        first = len(log)
        state = apply(rs, state, StartHand(hand.to_bytes(2, "big") * 8, SALT), log)
        while rs.status(state) is Status.IN_HAND:
            state = apply(rs, state, bot_command(rs, state, seats, rs.bots[bot], rng), log)
        for seat, f in enumerate(followers):
            for ev in log[first:]:
                seen = rs.redact(ev, seat)
                if seen is not None:
                    f.feed(seen)
            shown += len(f._hand.shown) if f._hand else 0
            assert f.ended() == [], (hand, seat)
    assert shown > HANDS * seats  # the check had pieces to check
