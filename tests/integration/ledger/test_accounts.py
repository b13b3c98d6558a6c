"""Players, operators and what each may do with accounts."""

from __future__ import annotations

import asyncio

import pytest

from services.ledger.errors import (
    InsufficientFunds,
    InvalidTransfer,
    NotAllowed,
    TransferConflict,
    UnknownAccount,
)
from services.ledger.settlement import buy_in_transfer

from .conftest import operator, player

pytestmark = pytest.mark.integration

ANN, BOB, OLGA = player("ann"), player("bob"), operator("olga")


async def test_a_new_player_gets_the_welcome_grant_once(service, ledger_config):
    results = await asyncio.gather(*(service.balance(ANN, "", "") for _ in range(5)))
    assert {r for r in results} == {("player/ann", "chips", 1000)}
    service._welcomed.clear()  # as a restarted server would
    assert (await service.balance(ANN, "", ""))[2] == 1000
    history, _ = await service.history(ANN, "", "", 0, "")
    assert [p.transfer.id for p in history] == ["welcome/ann"]


async def test_players_see_only_their_own_accounts(service):
    await service.balance(BOB, "", "")
    for account in ("player/bob", "house", "table/t1/seat/0"):
        with pytest.raises(NotAllowed):
            await service.balance(ANN, account, "")
        with pytest.raises(NotAllowed):
            await service.history(ANN, account, "", 10, "")
    assert (await service.balance(ANN, "player/ann", ""))[2] == 1000


async def test_operators_see_any_account_and_an_unknown_one_is_not_found(service):
    await service.balance(ANN, "", "")
    assert (await service.balance(OLGA, "player/ann", ""))[2] == 1000
    assert (await service.balance(OLGA, "house", ""))[2] == -1000
    with pytest.raises(UnknownAccount):
        await service.balance(OLGA, "player/nobody", "")
    with pytest.raises(UnknownAccount):
        await service.history(OLGA, "player/nobody", "", 10, "")


async def test_a_grant_records_the_operator_and_reason_and_its_request_id_posts_it_once(service):
    first = await service.grant(OLGA, "req-1", "player/ann", 500, "", "tournament prize")
    again = await service.grant(OLGA, "req-1", "player/ann", 500, "", "tournament prize")
    assert first.created and not again.created
    assert first.transfer.id == "grant/req-1" and first.transfer.details["operator"] == "olga"
    assert first.transfer.reason == "tournament prize"
    with pytest.raises(TransferConflict):
        await service.grant(OLGA, "req-1", "player/ann", 900, "", "tournament prize")
    assert await service.store.balance("player/ann") == 500


async def test_the_same_grant_asked_again_by_another_operator_is_a_retry_not_a_conflict(service):
    # The README grants prize-42 with grpcurl as olga, then with `qipai ledger grant` as cli:<user>.
    first = await service.grant(OLGA, "prize-42", "player/ann", 500, "", "tournament prize")
    again = await service.grant(operator("cli:olga"), "prize-42", "player/ann", 500, "", "tournament prize")
    assert not again.created and again.transfer == first.transfer  # olga's, as first posted
    with pytest.raises(TransferConflict):
        await service.grant(operator("cli:olga"), "prize-42", "player/ann", 500, "", "another prize")
    assert await service.store.balance("player/ann") == 500


async def test_a_seats_stack_may_be_named_with_the_table_id_as_printed_or_as_stored(service):
    await service.grant(OLGA, "g", "player/ann", 300, "", "prize")
    await service.store.post(buy_in_transfer("table-3f2a", 0, "ann", 100, 1), open_credit=True)
    for spelled in ("table/table-3f2a/seat/0", "table/3f2a/seat/0"):
        assert await service.balance(OLGA, spelled, "") == ("table/3f2a/seat/0", "chips", 100)
        history, _ = await service.history(OLGA, spelled, "", 10, "")
        assert [p.transfer.id for p in history] == ["buyin/3f2a/0/ann/1"]


async def test_an_adjustment_takes_chips_back_but_never_below_zero(service):
    await service.grant(OLGA, "g", "player/ann", 300, "", "prize")
    posted = await service.adjust(OLGA, "a1", "player/ann", -200, "", "prize paid twice")
    assert (posted.transfer.debit, posted.transfer.credit, posted.transfer.amount) == ("player/ann", "house", 200)
    with pytest.raises(InsufficientFunds) as caught:
        await service.adjust(OLGA, "a2", "player/ann", -101, "", "too much")
    assert (caught.value.balance, caught.value.need) == (100, 101)
    assert await service.store.balance("player/ann") == 100


@pytest.mark.parametrize("chips, words", [(0, "positive"), (-5, "positive"), (2**53 + 1, r"over the limit of 2\^53")])
async def test_a_grant_of_a_bad_amount_is_refused_and_posts_nothing(service, chips, words):
    with pytest.raises(InvalidTransfer, match=words):
        await service.grant(OLGA, "r", "player/ann", chips, "", "why")
    assert await service.store.get("grant/r") is None


async def test_a_grant_needs_a_reason_and_a_request_id(service):
    with pytest.raises(InvalidTransfer, match="reason"):
        await service.grant(OLGA, "r", "player/ann", 5, "", "  ")
    with pytest.raises(InvalidTransfer, match="request_id"):
        await service.grant(OLGA, "", "player/ann", 5, "", "why")
    assert (await service.store.audit()).transfers == 0


async def test_players_cannot_grant_adjust_or_audit(service):
    with pytest.raises(NotAllowed, match="operators"):
        await service.grant(ANN, "r", "player/ann", 5, "", "why")
    with pytest.raises(NotAllowed, match="operators"):
        await service.adjust(ANN, "r", "player/ann", 5, "", "why")
    with pytest.raises(NotAllowed, match="operators"):
        await service.audit(ANN)
    assert await service.store.get("grant/r") is None


async def test_history_pages_newest_first_with_a_cursor(service):
    await service.balance(ANN, "", "")
    for n in range(5):
        await service.grant(OLGA, f"g{n}", "player/ann", n + 1, "", "why")
    page1, token = await service.history(ANN, "", "", 2, "")
    page2, token2 = await service.history(ANN, "", "", 2, token)
    page3, token3 = await service.history(ANN, "", "", 2, token2)
    ids = [p.transfer.id for p in page1 + page2 + page3]
    assert ids == ["grant/g4", "grant/g3", "grant/g2", "grant/g1", "grant/g0", "welcome/ann"]
    assert token3 == ""
    with pytest.raises(InvalidTransfer, match="page_token"):
        await service.history(ANN, "", "", 2, "garbage!")


async def test_without_a_welcome_grant_a_new_players_balance_is_zero_and_nothing_is_posted(ledger, clock):
    from services.ledger.config import LedgerSettings
    from services.ledger.leaderboard import MemoryLeaderboards
    from services.ledger.service import LedgerService

    service = LedgerService(ledger, MemoryLeaderboards(), LedgerSettings(welcome_chips=0), clock)
    assert await service.balance(ANN, "", "") == ("player/ann", "chips", 0)
    assert (await service.store.audit()).transfers == 0
