"""An operator closes a table (`Admin/CloseTable`): every stack at it goes back to its player
first, then `table.Closed` records the operator's reason; the ledger's balances and audit agree
(issue 26, "no chips left on a closed table")."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from clients.client import channel
from engine import table as _table_events  # noqa: F401  (registers table.* events for decoding)
from qipai.v1 import admin_pb2
from services.eventstore import open_event_store
from services.ledger.settlement import SUBSCRIPTION
from services.ledger.store import open_ledger
from tests.e2e.test_game import admin_of, new_table

pytestmark = pytest.mark.e2e

WELCOME = 1000


async def test_an_operator_closing_a_table_mid_hand_pays_every_stack_back(start_server):
    server = start_server()
    async with channel(server.address) as chan:
        table_id, players = await new_table(chan, "koudian", {})
        admin = admin_of(chan)
        close = admin_pb2.CloseTableRequest(table_id=table_id, reason="dispute 42", request_id="c1")
        first = await admin.admin.CloseTable(close, metadata=admin.metadata)
        again = await admin.admin.CloseTable(close, metadata=admin.metadata)
        assert again.version == first.version  # a table already over: nothing more to do
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await players[0].admin.CloseTable(close, metadata=players[0].metadata)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert (await players[0].view(table_id)).status == "match_over"
        for bad, code in ((admin_pb2.CloseTableRequest(table_id=table_id, reason="\x00"), "INVALID_ARGUMENT"),
                          (admin_pb2.CloseTableRequest(table_id="nope"), "INVALID_ARGUMENT"),
                          (admin_pb2.CloseTableRequest(table_id="table-0000000000000000"), "NOT_FOUND")):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await admin.admin.CloseTable(bad, metadata=admin.metadata)
            assert refused.value.code().name == code, refused.value.details()
    url = server.env["QIPAI_DATABASE_URL"]
    events = await open_event_store(url)
    ledger = await open_ledger(url, store=events)
    try:
        stream = await events.read_stream(table_id)
        assert [rec.type for rec in stream[-5:]] == ["table.StackCashedOut"] * 4 + ["table.Closed"]
        assert stream[-1].data == {"reason": "dispute 42"}
        async with asyncio.timeout(60):
            while await events.checkpoint(SUBSCRIPTION) < stream[-1].position:
                await asyncio.sleep(0.1)
        for p in players:
            assert await ledger.balance(f"player/{p.player_id}") == WELCOME
        for seat in range(4):
            assert await ledger.balance(f"table/{table_id.removeprefix('table-')}/seat/{seat}") == 0
        assert (await ledger.audit()).ok
    finally:
        await ledger.close()
        await events.close()
