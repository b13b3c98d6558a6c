"""Hidden information stays hidden (docs/hidden-information.md, "Claim windows"), at every mahjong
table: what a seat or a spectator sees after a discard, and what a pass or a claim answers, do not
tell whether another seat can claim it."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.contract import AnyRuleset
from engine.core.errors import RuleViolation
from engine.jj import RULESET as JJ
from engine.jj.game import DECK as JJ_DECK
from engine.koudian import RULESET as KOUDIAN
from engine.mahjong.actions import ClaimAnswered, CloseClaims, Discard, Pass, TileDrawn
from engine.mahjong.tiles import FULL_SET, Tile, parse_tile
from engine.wuhan import RULESET as WUHAN
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

# Four hands with no pair and no run to claim on, except seat 1: ready on 3p/6p with 4p5p. Seat 3
# holds a pair of the dealer's `tile` (it may pong it) or, by one tile, does not.
DEALER = "1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C"
READY_ON_3P_6P = "123m 456m 789m 45p 99s"
LOOSE_2 = "2m 5m 8m 3p 6p 9p 2s 5s 8s E S W F"
PAIR_OF_C = "3m 6m 9m 1p 7p 1s 3s 6s 9s N CC F"  # three C with the dealer's: the fourth can come
E = parse_tile("E")
# Windows closed as soon as they are decided (no minimum): the batches these tests compare.
# test_claim_minimum.py holds the minimum, with time.
AT_ONCE = {"claim_window_min_ms": 0}


@dataclass(frozen=True)
class Mahjong:
    """One mahjong ruleset as these tests play it: its options, the dealer's discard `tile` and
    seat 3's hand with a pair of it or without, what else its deal needs (wuhan's indicator),
    its deck, and how long a scripted hand runs."""

    ruleset: AnyRuleset
    options: dict[str, Any]
    tile: Tile
    pair: str
    no_pair: str
    deal: dict[str, Any]
    deck: tuple[Tile, ...]
    indicator: bool
    discards: int

    def discard_then_pass(self, seat_3: str, answer: bool) -> list[Step]:
        """The dealer discards `tile`; seat 3 passes if it was asked; seat 1 discards the E it drew."""
        deal = {"dealer": 0, "hands": [DEALER, READY_ON_3P_6P, LOOSE_2, seat_3], "wall": "E 9s 2m 3m", **self.deal}
        return discard_then_pass(self.ruleset, deal, self.tile, 3 if answer else None, E, self.options)

    def can_and_cannot(self) -> tuple[list[Step], list[Step]]:
        """The same hand twice: seat 3 can pong the discard, then (by one tile) cannot."""
        return self.discard_then_pass(self.pair, answer=True), self.discard_then_pass(self.no_pair, answer=False)


RULESETS = [
    pytest.param(Mahjong(KOUDIAN, AT_ONCE, parse_tile("C"), PAIR_OF_C,
                         "3m 6m 9m 1p 7p 1s 3s 6s 9s N C F P", {}, FULL_SET, False, 24), id="koudian"),
    pytest.param(Mahjong(WUHAN, AT_ONCE, parse_tile("W"), "3m 6m 9m 7p 1s 3s 6s 9s N WW F P",
                         "3m 6m 9m 7p 1s 3s 6s 9s N W F P 1p", {"indicator": "9p"}, FULL_SET, True, 20), id="wuhan"),
    pytest.param(Mahjong(JJ, {"wild": "none", **AT_ONCE}, parse_tile("W"), "3m 6m 9m 7p 1s 3s 6s 9s N WW F P",
                         "3m 6m 9m 7p 1s 3s 6s 9s N W F P 1p", {}, JJ_DECK, False, 20), id="jj"),
]


@pytest.mark.parametrize("game", RULESETS)
def test_a_discard_opens_the_same_claim_window_for_the_others_whether_or_not_a_seat_can_pong_it(game: Mahjong):
    rs = game.ruleset
    can, cannot = game.can_and_cannot()
    n = step_of(can, Discard(0, game.tile))
    assert any(o[0] == 3 for o in can[n].events[-1].options)  # seat 3 was asked ...
    for observer in (0, 1, 2, None):  # ... and nobody else can tell
        assert seen_by(rs, can, observer) == seen_by(rs, cannot, observer)
    # The window is public in both: phase, tile and deadline; then the next draw, on its own.
    window = rs.view(cannot[n].state, None)
    assert window.phase == "claims" and window.claim_tile == game.tile
    assert (rs.deadline(cannot[n].state).timeout_ms, rs.deadline(cannot[n].state).reason) == (8_000, "claim")
    assert seen_by(rs, cannot, None)[n][2] == (8_000, "claim")
    assert [type(ev).__name__ for ev in seen_by(rs, cannot, 2)[n + 1][0]] == ["TileDrawn"]


@pytest.mark.parametrize("game", RULESETS)
def test_the_table_closes_a_claim_window_with_a_step_of_its_own_whether_nobody_could_claim_or_the_claimant_passed(game: Mahjong):
    rs = game.ruleset
    can, cannot = game.can_and_cannot()
    n = step_of(can, Discard(0, game.tile))
    assert isinstance(cannot[n + 1].command, CloseClaims) and isinstance(cannot[n + 1].events[0], TileDrawn)
    # The claimant's pass is its own: the others see nothing of it.
    assert isinstance(can[n + 1].events[0], ClaimAnswered) and rs.redact(can[n + 1].events[0], 1) is None
    assert isinstance(can[n + 2].command, CloseClaims) and isinstance(can[n + 2].events[0], TileDrawn)


@pytest.mark.parametrize("game", RULESETS)
def test_a_pass_answers_alike_for_every_seat_that_cannot_claim_whether_or_not_another_can(game: Mahjong):
    rs = game.ruleset
    can, cannot = game.can_and_cannot()
    n = step_of(can, Discard(0, game.tile))
    window_can, window_cannot = can[n].state, cannot[n].state  # right after the discard
    for seat in (1, 2):
        assert refusal_or_events(rs, window_can, Pass(seat)) == refusal_or_events(rs, window_cannot, Pass(seat)) == []
    assert refusal_or_events(rs, window_cannot, Pass(3)) == []
    assert refusal_or_events(rs, window_can, Pass(0)) == refusal_or_events(rs, window_cannot, Pass(0)) == "own_tile"
    # The claimant's own pass is recorded (for it alone); the table's own step then closes the
    # window, as it does when nobody could claim: the claimant cannot tell either whether
    # another seat was still to answer.
    assert [type(ev).__name__ for ev in refusal_or_events(rs, window_can, Pass(3))] == ["ClaimAnswered"]
    # Once the window is closed, for everyone alike: nothing to pass on.
    closed_can, closed_cannot = (steps[step_of(steps, Discard(1, E)) - 1].state for steps in (can, cannot))
    assert refusal_or_events(rs, closed_can, Pass(2)) == refusal_or_events(rs, closed_cannot, Pass(2)) == "nothing_to_claim"
    # And on the next discard's window.
    assert refusal_or_events(rs, can[-1].state, Pass(2)) == refusal_or_events(rs, cannot[-1].state, Pass(2))


@pytest.mark.parametrize("game", RULESETS)
def test_a_claim_a_seat_cannot_make_is_refused_for_its_own_reason_not_for_another_seats_tiles(game: Mahjong):
    can, cannot = game.can_and_cannot()
    n = step_of(can, Discard(0, game.tile))
    pong = game.ruleset.parse_command({"seat": 2, "action": "pong", "tile": str(game.tile)})
    for state in (can[n].state, cannot[n].state):
        with pytest.raises(RuleViolation) as exc:
            game.ruleset.decide(state, pong)
        assert exc.value.code == "cannot_pong"


@pytest.mark.parametrize("game", RULESETS)
def test_a_table_recorded_before_the_rule_opens_a_window_only_when_a_seat_can_claim(game: Mahjong):
    rs = game.ruleset
    deal = {"dealer": 0, "hands": [DEALER, READY_ON_3P_6P, LOOSE_2, game.no_pair], "wall": "E 9s 2m 3m", **game.deal}
    state = rs.initial()
    for ev in rs.create("t", rs.options(game.options)):  # no claim_window: as recorded before it
        state = rs.evolve(state, ev)
    steps: list[Step] = []
    state = play(rs, state, rs.fixed_deal(deal, b"salt"), steps)
    play(rs, state, Discard(0, game.tile), steps)
    assert [type(ev).__name__ for ev in steps[-1].events] == ["TileDiscarded", "TileDrawn"]
    assert rs.options().claim_window == 1 and rs.new_options().claim_window == 2


@pytest.mark.slow
@pytest.mark.parametrize("game", RULESETS)
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seat=st.sampled_from([1, 2, 3]), swaps=st.integers(1, 13))
def test_deals_that_differ_only_in_one_seats_concealed_tiles_look_the_same_to_every_other_observer(game: Mahjong, seed, seat, swaps):
    rng = random.Random(seed)
    deck = list(game.deck)
    rng.shuffle(deck)
    one, other = twin_deals(deck, rng, seat, swaps, indicator=game.indicator)
    a = scripted_hand(game.ruleset, one, game.discards, game.options)
    b = scripted_hand(game.ruleset, other, game.discards, game.options)
    for observer in [s for s in range(4) if s != seat] + [None]:
        assert seen_by(game.ruleset, a, observer) == seen_by(game.ruleset, b, observer)


def added_kong(game: Mahjong, claim_window: int) -> list[Step]:
    """Seat 3 pongs the dealer's C, discards N; seats 0-2 discard what they draw (E, 9s, 2m);
    seat 3 draws the last C and adds it to its pong. Nobody is ready: nobody can rob it."""
    rs = game.ruleset
    steps: list[Step] = []
    deal = {"dealer": 0, "hands": [DEALER, READY_ON_3P_6P, LOOSE_2, PAIR_OF_C], "wall": "E 9s 2m C", "tail": "5m",
            **game.deal}
    state = play(rs, table(rs, {**game.options, "claim_window": claim_window}), rs.fixed_deal(deal, b"salt"), steps)
    for seat, action, tile in [(0, "discard", "C"), (3, "pong", "C"), (3, "discard", "N"), (0, "discard", "E"),
                               (1, "discard", "9s"), (2, "discard", "2m"), (3, "kong", "C")]:
        state = play(rs, state, rs.parse_command({"seat": seat, "action": action, "tile": tile}), steps)
    return steps


@pytest.mark.parametrize("game", RULESETS)
def test_an_added_kong_opens_a_robbing_window_even_when_nobody_can_rob_it_and_the_table_closes_it(game: Mahjong):
    rs = game.ruleset
    steps = added_kong(game, claim_window=2)
    kong = step_of(steps, rs.parse_command({"seat": 3, "action": "kong", "tile": "C"}))
    assert [type(ev).__name__ for ev in steps[kong].events] == ["Konged", "ClaimWindowOpened"]
    assert steps[kong].events[-1].robbing and steps[kong].events[-1].options == ()
    assert rs.view(steps[kong].state, 1).phase == "robbing"
    assert isinstance(steps[kong + 1].command, CloseClaims)
    assert [(type(ev).__name__, ev.from_tail) for ev in steps[kong + 1].events] == [("TileDrawn", True)]
    # The rule before: no window when nobody could rob, the replacement drawn at once.
    old = added_kong(game, claim_window=1)
    assert [type(ev).__name__ for ev in old[-1].events] == ["Konged", "TileDrawn"]
