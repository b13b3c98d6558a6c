"""The Ledger over gRPC: bad input gets the right status code and a message naming what is
wrong, and nothing is posted."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from grpc_status import rpc_status

from qipai.v1 import ledger_pb2 as pb
from qipai.v1 import ledger_pb2_grpc
from services import auth
from services.ledger.servicer import LedgerServicer, register_status_details
from services.live.memory import MemoryLiveState

pytestmark = pytest.mark.integration

SECRET = "ledger-test-secret"
C = grpc.StatusCode


@pytest.fixture
async def stub(service) -> AsyncIterator[ledger_pb2_grpc.LedgerStub]:
    register_status_details()
    server = grpc.aio.server(interceptors=[auth.AuthInterceptor(SECRET)])
    ledger_pb2_grpc.add_LedgerServicer_to_server(LedgerServicer(service, MemoryLiveState()), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield ledger_pb2_grpc.LedgerStub(channel)
    await server.stop(0)


def as_(player_id: str, admin: bool = False) -> list[tuple[str, str]]:
    token, _ = auth.issue(SECRET, player_id, auth.ADMIN if admin else auth.PLAYER)
    return [("authorization", f"Bearer {token}")]


ANN, OLGA = as_("ann"), as_("olga", admin=True)


async def status_of(call) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value.code(), caught.value.details()


async def transfers(service) -> int:
    return (await service.store.audit()).transfers


async def test_check_in_then_again_is_already_exists_with_the_next_check_in_time(stub, service):
    reply = await stub.CheckIn(pb.CheckInRequest(), metadata=ANN)
    assert reply.transfer.amount == 10 and reply.state.streak == 1
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.CheckIn(pb.CheckInRequest(), metadata=ANN)
    assert caught.value.code() == C.ALREADY_EXISTS
    status = rpc_status.from_call(caught.value)
    state = pb.CheckInState()
    assert status is not None and status.details[0].Unpack(state)
    assert state.next_check_in_at.ToDatetime().isoformat() == "2026-12-01T16:00:00"
    assert (await stub.GetBalance(pb.GetBalanceRequest(), metadata=ANN)).balance == 1010


async def test_an_unknown_account_is_not_found(stub, service):
    code, message = await status_of(stub.GetBalance(pb.GetBalanceRequest(account="player/nobody"), metadata=OLGA))
    assert code == C.NOT_FOUND and "player/nobody" in message
    code, message = await status_of(stub.Adjust(pb.AdjustRequest(
        request_id="r", account="player/nobody", amount=-5, reason="why"), metadata=OLGA))
    assert code == C.NOT_FOUND and "player/nobody" in message
    assert await transfers(service) == 0


@pytest.mark.parametrize("amount, words", [(0, "positive"), (-3, "positive"), (2**53 + 1, "2^53")])
async def test_a_zero_negative_or_too_large_grant_is_invalid_and_posts_nothing(stub, service, amount, words):
    code, message = await status_of(stub.Grant(pb.GrantRequest(
        request_id="r", account="player/ann", amount=amount, reason="why"), metadata=OLGA))
    assert code == C.INVALID_ARGUMENT and words in message
    assert await transfers(service) == 0


async def test_a_malformed_account_name_is_invalid(stub, service):
    code, message = await status_of(stub.GetBalance(pb.GetBalanceRequest(account="bank/7"), metadata=OLGA))
    assert code == C.INVALID_ARGUMENT and "bank/7" in message


async def test_another_players_account_is_permission_denied(stub, service):
    await stub.GetBalance(pb.GetBalanceRequest(), metadata=as_("bob"))
    code, message = await status_of(stub.GetBalance(pb.GetBalanceRequest(account="player/bob"), metadata=ANN))
    assert code == C.PERMISSION_DENIED and "player/bob" in message
    code, _ = await status_of(stub.ListTransfers(pb.ListTransfersRequest(account="player/bob"), metadata=ANN))
    assert code == C.PERMISSION_DENIED


async def test_a_player_calling_grant_adjust_or_audit_is_permission_denied_and_nothing_is_posted(stub, service):
    code, message = await status_of(stub.Grant(pb.GrantRequest(
        request_id="r", account="player/ann", amount=5, reason="free chips"), metadata=ANN))
    assert code == C.PERMISSION_DENIED and "operators" in message
    code, _ = await status_of(stub.Adjust(pb.AdjustRequest(
        request_id="r", account="player/ann", amount=5, reason="free chips"), metadata=ANN))
    assert code == C.PERMISSION_DENIED
    code, _ = await status_of(stub.Audit(pb.AuditRequest(), metadata=ANN))
    assert code == C.PERMISSION_DENIED
    assert await service.store.get("grant/r") is None and await service.store.get("adjust/r") is None


async def test_no_token_is_unauthenticated(stub):
    code, _ = await status_of(stub.GetBalance(pb.GetBalanceRequest()))
    assert code == C.UNAUTHENTICATED


async def test_taking_back_more_than_the_balance_is_failed_precondition_with_balance_and_need(stub, service):
    await stub.GetBalance(pb.GetBalanceRequest(), metadata=ANN)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Adjust(pb.AdjustRequest(request_id="a", account="player/ann", amount=-1500,
                                           reason="chargeback"), metadata=OLGA)
    assert caught.value.code() == C.FAILED_PRECONDITION
    need = pb.InsufficientChips()
    assert rpc_status.from_call(caught.value).details[0].Unpack(need)
    assert (need.balance, need.need, need.account) == (1000, 1500, "player/ann")
    assert await transfers(service) == 1


async def test_a_grant_retried_with_other_content_is_already_exists_with_the_stored_transfer(stub, service):
    request = pb.GrantRequest(request_id="g1", account="player/ann", amount=50, reason="prize")
    first = await stub.Grant(request, metadata=OLGA)
    assert await stub.Grant(request, metadata=OLGA) == first
    request.amount = 60
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Grant(request, metadata=OLGA)
    stored = pb.Transfer()
    assert caught.value.code() == C.ALREADY_EXISTS
    assert rpc_status.from_call(caught.value).details[0].Unpack(stored) and stored.amount == 50
    assert first.details["operator"] == "olga"


async def test_leaderboard_needs_a_period_and_a_known_ruleset(stub):
    code, message = await status_of(stub.Leaderboard(pb.LeaderboardRequest(ruleset="koudian"), metadata=ANN))
    assert code == C.INVALID_ARGUMENT and "period" in message
    code, message = await status_of(stub.Leaderboard(pb.LeaderboardRequest(
        ruleset="poker", period=pb.LEADERBOARD_PERIOD_DAY), metadata=ANN))
    assert code == C.INVALID_ARGUMENT and "poker" in message
    reply = await stub.Leaderboard(pb.LeaderboardRequest(ruleset="koudian", period=pb.LEADERBOARD_PERIOD_WEEK,
                                                         limit=5, around_me=2), metadata=ANN)
    assert reply.period_key == "2026-W49" and reply.me.rank == 0


async def test_audit_reports_ok_to_an_operator(stub):
    await stub.CheckIn(pb.CheckInRequest(), metadata=ANN)
    report = await stub.Audit(pb.AuditRequest(), metadata=OLGA)
    assert report.ok and report.transfers == 2 and [(t.currency, t.sum) for t in report.totals] == [("chips", 0)]
