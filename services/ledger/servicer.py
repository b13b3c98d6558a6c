"""The Ledger gRPC service: protobuf at the edge, LedgerService inside."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2
from grpc_status import rpc_status

from qipai.v1 import ledger_pb2 as pb
from qipai.v1 import ledger_pb2_grpc
from services import auth, errors

from .checkin import CheckInState
from .errors import (
    AlreadyCheckedIn,
    InsufficientFunds,
    InvalidTransfer,
    LedgerUnavailable,
    NotAllowed,
    TransferConflict,
    UnknownAccount,
)
from .leaderboard import Entry
from .service import LedgerService
from .transfers import Posted

PERIODS = {pb.LEADERBOARD_PERIOD_DAY: "day", pb.LEADERBOARD_PERIOD_WEEK: "week",
           pb.LEADERBOARD_PERIOD_ALL_TIME: "all"}


def transfer_message(posted: Posted) -> pb.Transfer:
    t = posted.transfer
    message = pb.Transfer(id=t.id, debit=t.debit, credit=t.credit, currency=t.currency, amount=t.amount,
                          kind=t.kind, reason=t.reason, details=dict(t.details), sequence=posted.sequence)
    message.posted_at.FromDatetime(posted.posted_at)
    return message


def check_in_message(state: CheckInState) -> pb.CheckInState:
    message = pb.CheckInState(today=state.today.isoformat(), checked_in_today=state.checked_in_today,
                              streak=state.streak, reward=state.reward, time_zone=state.time_zone)
    message.next_check_in_at.FromDatetime(state.next_check_in_at)
    return message


def _entry(entry: Entry) -> pb.LeaderboardEntry:
    return pb.LeaderboardEntry(rank=entry.rank, player_id=entry.player_id, chips_won=entry.chips_won)


async def _abort_with(context: grpc.aio.ServicerContext, code: int, message: str, detail: Message) -> None:
    packed = any_pb2.Any()
    packed.Pack(detail)
    await context.abort_with_status(rpc_status.to_status(
        status_pb2.Status(code=code, message=message, details=[packed])))


def ledger_errors(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """The ledger's domain errors as status codes (with what the client needs in the details);
    anything else goes on to the shared mapping in services/errors.py."""

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await fn(self, request, context)
        except InsufficientFunds as exc:
            await _abort_with(context, code_pb2.FAILED_PRECONDITION, str(exc), pb.InsufficientChips(
                account=exc.account, currency=exc.currency, balance=exc.balance, need=exc.need))
        except TransferConflict as exc:
            await _abort_with(context, code_pb2.ALREADY_EXISTS, str(exc), transfer_message(exc.stored))
        except AlreadyCheckedIn as exc:
            await _abort_with(context, code_pb2.ALREADY_EXISTS, str(exc), check_in_message(exc.state))
        except InvalidTransfer as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except UnknownAccount as exc:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(exc))
        except NotAllowed as exc:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, str(exc))
        except LedgerUnavailable as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, str(exc))

    return errors.unary(wrapper)


class LedgerServicer(ledger_pb2_grpc.LedgerServicer):
    def __init__(self, service: LedgerService) -> None:
        self.service = service

    @ledger_errors
    async def GetBalance(self, request: pb.GetBalanceRequest, context: Any) -> pb.Balance:
        account, currency, balance = await self.service.balance(auth.current(), request.account, request.currency)
        return pb.Balance(account=account, currency=currency, balance=balance)

    @ledger_errors
    async def ListTransfers(self, request: pb.ListTransfersRequest, context: Any) -> pb.ListTransfersResponse:
        page, token = await self.service.history(auth.current(), request.account, request.currency,
                                                 request.page_size, request.page_token)
        return pb.ListTransfersResponse(transfers=[transfer_message(p) for p in page], next_page_token=token)

    @ledger_errors
    async def CheckIn(self, request: pb.CheckInRequest, context: Any) -> pb.CheckInResponse:
        posted, state = await self.service.check_in(auth.current())
        return pb.CheckInResponse(transfer=transfer_message(posted), state=check_in_message(state))

    @ledger_errors
    async def GetCheckIn(self, request: pb.GetCheckInRequest, context: Any) -> pb.CheckInState:
        return check_in_message(await self.service.check_in_state(auth.current()))

    @ledger_errors
    async def Leaderboard(self, request: pb.LeaderboardRequest, context: Any) -> pb.LeaderboardResponse:
        if request.period not in PERIODS:
            raise InvalidTransfer("period is required: LEADERBOARD_PERIOD_DAY, _WEEK or _ALL_TIME")
        key, top, me, near, players = await self.service.leaderboard(
            auth.current(), request.ruleset, PERIODS[request.period], request.limit, request.around_me)
        return pb.LeaderboardResponse(period_key=key, top=[_entry(e) for e in top], me=_entry(me),
                                      around_me=[_entry(e) for e in near], players=players)

    @ledger_errors
    async def Grant(self, request: pb.GrantRequest, context: Any) -> pb.Transfer:
        return transfer_message(await self.service.grant(
            auth.current(), request.request_id, request.account, request.amount, request.currency, request.reason))

    @ledger_errors
    async def Adjust(self, request: pb.AdjustRequest, context: Any) -> pb.Transfer:
        return transfer_message(await self.service.adjust(
            auth.current(), request.request_id, request.account, request.amount, request.currency, request.reason))

    @ledger_errors
    async def Audit(self, request: pb.AuditRequest, context: Any) -> pb.AuditReport:
        report = await self.service.audit(auth.current())
        return pb.AuditReport(
            ok=report.ok, accounts=report.accounts, transfers=report.transfers,
            totals=[pb.CurrencyTotal(currency=c, sum=s) for c, s in report.totals.items()],
            mismatches=[pb.BalanceMismatch(account=m.account, currency=m.currency, stored=m.stored,
                                           recomputed=m.recomputed) for m in report.mismatches])
