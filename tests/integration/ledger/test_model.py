"""Property: any sequence of transfers behaves like a dict of balances — conservation (each
currency sums to zero), never negative but the house, one posting per id, the audit holds."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.ledger.errors import InsufficientFunds, TransferConflict, UnknownAccount
from services.ledger.store import open_ledger
from services.ledger.transfers import Transfer

pytestmark = pytest.mark.integration

ACCOUNTS = ["house", "player/a", "player/b", "player/c"]
transfers = st.lists(
    st.tuples(
        st.sampled_from("uvwxyz"),          # id: a few, so retries and conflicts happen
        st.integers(0, 3),                  # debit
        st.integers(1, 3),                  # credit (a player; opened on credit)
        st.integers(1, 120),                # amount
    ),
    max_size=30,
)


async def _check_against_model(url: str, ops, schema: str | None = None) -> None:
    ledger = await open_ledger(url, **({"schema": schema} if schema else {}))
    balances = {"house": 0}
    posted: dict[str, tuple[str, str, int]] = {}
    try:
        for key, d, c, amount in ops:
            debit, credit = ACCOUNTS[d], ACCOUNTS[c]
            if debit == credit:
                continue
            content = (debit, credit, amount)
            call = ledger.post(Transfer(f"transfer/{key}", debit, credit, amount, "transfer"), open_credit=True)
            if key in posted:
                if posted[key] == content:
                    assert not (await call).created
                else:
                    with pytest.raises(TransferConflict):
                        await call
            elif debit not in balances:
                with pytest.raises(UnknownAccount):
                    await call
            elif debit != "house" and balances[debit] < amount:
                with pytest.raises(InsufficientFunds) as caught:
                    await call
                assert (caught.value.balance, caught.value.need) == (balances[debit], amount)
            else:
                assert (await call).created
                posted[key] = content
                balances[debit] -= amount
                balances[credit] = balances.get(credit, 0) + amount
        for account, balance in balances.items():
            assert await ledger.balance(account) == balance
        report = await ledger.audit()
        assert report.ok and report.transfers == len(posted)
        assert sum(balances.values()) == 0
    finally:
        await ledger.close()


@settings(max_examples=60, deadline=None)
@given(transfers)
def test_sqlite_transfers_match_the_model(ops):
    asyncio.run(_check_against_model("sqlite:///:memory:", ops))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=transfers)
def test_postgres_transfers_match_the_model(postgres_url, pg_schema, ops):
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as conn:  # each example starts empty
        conn.execute(f"DROP SCHEMA IF EXISTS {pg_schema} CASCADE")
    asyncio.run(_check_against_model(postgres_url, ops, schema=pg_schema))
