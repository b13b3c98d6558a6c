"""Illegal commands are refused with a stable code and a sentence a player understands."""

from __future__ import annotations

import pytest

from engine.core.contract import StartHand
from engine.core.errors import RuleViolation
from engine.koudian import RULESET

from .table import SEED_DEAL, Table, seed_table

AROUND = "7s 8s 1p"


def refused(t: Table, seat: int, action: str, tile: str | None = None) -> RuleViolation:
    before = (t.state, len(t.log))
    with pytest.raises(RuleViolation) as exc:
        t.act(seat, action, tile)
    assert (t.state, len(t.log)) == before
    assert exc.value.message.endswith(".") and " " in exc.value.message
    return exc.value


def test_a_move_out_of_turn_is_refused():
    t = Table(SEED_DEAL)
    err = refused(t, 2, "discard", "2m")
    assert err.code == "not_your_turn" and "seat 0" in err.message


def test_discarding_a_tile_not_held_is_refused():
    err = refused(Table(SEED_DEAL), 0, "discard", "9p")
    assert err.code == "tile_not_held" and "9p" in err.message


def test_a_pong_after_declaring_ready_is_refused():
    t = seed_table(wall="E 9s")
    t.act(2, "discard", "9s")
    assert refused(t, 1, "pong", "9s").code == "no_pong_when_ready"


def test_a_win_below_the_threshold_is_refused():
    t = seed_table(wall="E 7s")
    t.act(2, "discard", "3p")
    err = refused(t, 1, "win")
    assert err.code == "below_threshold" and "3p is worth 3" in err.message


def test_a_win_before_declaring_ready_is_refused():
    t = Table(SEED_DEAL, wall="E 7s")
    t.act(0, "discard", "C")
    t.act(1, "discard", "E")
    t.act(2, "discard", "6p")  # completes seat 1's hand, but seat 1 never declared
    assert refused(t, 1, "win").code == "not_ready"


def test_a_win_on_a_tile_that_does_not_complete_the_hand_is_refused():
    t = seed_table(wall="E 7s")
    t.act(2, "discard", "7s")
    assert refused(t, 1, "win").code == "not_a_winning_hand"


def test_a_kong_without_four_tiles_or_a_pong_is_refused():
    assert refused(Table(SEED_DEAL), 0, "kong", "1m").code == "no_kong"


def test_declaring_ready_twice_is_refused():
    t = seed_table(wall="E " + AROUND + " 6p")
    for seat in (2, 3, 0):
        t.act(seat, "discard", str(t.hand.phase.drawn))
    assert refused(t, 1, "declare_ready", "6p").code == "already_ready"


def test_claiming_when_there_is_nothing_to_claim_is_refused():
    t = Table(SEED_DEAL)
    assert refused(t, 2, "pong", "C").code == "nothing_to_claim"
    assert refused(t, 2, "pass").code == "nothing_to_claim"


def test_answering_a_claim_window_twice_is_refused():
    t = Table(["1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C", "123m 456m 789m 45p 99s", "2m 5m 8m 3p 6p 9p 2s 5s 8s E S W F",
               "3m 6m 9m 1p 7p 1s 3s 6s 9s N CC F"])
    t.act(0, "discard", "C")
    assert refused(t, 1, "pong", "C").code == "cannot_claim"
    assert refused(t, 3, "pong", "E").code == "wrong_tile"


def test_dealing_during_a_hand_is_refused():
    t = Table(SEED_DEAL)
    with pytest.raises(RuleViolation) as exc:
        RULESET.decide(t.state, StartHand(b"s", b"t"))
    assert exc.value.code == "hand_in_progress"


def test_a_malformed_command_names_the_bad_part():
    with pytest.raises(ValueError, match="seat"):
        RULESET.parse_command({"seat": 7, "action": "discard", "tile": "5m"})
    with pytest.raises(ValueError, match="chow"):
        RULESET.parse_command({"seat": 0, "action": "chow", "tile": "5m"})
    with pytest.raises(ValueError, match="tile"):
        RULESET.parse_command({"seat": 0, "action": "pong"})
    with pytest.raises(ValueError, match="5x"):
        RULESET.parse_command({"seat": 0, "action": "discard", "tile": "5x"})
