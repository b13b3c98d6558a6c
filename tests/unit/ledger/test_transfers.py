"""What a transfer must be before it reaches the database."""

from __future__ import annotations

import pytest

from services.ledger.errors import InvalidTransfer
from services.ledger.transfers import MAX_AMOUNT, Transfer


def transfer(**changes):
    fields = {"id": "grant/r1", "debit": "house", "credit": "player/ann", "amount": 5, "kind": "grant"}
    return Transfer(**{**fields, **changes})


@pytest.mark.parametrize("amount, words", [
    (0, "positive"), (-1, "positive"), (MAX_AMOUNT + 1, "2^53"), (1.5, "whole number"), (True, "whole number"),
])
def test_an_amount_must_be_a_whole_number_from_1_to_2_to_the_53(amount, words):
    with pytest.raises(InvalidTransfer, match=words.replace("^", r"\^")):
        transfer(amount=amount)
    assert transfer(amount=MAX_AMOUNT).amount == MAX_AMOUNT


@pytest.mark.parametrize("account", ["bank/1", "player/", "player/a b", "table/t1/seat/x", "house/3", ""])
def test_an_account_must_be_a_player_a_seat_stack_or_the_house(account):
    with pytest.raises(InvalidTransfer, match="is not 'player/<id>'"):
        transfer(credit=account)


def test_a_transfer_needs_two_different_accounts():
    with pytest.raises(InvalidTransfer, match="two accounts"):
        transfer(debit="player/ann")


@pytest.mark.parametrize("bad", ["grant", "grant/", "Grant/x", "grant/a b", "g/" + "x" * 400])
def test_a_transfer_id_names_its_cause_and_a_key(bad):
    with pytest.raises(InvalidTransfer, match="transfer id"):
        transfer(id=bad)


def test_content_is_what_a_retry_must_repeat():
    assert transfer().content() == transfer().content()
    assert transfer(reason="x").content() != transfer().content()
    assert transfer(details={"a": "1"}).content() == transfer(details={"a": "1"}).content()
