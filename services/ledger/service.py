"""The ledger as players and operators use it: permissions, the welcome grant, check-ins,
operator grants and adjustments, history pages and leaderboards. Transport-free: the gRPC
servicer and the CLI both call this."""

from __future__ import annotations

import base64
import dataclasses
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime

from services.auth import Identity

from . import accounts, checkin, leaderboard
from .calendar import local_day, next_day_start
from .config import LedgerSettings
from .errors import AlreadyCheckedIn, InvalidTransfer, NotAllowed, TransferConflict, UnknownAccount
from .leaderboard import Entry, Leaderboards
from .store import AuditReport, LedgerStore
from .transfers import MAX_REASON_LENGTH, Posted, Transfer, amount

Clock = Callable[[], datetime]
MAX_REQUEST_ID = 200
WELCOMED_CACHE = 100_000


def utc_now() -> datetime:
    return datetime.now(UTC)


class LedgerService:
    def __init__(self, store: LedgerStore, boards: Leaderboards, settings: LedgerSettings,
                 clock: Clock = utc_now) -> None:
        self.store = store
        self.boards = boards
        self.settings = settings
        self.clock = clock
        self._zone = settings.zone
        self._welcomed: set[str] = set()

    # Accounts a caller may see.

    async def welcome(self, player_id: str) -> None:
        """Open a new player's account with the welcome grant (once: its id is the player's)."""
        if player_id in self._welcomed:
            return
        name = accounts.player(player_id)
        if self.settings.welcome_chips:
            await self.store.post(Transfer(f"welcome/{player_id}", accounts.HOUSE, name,
                                           self.settings.welcome_chips, "welcome", reason="welcome grant"),
                                  open_credit=True)
        else:
            try:
                await self.store.balance(name)
            except UnknownAccount:
                return  # opened by the first chips someone sends
        if len(self._welcomed) >= WELCOMED_CACHE:  # a cache: forgetting only costs a lookup
            self._welcomed.clear()
        self._welcomed.add(player_id)

    async def visible_account(self, caller: Identity, account: str) -> str:
        """The account `caller` asks for (empty: their own), if they may see it."""
        if not account:
            if caller.is_admin:
                raise InvalidTransfer("operators must name the account, e.g. player/<id>")
            await self.welcome(caller.player_id)
            return accounts.player(caller.player_id)
        account = accounts.named(account)
        if caller.is_admin:
            return account
        if accounts.owner_player(account) != caller.player_id:
            raise NotAllowed(f"{account!r} is not your account; players see only their own")
        await self.welcome(caller.player_id)
        return account

    async def balance(self, caller: Identity, account: str, currency: str) -> tuple[str, str, int]:
        name = await self.visible_account(caller, account)
        currency = accounts.currency(currency or accounts.CHIPS)
        try:
            return name, currency, await self.store.balance(name, currency)
        except UnknownAccount:
            if accounts.owner_player(name) == caller.player_id:
                return name, currency, 0  # your own account, before its first chips
            raise

    async def history(self, caller: Identity, account: str, currency: str, page_size: int,
                      page_token: str) -> tuple[list[Posted], str]:
        """A page of the account's transfers, newest first, and the token of the next page."""
        name = await self.visible_account(caller, account)
        currency = accounts.currency(currency or accounts.CHIPS)
        if not 0 <= page_size <= 200:
            raise InvalidTransfer(f"page_size must be 1..200 (0: 50), got {page_size}")
        before = _decode_cursor(page_token)
        size = page_size or 50
        if name != accounts.HOUSE:
            await self.store.balance(name, currency)  # NOT_FOUND for an account never opened
        page = await self.store.history(name, currency, before, size + 1)
        more = len(page) > size
        page = page[:size]
        return page, (_encode_cursor(page[-1].sequence) if more else "")

    # 每日签到.

    async def check_in_state(self, caller: Identity) -> checkin.CheckInState:
        player_id = _player(caller)
        await self.welcome(player_id)
        now = self.clock()
        today = local_day(now, self._zone)
        mine = await self.store.get(checkin.transfer_id(player_id, today))
        if mine is not None:
            streak, done = int(mine.transfer.details["streak"]), True
        else:
            streak = checkin.streak_after(
                await self.store.get(checkin.transfer_id(player_id, checkin.yesterday(today)))) - 1
            done = False
        return checkin.CheckInState(
            today, done, streak, checkin.reward(streak if done else streak + 1, self.settings.rewards),
            next_day_start(now, self._zone) if done else now, self.settings.timezone)

    async def check_in(self, caller: Identity) -> tuple[Posted, checkin.CheckInState]:
        """Today's reward, once; a second call today raises AlreadyCheckedIn."""
        player_id = _player(caller)
        await self.welcome(player_id)
        today = local_day(self.clock(), self._zone)
        before = await self.store.get(checkin.transfer_id(player_id, checkin.yesterday(today)))
        streak = checkin.streak_after(before)
        posted = await self.store.post(
            checkin.reward_transfer(player_id, today, streak, self.settings.rewards))
        if not posted.created:
            raise AlreadyCheckedIn(await self.check_in_state(caller))
        return posted, await self.check_in_state(caller)

    # Operators.

    async def grant(self, caller: Identity, request_id: str, account: str, chips: int,
                    currency: str, reason: str) -> Posted:
        """Chips from the house to `account`; the request id makes a retry post once."""
        _operator(caller, "Grant")
        transfer = Transfer(f"grant/{_request_id(request_id)}", accounts.HOUSE, _credited(account),
                            amount(chips), "grant", accounts.currency(currency or accounts.CHIPS),
                            _reason(reason), {"operator": caller.player_id})
        return await self._post_once(transfer, open_credit=True)

    async def adjust(self, caller: Identity, request_id: str, account: str, chips: int,
                     currency: str, reason: str) -> Posted:
        """A correction: positive from the house to `account`, negative back to the house."""
        _operator(caller, "Adjust")
        name = _credited(account)
        if isinstance(chips, int) and chips < 0:
            debit, credit, size = name, accounts.HOUSE, -chips
        else:
            debit, credit, size = accounts.HOUSE, name, chips
        if size == 0:
            raise InvalidTransfer("amount must not be zero: positive adds chips, negative takes them back")
        transfer = Transfer(f"adjust/{_request_id(request_id)}", debit, credit, amount(size), "adjust",
                            accounts.currency(currency or accounts.CHIPS), _reason(reason),
                            {"operator": caller.player_id})
        return await self._post_once(transfer)

    async def _post_once(self, transfer: Transfer, open_credit: bool = False) -> Posted:
        """Post an operator's transfer; the same request asked again by another operator (the
        README's grpcurl `Grant`, then `qipai ledger grant` with its id) is a retry, not a
        conflict: who asked is kept from the first one, the transfer is what must match."""
        try:
            return await self.store.post(transfer, open_credit=open_credit)
        except TransferConflict as exc:
            if _but_operator(exc.stored.transfer) != _but_operator(transfer):
                raise
            return dataclasses.replace(exc.stored, created=False)

    async def audit(self, caller: Identity) -> AuditReport:
        _operator(caller, "Audit")
        return await self.store.audit()

    # Leaderboards.

    async def project(self, posted: list[Posted]) -> None:
        """Add newly posted settlement transfers to the leaderboards."""
        deltas = [d for p in posted if p.created for d in leaderboard.scores(p, self._zone)]
        if deltas:
            await self.boards.add(deltas)

    async def rebuild_leaderboards(self) -> int:
        """Recompute every board from the settlement transfers; returns how many were read."""
        boards: dict[str, dict[str, int]] = {}
        n = 0
        async for posted in self.store.of_kind("settle"):
            n += 1
            for name, player, delta in leaderboard.scores(posted, self._zone):
                scores = boards.setdefault(name, {})
                scores[player] = scores.get(player, 0) + delta
        await self.boards.replace(boards)
        return n

    async def leaderboard(self, caller: Identity, ruleset: str, period: str, limit: int,
                          around: int) -> tuple[str, list[Entry], Entry, list[Entry], int]:
        """`(period key, top, caller's entry, entries around the caller, players on the board)`."""
        from engine.rulesets import available

        if ruleset not in available():
            raise InvalidTransfer(f"unknown ruleset {ruleset!r}; choose from {', '.join(available())}")
        if period not in leaderboard.PERIODS:
            raise InvalidTransfer("period must be day, week or all time")
        if not 0 <= limit <= 100 or not 0 <= around <= 50:
            raise InvalidTransfer(f"limit must be 1..100 (0: 10) and around_me 0..50; got {limit}, {around}")
        key = leaderboard.period_key(period, self.clock(), self._zone)
        name = leaderboard.board(ruleset, period, key)
        top = await self.boards.top(name, 0, (limit or 10) - 1)
        me = await self.boards.find(name, caller.player_id)
        near = await self.boards.top(name, max(0, me.rank - 1 - around), me.rank - 1 + around) \
            if me.rank and around else []
        return key, top, me, near, await self.boards.size(name)


def _player(caller: Identity) -> str:
    if caller.is_admin:
        raise NotAllowed("check-ins are for players; operators use Grant")
    return caller.player_id


def _operator(caller: Identity, what: str) -> None:
    if not caller.is_admin:
        raise NotAllowed(f"{what} is for operators (a token with the admin role)")


def _but_operator(transfer: Transfer) -> tuple[object, ...]:
    return dataclasses.replace(transfer, details={k: v for k, v in transfer.details.items()
                                                  if k != "operator"}).content()


def _credited(account: str) -> str:
    name = accounts.account(account)
    if accounts.owner_player(name) is None:
        raise InvalidTransfer(f"grants and adjustments go to player accounts, not {account!r}")
    return name


def _request_id(request_id: str) -> str:
    if (not request_id or len(request_id) > MAX_REQUEST_ID or any(c.isspace() for c in request_id)
            or not request_id.isprintable()):
        raise InvalidTransfer(f"request_id is required: a unique id of at most {MAX_REQUEST_ID} "
                              f"printable characters without spaces")
    return request_id


def _reason(reason: str) -> str:
    if not reason.strip():
        raise InvalidTransfer("reason is required: say why, it is kept with your identity")
    if len(reason) > MAX_REASON_LENGTH:
        raise InvalidTransfer(f"reason must be at most {MAX_REASON_LENGTH} characters")
    # A NUL cannot be stored (Postgres text), and no control character belongs in an audit line.
    if any(unicodedata.category(c) == "Cc" and c not in "\n\t" for c in reason):
        raise InvalidTransfer("reason cannot contain control characters")
    return reason.strip()


def _encode_cursor(sequence: int) -> str:
    return base64.urlsafe_b64encode(f"before:{sequence}".encode()).decode().rstrip("=")


def _decode_cursor(token: str) -> int | None:
    if not token:
        return None
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        prefix, _, value = text.partition(":")
        if prefix == "before" and value.isdigit():
            return int(value)
    except (ValueError, UnicodeDecodeError):
        pass
    raise InvalidTransfer("page_token is not one this service issued; start again without it")
