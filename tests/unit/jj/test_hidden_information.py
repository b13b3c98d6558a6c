"""Hidden information stays hidden (docs/hidden-information.md, "Claim windows"): what a seat or
a spectator sees after a discard, and what a pass answers, do not tell whether another seat can
claim it."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.jj import RULESET
from engine.jj.game import DECK
from engine.mahjong.actions import CloseClaims, Discard, Pass
from engine.mahjong.tiles import parse_tile
from tests.unit.mahjong.observers import (
    Step,
    discard_then_pass,
    refusal_or_events,
    scripted_hand,
    seen_by,
    step_of,
    twin_deals,
)

OPTIONS: dict[str, Any] = {"wild": "none"}
W, E = parse_tile("W"), parse_tile("E")
DEALER = "1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C"
SEAT_1 = "123m 456m 789m 45p 99s"
SEAT_2 = "2m 5m 8m 3p 6p 9p 2s 5s 8s E S W F"
PAIR_OF_W = "3m 6m 9m 7p 1s 3s 6s 9s N WW F P"  # seat 3 may pong the dealer's W
NO_PAIR = "3m 6m 9m 7p 1s 3s 6s 9s N W F P 1p"  # ... or not: the only difference


def discard_w(seat_3: str, answer: bool) -> list[Step]:
    """The dealer discards W; seat 3 passes if it was asked; seat 1 discards the E it drew."""
    deal = {"dealer": 0, "hands": [DEALER, SEAT_1, SEAT_2, seat_3], "wall": "E 9s 2m 3m"}
    return discard_then_pass(RULESET, deal, W, 3 if answer else None, E, OPTIONS)



def test_a_discard_opens_the_same_claim_window_for_the_others_whether_or_not_a_seat_can_pong_it():
    can, cannot = discard_w(PAIR_OF_W, answer=True), discard_w(NO_PAIR, answer=False)
    n = step_of(can, Discard(0, W))
    assert any(o[0] == 3 for o in can[n].events[-1].options)  # seat 3 was asked ...
    for observer in (0, 1, 2, None):  # ... and nobody else can tell
        assert seen_by(RULESET, can, observer) == seen_by(RULESET, cannot, observer)
    window = RULESET.view(cannot[n].state, None)
    assert window.phase == "claims" and window.claim_tile == W
    assert (RULESET.deadline(cannot[n].state).timeout_ms, RULESET.deadline(cannot[n].state).reason) == (8_000, "claim")
    assert isinstance(cannot[n + 1].command, CloseClaims)


def test_a_pass_answers_alike_for_every_seat_that_cannot_claim_whether_or_not_another_can():
    can, cannot = discard_w(PAIR_OF_W, answer=True), discard_w(NO_PAIR, answer=False)
    n = step_of(can, Discard(0, W))
    window_can, window_cannot = can[n].state, cannot[n].state  # right after the discard
    for seat in (1, 2):
        assert refusal_or_events(RULESET, window_can, Pass(seat)) == refusal_or_events(RULESET, window_cannot, Pass(seat)) == []
    assert refusal_or_events(RULESET, window_cannot, Pass(3)) == []
    assert refusal_or_events(RULESET, window_can, Pass(0)) == refusal_or_events(RULESET, window_cannot, Pass(0)) == "own_tile"
    assert refusal_or_events(RULESET, can[-1].state, Pass(2)) == refusal_or_events(RULESET, cannot[-1].state, Pass(2))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seat=st.sampled_from([1, 2, 3]), swaps=st.integers(1, 13))
def test_deals_that_differ_only_in_one_seats_concealed_tiles_look_the_same_to_every_other_observer(seed, seat, swaps):
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    one, other = twin_deals(deck, rng, seat, swaps, indicator=False)
    a, b = scripted_hand(RULESET, one, 20, OPTIONS), scripted_hand(RULESET, other, 20, OPTIONS)
    for observer in [s for s in range(4) if s != seat] + [None]:
        assert seen_by(RULESET, a, observer) == seen_by(RULESET, b, observer)
