"""What can go wrong with a transfer, each mapped to one gRPC status by the servicer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .transfers import Posted


class LedgerError(Exception):
    """Base of the ledger's domain errors."""


class InvalidTransfer(LedgerError, ValueError):
    """A malformed request: bad account name, amount, currency, id or reason (INVALID_ARGUMENT)."""


class UnknownAccount(LedgerError, LookupError):
    """The account was never opened (NOT_FOUND)."""

    def __init__(self, account: str, currency: str) -> None:
        super().__init__(f"no {currency} account {account!r}")
        self.account, self.currency = account, currency


class InsufficientFunds(LedgerError):
    """The paying account would go below zero (FAILED_PRECONDITION); nothing was posted."""

    def __init__(self, account: str, currency: str, balance: int, need: int) -> None:
        super().__init__(
            f"not enough {currency} in {account!r}: balance {balance}, need {need}"
        )
        self.account, self.currency, self.balance, self.need = account, currency, balance, need


class TransferConflict(LedgerError):
    """A transfer with this id is already posted with other content (ALREADY_EXISTS)."""

    def __init__(self, stored: Posted) -> None:
        super().__init__(
            f"transfer {stored.transfer.id!r} already exists with other content"
            f" ({stored.transfer.debit} -> {stored.transfer.credit}, {stored.transfer.amount}"
            f" {stored.transfer.currency}); a new cause needs a new id"
        )
        self.stored = stored


class AlreadyCheckedIn(LedgerError):
    """The player has checked in today already (ALREADY_EXISTS)."""

    def __init__(self, state: Any) -> None:
        super().__init__(
            f"already checked in today ({state.today}); next check-in at"
            f" {state.next_check_in_at.isoformat()}"
        )
        self.state = state


class NotAllowed(LedgerError):
    """Another player's account, or an operator call by a player (PERMISSION_DENIED)."""


class LedgerUnavailable(LedgerError):
    """The ledger's database does not answer (UNAVAILABLE); try again."""
