"""What every ruleset answers the same way through the contract (engine.core), whatever the game."""

import dataclasses
import random

import pytest

from engine import rulesets
from engine.core.contract import Ruleset, StartHand
from engine.core.errors import NO_SUCH_SEAT, RuleViolation
from engine.core.log import Log
from engine.core.options import make_options, ranged, ranges
from engine.core.shuffle import commitment
from engine.driver import apply, bot_command, fold
from engine.selfplay import hand_secrets

RULESETS = rulesets.available()


def _played_hand(name: str, seed: int = 5) -> tuple[Ruleset, list, object]:
    rs = rulesets.get(name)
    log = list(rs.create("t", rs.options({})))
    state = fold(rs, log)
    state = apply(rs, state, StartHand(*hand_secrets(seed, 1)), log)
    rng = random.Random(seed)
    seats = rs.seats(rs.options({}))
    while rs.hand_result(state) is None:
        state = apply(rs, state, bot_command(rs, state, seats, rs.bots["random"], rng), log)
    return rs, log, state


@pytest.mark.parametrize("name", RULESETS)
def test_every_ruleset_is_a_ruleset_of_the_contract(name):
    assert isinstance(rulesets.get(name), Ruleset)


@pytest.mark.parametrize("name", RULESETS)
def test_the_deck_a_hand_reveals_matches_the_commitment_it_published(name):
    rs, log, _ = _played_hand(name)
    promised = [c for c in map(rs.deck_commitment, log) if c is not None]
    revealed = [r for r in map(rs.deck_reveal, log) if r is not None]
    assert len(promised) == len(revealed) == 1
    assert commitment(revealed[0].order, revealed[0].salt) == promised[0]


@pytest.mark.parametrize("name", RULESETS)
def test_the_deck_a_hand_reveals_is_the_deck_order_of_its_seed(name):
    """What a player recomputes from the seeds revealed at the hand's end (docs/fairness.md)."""
    rs, log, _ = _played_hand(name)
    seed, _ = hand_secrets(5, 1)
    revealed = next(r for r in map(rs.deck_reveal, log) if r is not None)
    assert revealed.order == rs.deck_order(rs.options({}), seed)


@pytest.mark.parametrize("name", RULESETS)
def test_a_seat_view_is_of_the_rulesets_view_type(name):
    rs, _, state = _played_hand(name)
    assert type(rs.view(state, 0)) is rs.view_type


@pytest.mark.parametrize("name", RULESETS)
def test_a_seat_outside_the_table_is_no_such_seat_in_every_game(name):
    rs, _, state = _played_hand(name)
    state = apply(rs, state, StartHand(*hand_secrets(9, 2)), [])
    seats, rng = rs.seats(rs.options({})), random.Random(9)
    while not (legal := [a for s in range(seats) for a in rs.legal_actions(state, s)]):
        state = apply(rs, state, bot_command(rs, state, seats, rs.bots["random"], rng), [])
    legal = legal[0]
    with pytest.raises(RuleViolation) as err:
        rs.decide(state, dataclasses.replace(legal, seat=9))
    assert err.value.code == NO_SUCH_SEAT


def test_the_log_applies_each_event_as_it_is_written():
    log = Log(0, lambda total, n: total + n)
    log.add(2)
    log.add(3)
    assert (log.events, log.state) == ([2, 3], 5)


@dataclasses.dataclass(frozen=True)
class _Options:
    fast: bool = False
    rounds: int = ranged(4, 1, 16)
    delay_ms: int = ranged(100, 0, 60_000)


@pytest.mark.parametrize(
    ("overrides", "named"),
    [({"speed": 1}, "speed"), ({"fast": 1}, "fast"), ({"rounds": 0}, "rounds"),
     ({"rounds": True}, "rounds"), ({"delay_ms": -1}, "delay_ms"),
     ({"rounds": 17}, r"'rounds' must be an integer in 1\.\.16"),
     ({"delay_ms": 10**300}, r"'delay_ms' must be an integer in 0\.\.60000")],
)
def test_a_bad_option_is_refused_naming_it_and_its_range(overrides, named):
    with pytest.raises(ValueError, match=named):
        make_options(_Options, overrides, "test")


def test_options_take_their_overrides_and_keep_the_defaults():
    assert make_options(_Options, {"delay_ms": 0, "rounds": 16}, "test") == _Options(delay_ms=0, rounds=16)


def test_a_huge_unknown_option_name_is_not_echoed_whole():
    with pytest.raises(ValueError) as err:
        make_options(_Options, {"x" * 100_000: 1}, "test")
    assert len(str(err.value)) < 200


@pytest.mark.parametrize("name", RULESETS)
def test_every_integer_option_of_every_ruleset_declares_its_range(name):
    options = type(rulesets.get(name).options({}))
    for field in dataclasses.fields(options):
        if field.type in ("int", int):
            assert field.name in ranges(options), f"{name} option {field.name} has no range"


@pytest.mark.parametrize("name", RULESETS)
def test_every_option_range_of_every_ruleset_is_enforced_at_both_ends(name):
    rs = rulesets.get(name)
    for option, bounds in ranges(type(rs.options({}))).items():
        for inside in (bounds.low, bounds.high):
            try:
                assert getattr(rs.options({option: inside}), option) == inside
            except ValueError as exc:  # only a rule across options may refuse it (rising caps)
                assert "must be an integer in" not in str(exc), exc
        for outside in (bounds.low - 1, bounds.high + 1):
            with pytest.raises(ValueError, match=f"{option}.*{bounds.low}\\.\\.{bounds.high}"):
                rs.options({option: outside})
