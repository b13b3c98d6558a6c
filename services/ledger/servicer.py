"""The Ledger gRPC service: protobuf at the edge, LedgerService inside."""

from __future__ import annotations

from typing import Any

from qipai.v1 import ledger_pb2 as pb
from qipai.v1 import ledger_pb2_grpc
from services import auth, status
from services.errors import TooManyRequests
from services.live.base import LiveState

from .checkin import CheckInState
from .errors import AlreadyCheckedIn, InsufficientFunds, InvalidTransfer, TransferConflict
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


def register_status_details() -> None:
    """What a client needs to act on a ledger refusal travels in the status details, whichever
    service refused (the game refuses a seat to a player short of chips)."""
    status.DETAILS[InsufficientFunds] = lambda exc: pb.InsufficientChips(
        account=exc.account, currency=exc.currency, balance=exc.balance, need=exc.need)
    status.DETAILS[TransferConflict] = lambda exc: transfer_message(exc.stored)
    status.DETAILS[AlreadyCheckedIn] = lambda exc: check_in_message(exc.state)


LEDGER_CALLS_PER_MINUTE = 600  # per player (QIPAI_LEDGER_CALLS_PER_MINUTE)


class LedgerServicer(ledger_pb2_grpc.LedgerServicer):
    def __init__(self, service: LedgerService, live: LiveState,
                 calls_per_minute: int = LEDGER_CALLS_PER_MINUTE) -> None:
        self.service, self.live, self.calls_per_minute = service, live, calls_per_minute

    async def _caller(self) -> auth.Identity:
        """The caller, their call counted (in the live state: all nodes together, one atomic
        step per call): every call reads or writes the database, so none is free."""
        me = auth.current()
        if not me.is_admin and not await self.live.allow(f"ledger:{me.player_id}",
                                                         self.calls_per_minute, 60_000):
            raise TooManyRequests(f"at most {self.calls_per_minute} ledger calls a minute: wait a little")
        return me

    @status.unary
    async def GetBalance(self, request: pb.GetBalanceRequest, context: Any) -> pb.Balance:
        account, currency, balance = await self.service.balance(await self._caller(), request.account, request.currency)
        return pb.Balance(account=account, currency=currency, balance=balance)

    @status.unary
    async def ListTransfers(self, request: pb.ListTransfersRequest, context: Any) -> pb.ListTransfersResponse:
        page, token = await self.service.history(await self._caller(), request.account, request.currency,
                                                 request.page_size, request.page_token)
        return pb.ListTransfersResponse(transfers=[transfer_message(p) for p in page], next_page_token=token)

    @status.unary
    async def CheckIn(self, request: pb.CheckInRequest, context: Any) -> pb.CheckInResponse:
        posted, state = await self.service.check_in(await self._caller())
        return pb.CheckInResponse(transfer=transfer_message(posted), state=check_in_message(state))

    @status.unary
    async def GetCheckIn(self, request: pb.GetCheckInRequest, context: Any) -> pb.CheckInState:
        return check_in_message(await self.service.check_in_state(await self._caller()))

    @status.unary
    async def Leaderboard(self, request: pb.LeaderboardRequest, context: Any) -> pb.LeaderboardResponse:
        if request.period not in PERIODS:
            raise InvalidTransfer("period is required: LEADERBOARD_PERIOD_DAY, _WEEK or _ALL_TIME")
        key, top, me, near, players = await self.service.leaderboard(
            await self._caller(), request.ruleset, PERIODS[request.period], request.limit, request.around_me)
        return pb.LeaderboardResponse(period_key=key, top=[_entry(e) for e in top], me=_entry(me),
                                      around_me=[_entry(e) for e in near], players=players)

    @status.unary
    async def Grant(self, request: pb.GrantRequest, context: Any) -> pb.Transfer:
        return transfer_message(await self.service.grant(
            await self._caller(), request.request_id, request.account, request.amount, request.currency, request.reason))

    @status.unary
    async def Adjust(self, request: pb.AdjustRequest, context: Any) -> pb.Transfer:
        return transfer_message(await self.service.adjust(
            await self._caller(), request.request_id, request.account, request.amount, request.currency, request.reason))

    @status.unary
    async def Audit(self, request: pb.AuditRequest, context: Any) -> pb.AuditReport:
        report = await self.service.audit(await self._caller())
        return pb.AuditReport(
            ok=report.ok, accounts=report.accounts, transfers=report.transfers,
            totals=[pb.CurrencyTotal(currency=c, sum=s) for c, s in report.totals.items()],
            mismatches=[pb.BalanceMismatch(account=m.account, currency=m.currency, stored=m.stored,
                                           recomputed=m.recomputed) for m in report.mismatches],
            stranded=[pb.StrandedStack(account=s.account, currency=s.currency, balance=s.balance)
                      for s in report.stranded])
