"""The ledger-store contract, run against SQLite and Postgres alike."""

from __future__ import annotations

import asyncio

import pytest

from services.ledger.errors import InsufficientFunds, TransferConflict, UnknownAccount
from services.ledger.transfers import Transfer

pytestmark = pytest.mark.integration

HOUSE = "house"


def grant(player: str, amount: int, key: str = "") -> Transfer:
    return Transfer(f"grant/{key or player}", HOUSE, f"player/{player}", amount, "grant", reason="test")


def pay(key: str, payer: str, payee: str, amount: int) -> Transfer:
    return Transfer(f"test/{key}", f"player/{payer}", f"player/{payee}", amount, "transfer")


async def test_a_grant_from_the_house_opens_the_player_account_and_the_house_goes_below_zero(ledger):
    posted = await ledger.post(grant("ann", 500), open_credit=True)
    assert posted.created and posted.transfer.credit == "player/ann" and posted.transfer.debit == HOUSE
    assert await ledger.balance("player/ann") == 500
    assert await ledger.balance(HOUSE) == -500


async def test_a_transfer_moves_the_amount_from_debit_to_credit(ledger):
    await ledger.post(grant("ann", 500), open_credit=True)
    await ledger.post(grant("bob", 100), open_credit=True)
    await ledger.post(pay("1", "ann", "bob", 120))
    assert (await ledger.balance("player/ann"), await ledger.balance("player/bob")) == (380, 220)


async def test_the_same_transfer_id_with_the_same_content_posts_once(ledger):
    first = await ledger.post(grant("ann", 500), open_credit=True)
    again = await ledger.post(grant("ann", 500), open_credit=True)
    assert again.created is False and again.sequence == first.sequence
    assert await ledger.balance("player/ann") == 500


async def test_the_same_transfer_id_with_other_content_is_refused_with_the_stored_transfer(ledger):
    await ledger.post(grant("ann", 500), open_credit=True)
    with pytest.raises(TransferConflict) as caught:
        await ledger.post(grant("ann", 600), open_credit=True)
    assert caught.value.stored.transfer.amount == 500
    assert "grant/ann" in str(caught.value)
    assert await ledger.balance("player/ann") == 500


async def test_a_transfer_that_would_overdraw_is_refused_with_balance_and_need_and_moves_nothing(ledger):
    await ledger.post(grant("ann", 50), open_credit=True)
    await ledger.post(grant("bob", 0 + 1), open_credit=True)
    with pytest.raises(InsufficientFunds) as caught:
        await ledger.post(pay("1", "ann", "bob", 80))
    assert (caught.value.balance, caught.value.need, caught.value.account) == (50, 80, "player/ann")
    assert (await ledger.balance("player/ann"), await ledger.balance("player/bob")) == (50, 1)
    assert await ledger.get("test/1") is None


async def test_a_transfer_to_or_from_an_unknown_account_is_refused(ledger):
    await ledger.post(grant("ann", 50), open_credit=True)
    with pytest.raises(UnknownAccount, match="player/nobody"):
        await ledger.post(pay("1", "ann", "nobody", 10))
    with pytest.raises(UnknownAccount, match="player/nobody"):
        await ledger.post(pay("2", "nobody", "ann", 10))
    with pytest.raises(UnknownAccount):
        await ledger.balance("player/nobody")
    assert await ledger.balance("player/ann") == 50
    assert (await ledger.audit()).transfers == 1


async def test_history_is_newest_first_and_pages_by_sequence(ledger):
    await ledger.post(grant("ann", 1000), open_credit=True)
    await ledger.post(grant("bob", 1000), open_credit=True)
    for n in range(7):
        await ledger.post(pay(str(n), "ann", "bob", n + 1) if n % 2 else pay(str(n), "bob", "ann", n + 1))
    first = await ledger.history("player/ann", limit=3)
    assert [p.transfer.id for p in first] == ["test/6", "test/5", "test/4"]
    rest = await ledger.history("player/ann", before=first[-1].sequence, limit=100)
    assert [p.transfer.id for p in rest] == ["test/3", "test/2", "test/1", "test/0", "grant/ann"]
    assert [p.transfer.id for p in await ledger.history(HOUSE)] == ["grant/bob", "grant/ann"]


async def test_the_audit_recomputes_every_balance_from_the_postings_and_each_currency_sums_to_zero(ledger):
    for name in ("ann", "bob", "cy"):
        await ledger.post(grant(name, 300), open_credit=True)
    await ledger.post(pay("1", "ann", "bob", 100))
    await ledger.post(Transfer("grant/gold", HOUSE, "player/ann", 7, "grant", currency="gold"), open_credit=True)
    report = await ledger.audit()
    assert report.ok, report
    assert report.totals == {"chips": 0, "gold": 0}
    assert report.transfers == 5 and report.mismatches == []


async def test_a_stored_transfer_cannot_be_changed_or_deleted(ledger):
    await ledger.post(grant("ann", 300), open_credit=True)
    for statement in ("UPDATE ledger_transfers SET amount = 1", "DELETE FROM ledger_transfers"):
        with pytest.raises(Exception, match="immutable"):
            await _execute(ledger, statement)
    assert (await ledger.get("grant/ann")).transfer.amount == 300


async def test_a_balance_written_below_zero_behind_the_ledgers_back_is_refused_by_the_database(ledger):
    await ledger.post(grant("ann", 300), open_credit=True)
    with pytest.raises(Exception, match="ledger_never_negative|CHECK"):
        await _execute(ledger, "UPDATE ledger_accounts SET balance = -1 WHERE account = 'player/ann'")


async def test_thirty_two_concurrent_transfers_racing_on_one_account_lose_no_update_and_never_overdraw(ledger):
    await ledger.post(grant("hot", 1000), open_credit=True)
    for n in range(32):
        await ledger.post(grant(f"p{n}", 10), open_credit=True)
    # 32 payments into the hot account race 32 out of it; the outs ask 24 more than it can
    # ever hold, so at least one must be refused, and every one that posted must show.
    ins = [pay(f"in{n}", f"p{n}", "hot", 10) for n in range(32)]
    outs = [pay(f"out{n}", "hot", f"p{n}", 42) for n in range(32)]
    results = await asyncio.gather(*(ledger.post(t) for t in ins + outs), return_exceptions=True)
    assert not any(isinstance(r, BaseException) for r in results[:32])
    refused = [r for r in results[32:] if isinstance(r, BaseException)]
    assert refused and all(isinstance(r, InsufficientFunds) for r in refused), refused
    posted_out = 32 - len(refused)
    assert await ledger.balance("player/hot") == 1000 + 320 - 42 * posted_out >= 0
    assert [await ledger.balance(f"player/p{n}") for n in range(32)].count(42) == posted_out
    assert (await ledger.audit()).ok


async def test_two_ledgers_on_one_database_post_a_cause_once(ledger, open_another):
    other = await open_another()
    await ledger.post(grant("ann", 100), open_credit=True)
    await ledger.post(grant("bob", 100), open_credit=True)
    results = await asyncio.gather(*(lg.post(pay("once", "ann", "bob", 30)) for lg in (ledger, other) * 4))
    assert sum(r.created for r in results) == 1
    assert await other.balance("player/bob") == 130
    assert (await ledger.audit()).ok


async def _execute(ledger, statement: str) -> None:
    if ledger.backend == "sqlite":
        async with ledger._store.transaction() as tx:
            await tx.execute(statement)
    else:
        async with ledger._connection() as conn:
            await conn.execute(statement)
