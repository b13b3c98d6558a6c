"""Transfers: immutable, double-entry (one debit, one credit, one amount), ids from their cause."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from . import accounts
from .errors import InvalidTransfer

# Amounts travel as JSON numbers to browsers and bots: above 2^53 they would silently round.
MAX_AMOUNT = 2**53
MAX_ID_LENGTH = 300
MAX_REASON_LENGTH = 500
# "transfer": a plain move between two accounts (benchmarks, tests, future gifts).
KINDS = ("welcome", "checkin", "grant", "adjust", "buyin", "settle", "cashout", "transfer")

_ID = re.compile(r"^[a-z]+/\S+$")


@dataclass(frozen=True, slots=True)
class Transfer:
    """`amount` of `currency` from `debit` to `credit`. Posting the same id twice posts once;
    the same id with other content is refused (`TransferConflict`)."""

    id: str
    debit: str
    credit: str
    amount: int
    kind: str
    currency: str = accounts.CHIPS
    reason: str = ""
    details: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id) or len(self.id) > MAX_ID_LENGTH:
            raise InvalidTransfer(
                f"transfer id {self.id!r} must be '<cause>/<key>' without spaces, at most"
                f" {MAX_ID_LENGTH} characters"
            )
        accounts.account(self.debit)
        accounts.account(self.credit)
        if self.debit == self.credit:
            raise InvalidTransfer(f"a transfer needs two accounts; both are {self.debit!r}")
        amount(self.amount)
        if self.kind not in KINDS:
            raise InvalidTransfer(f"transfer kind {self.kind!r} is not one of {', '.join(KINDS)}")
        accounts.currency(self.currency)
        if not isinstance(self.reason, str) or len(self.reason) > MAX_REASON_LENGTH:
            raise InvalidTransfer(f"reason must be text of at most {MAX_REASON_LENGTH} characters")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in self.details.items()):
            raise InvalidTransfer("transfer details must map text to text")
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))

    def content(self) -> tuple[Any, ...]:
        """What must match for a retry to be the same transfer."""
        return (self.debit, self.credit, self.currency, self.amount, self.kind, self.reason,
                sorted(self.details.items()))


@dataclass(frozen=True, slots=True)
class Posted:
    """A transfer as stored: its place in the ledger's order and when it was posted.
    `created` is False when the call found it already posted (a retry)."""

    transfer: Transfer
    sequence: int
    posted_at: datetime
    created: bool = True


def amount(value: Any) -> int:
    """`value` if it is a whole number of chips in 1..2^53, else InvalidTransfer."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTransfer(f"amount must be a whole number, got {value!r}")
    if value <= 0:
        raise InvalidTransfer(f"amount must be positive, got {value}")
    if value > MAX_AMOUNT:
        raise InvalidTransfer(f"amount {value} is over the limit of 2^53 ({MAX_AMOUNT})")
    return value


def stored(row: tuple[Any, ...]) -> Posted:
    """A `Posted` from a stored row `(id, debit, credit, currency, amount, kind, reason,
    details, sequence, posted_at)`; a house shard reads back as the house."""
    id_, debit, credit, currency, amt, kind, reason, details, sequence, posted_at = row
    return Posted(
        Transfer(id_, accounts.logical(debit), accounts.logical(credit), amt, kind, currency,
                 reason, details),
        sequence, posted_at, created=False,
    )
