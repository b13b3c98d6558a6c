"""What can go wrong with a transfer, each in one of the service's error categories
(services.errors), which decide its gRPC status."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from services.errors import AlreadyExists, Forbidden, Invalid, NotFound, Refused, Unavailable

if TYPE_CHECKING:
    from .transfers import Posted


class LedgerError(Exception):
    """Base of the ledger's domain errors."""


class InvalidTransfer(LedgerError, Invalid, ValueError):
    """A malformed request: bad account name, amount, currency, id or reason."""


class UnknownAccount(LedgerError, NotFound):
    """The account was never opened."""

    def __init__(self, account: str, currency: str) -> None:
        super().__init__(f"no {currency} account {account!r}")
        self.account, self.currency = account, currency


class InsufficientFunds(LedgerError, Refused):
    """The paying account would go below zero; nothing was posted."""

    def __init__(self, account: str, currency: str, balance: int, need: int) -> None:
        super().__init__(
            f"not enough {currency} in {account!r}: balance {balance}, need {need}"
        )
        self.account, self.currency, self.balance, self.need = account, currency, balance, need


class TransferConflict(LedgerError, AlreadyExists):
    """A transfer with this id is already posted with other content."""

    def __init__(self, stored: Posted) -> None:
        super().__init__(
            f"transfer {stored.transfer.id!r} already exists with other content"
            f" ({stored.transfer.debit} -> {stored.transfer.credit}, {stored.transfer.amount}"
            f" {stored.transfer.currency}); a new cause needs a new id"
        )
        self.stored = stored


class AlreadyCheckedIn(LedgerError, AlreadyExists):
    """The player has checked in today already."""

    def __init__(self, state: Any) -> None:
        super().__init__(
            f"already checked in today ({state.today}); next check-in at"
            f" {state.next_check_in_at.isoformat()}"
        )
        self.state = state


class NotAllowed(LedgerError, Forbidden):
    """Another player's account, or an operator call by a player."""


class LedgerUnavailable(LedgerError, Unavailable):
    """The ledger's database does not answer; try again."""
