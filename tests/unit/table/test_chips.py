"""A table's chip options and its hands settled in chips (engine/chips.py)."""

from __future__ import annotations

import pytest

from engine.chips import Stakes, after, settle_hand, split_options
from engine.core.contract import HandResult
from engine.core.payments import Payment


def test_the_chip_options_are_split_from_the_rulesets_options():
    stakes, rest = split_options({"stake": 5, "buy_in": 2000, "seven_pairs": True})
    assert stakes == Stakes(5, 2000, True) and rest == {"seven_pairs": True}


def test_a_seat_brings_a_hundred_points_of_chips_unless_the_table_says_otherwise():
    assert split_options({"stake": 10})[0].chips_to_sit == 1000
    assert split_options({})[0].chips_to_sit == 100
    assert split_options({"buy_in": 250})[0].chips_to_sit == 250


@pytest.mark.parametrize("options, words", [
    ({"stake": -1}, "'stake'"), ({"stake": "5"}, "'stake'"), ({"buy_in": -1}, "'buy_in'"),
    ({"stake": 0, "buy_in": 100}, "free table"),
    ({"buy_in": 2**60}, "'buy_in'"), ({"score_minimisation": 1}, "score_minimisation"),
])
def test_a_bad_chip_option_is_refused_with_its_name(options, words):
    with pytest.raises(ValueError, match=words):
        split_options(options)


def test_at_a_free_table_seats_bring_no_chips_and_hands_move_none():
    stakes, _ = split_options({"stake": 0})
    assert stakes.free and stakes.chips_to_sit == 0
    result = HandResult("self_draw", 6, (18, -6, -6, -6), payments=tuple(
        Payment(s, 0, 6, "self_draw") for s in (1, 2, 3)))
    assert settle_hand(1, "koudian", result, (0, 0, 0, 0), ("ann", "bob", "cy", "dee"), stakes).payments == ()


def test_a_settled_hand_pays_chips_capped_by_the_stacks_and_updates_them():
    result = HandResult("self_draw", 6, (18, -6, -6, -6), payments=tuple(
        Payment(s, 0, 6, "self_draw") for s in (1, 2, 3)))
    stacks = (100, 50, 20, 100)
    event = settle_hand(3, "koudian", result, stacks, ("ann", "bob", "cy", "dee"), Stakes(stake=5))
    assert [(p.payer, p.payee, p.chips, p.payer_player) for p in event.payments] == [
        (1, 0, 30, "bob"), (2, 0, 20, "cy"), (3, 0, 30, "dee")]
    assert after(stacks, event) == (180, 20, 0, 70) and sum(after(stacks, event)) == sum(stacks)
    assert (event.hand, event.ruleset) == (3, "koudian")


def test_without_score_minimisation_a_short_winner_still_wins_what_is_owed():
    result = HandResult("discard_win", 6, (6, -6), payments=(Payment(1, 0, 6, "discard_win"),))
    event = settle_hand(1, "koudian", result, (3, 100), ("ann", "bob"), Stakes(score_minimisation=False))
    assert event.payments[0].chips == 6 and after((3, 100), event) == (9, 94)
