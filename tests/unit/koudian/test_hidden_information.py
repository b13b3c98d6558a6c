"""Hidden information stays hidden (docs/hidden-information.md, "Claim windows"): what a seat or
a spectator sees after a discard, and what a pass answers, do not tell whether another seat can
claim it."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.errors import RuleViolation
from engine.koudian import RULESET
from engine.mahjong.actions import ClaimAnswered, CloseClaims, Discard, Pass, TileDrawn
from engine.mahjong.tiles import FULL_SET, parse_tile
from tests.unit.mahjong.observers import (
    Step,
    discard_then_pass,
    play,
    refusal_or_events,
    scripted_hand,
    seen_by,
    step_of,
    table,
    twin_deals,
)

from .table import DEALER, LOOSE_2, READY_ON_3P_6P

C, E = parse_tile("C"), parse_tile("E")
PAIR_OF_C = "3m 6m 9m 1p 7p 1s 3s 6s 9s N CC F"  # seat 3 may pong the dealer's C
NO_PAIR = "3m 6m 9m 1p 7p 1s 3s 6s 9s N C F P"  # ... or not: the only difference


def discard_c(seat_3: str, answer: bool) -> list[Step]:
    """The dealer discards C; seat 3 passes if it was asked; seat 1 discards the E it drew."""
    deal = {"dealer": 0, "hands": [DEALER, READY_ON_3P_6P, LOOSE_2, seat_3], "wall": "E 9s 2m 3m"}
    return discard_then_pass(RULESET, deal, C, 3 if answer else None, E)


def test_a_discard_opens_the_same_claim_window_for_the_others_whether_or_not_a_seat_can_pong_it():
    can, cannot = discard_c(PAIR_OF_C, answer=True), discard_c(NO_PAIR, answer=False)
    for observer in (0, 1, 2, None):
        assert seen_by(RULESET, can, observer) == seen_by(RULESET, cannot, observer)
    # The window is public in both: phase, tile and deadline; then the next draw, on its own.
    after_discard = seen_by(RULESET, cannot, None)[1]
    assert after_discard[1].phase == "claims" and after_discard[1].claim_tile == C
    assert after_discard[2] == (8_000, "claim")
    assert [type(ev).__name__ for ev in seen_by(RULESET, cannot, 2)[2][0]] == ["TileDrawn"]
    # The table closes the window with a step of its own, whether nobody could claim or the
    # one who could passed (its pass is its own: the others see nothing of it).
    assert isinstance(cannot[2].command, CloseClaims) and isinstance(cannot[2].events[0], TileDrawn)
    assert isinstance(can[2].events[0], ClaimAnswered) and RULESET.redact(can[2].events[0], 1) is None
    assert isinstance(can[3].command, CloseClaims) and isinstance(can[3].events[0], TileDrawn)



def test_a_pass_answers_alike_for_every_seat_that_cannot_claim_whether_or_not_another_can():
    can, cannot = discard_c(PAIR_OF_C, answer=True), discard_c(NO_PAIR, answer=False)
    window_can, window_cannot = can[1].state, cannot[1].state  # right after the discard
    for seat in (1, 2):
        assert refusal_or_events(RULESET, window_can, Pass(seat)) == refusal_or_events(RULESET, window_cannot, Pass(seat)) == []
    assert refusal_or_events(RULESET, window_cannot, Pass(3)) == []
    assert refusal_or_events(RULESET, window_can, Pass(0)) == refusal_or_events(RULESET, window_cannot, Pass(0)) == "own_tile"
    # The claimant's own pass is recorded (for it alone); the table's own step then closes the
    # window, as it does when nobody could claim: the claimant cannot tell either whether
    # another seat was still to answer.
    assert [type(ev).__name__ for ev in refusal_or_events(RULESET, window_can, Pass(3))] == ["ClaimAnswered"]
    # Once the window is closed, for everyone alike: nothing to pass on.
    closed_can, closed_cannot = (steps[step_of(steps, Discard(1, E)) - 1].state for steps in (can, cannot))
    assert refusal_or_events(RULESET, closed_can, Pass(2)) == refusal_or_events(RULESET, closed_cannot, Pass(2)) == "nothing_to_claim"


def test_a_claim_a_seat_cannot_make_is_refused_for_its_own_reason_not_for_another_seats_tiles():
    can, cannot = discard_c(PAIR_OF_C, answer=True), discard_c(NO_PAIR, answer=False)
    for state in (can[1].state, cannot[1].state):
        with pytest.raises(RuleViolation) as exc:
            RULESET.decide(state, RULESET.parse_command({"seat": 2, "action": "pong", "tile": "C"}))
        assert exc.value.code == "cannot_pong"


def test_a_table_recorded_before_the_rule_opens_a_window_only_when_a_seat_can_claim():
    deal = {"dealer": 0, "hands": [DEALER, READY_ON_3P_6P, LOOSE_2, NO_PAIR], "wall": "E 9s 2m 3m"}
    state = RULESET.initial()
    for ev in RULESET.create("t", RULESET.options()):  # no claim_window: as recorded before it
        state = RULESET.evolve(state, ev)
    steps: list[Step] = []
    state = play(RULESET, state, RULESET.fixed_deal(deal, b"salt"), steps)
    play(RULESET, state, Discard(0, C), steps)
    assert [type(ev).__name__ for ev in steps[-1].events] == ["TileDiscarded", "TileDrawn"]
    assert RULESET.options().claim_window == 1 and RULESET.new_options().claim_window == 2


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seat=st.sampled_from([1, 2, 3]), swaps=st.integers(1, 13))
def test_deals_that_differ_only_in_one_seats_concealed_tiles_look_the_same_to_every_other_observer(seed, seat, swaps):
    rng = random.Random(seed)
    deck = list(FULL_SET)
    rng.shuffle(deck)
    one, other = twin_deals(deck, rng, seat, swaps)
    a, b = scripted_hand(RULESET, one, 24), scripted_hand(RULESET, other, 24)
    for observer in [s for s in range(4) if s != seat] + [None]:
        assert seen_by(RULESET, a, observer) == seen_by(RULESET, b, observer)


def added_kong(claim_window: int) -> list[Step]:
    """Seat 3 pongs the dealer's C, discards N; seats 0-2 discard what they draw (E, 9s, 2m);
    seat 3 draws the last C and adds it to its pong. Nobody is ready: nobody can rob it."""
    steps: list[Step] = []
    deal = {"dealer": 0, "hands": [DEALER, READY_ON_3P_6P, LOOSE_2, PAIR_OF_C], "wall": "E 9s 2m C", "tail": "5m"}
    state = play(RULESET, table(RULESET, {"claim_window": claim_window}), RULESET.fixed_deal(deal, b"salt"), steps)
    for seat, action, tile in [(0, "discard", "C"), (3, "pong", "C"), (3, "discard", "N"), (0, "discard", "E"),
                               (1, "discard", "9s"), (2, "discard", "2m"), (3, "kong", "C")]:
        state = play(RULESET, state, RULESET.parse_command({"seat": seat, "action": action, "tile": tile}), steps)
    return steps


def test_an_added_kong_opens_a_robbing_window_even_when_nobody_can_rob_it_and_the_table_closes_it():
    steps = added_kong(claim_window=2)
    kong = next(n for n, s in enumerate(steps) if s.command == RULESET.parse_command({"seat": 3, "action": "kong", "tile": "C"}))
    assert [type(ev).__name__ for ev in steps[kong].events] == ["Konged", "ClaimWindowOpened"]
    assert steps[kong].events[-1].robbing and steps[kong].events[-1].options == ()
    assert RULESET.view(steps[kong].state, 1).phase == "robbing"
    assert isinstance(steps[kong + 1].command, CloseClaims)
    assert [(type(ev).__name__, ev.from_tail) for ev in steps[kong + 1].events] == [("TileDrawn", True)]
    # The rule before: no window when nobody could rob, the replacement drawn at once.
    old = added_kong(claim_window=1)
    assert [type(ev).__name__ for ev in old[-1].events] == ["Konged", "TileDrawn"]
