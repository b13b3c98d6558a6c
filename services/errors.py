"""Error categories: every error a caller can act on belongs to one, and `services.status` maps
each category (never each error type) to a gRPC status code (docs/design.md, "gRPC conventions").

Errors of the service's own modules subclass a category (`TableNotFound(NotFound)`); errors of
the layers below (engine, event store, live state, wire codec), which must not know about the
service, are registered into their category here, once.
"""

from __future__ import annotations

from abc import ABCMeta

from engine.rulesets import UnknownRuleset
from protocol.wire import BadRequest
from services.eventstore import InvalidInput, MigrationError, StoreUnavailable, WrongExpectedVersion
from services.live.base import LiveStateUnavailable


class Category(Exception, metaclass=ABCMeta):
    """Base of the categories; a lower layer's error joins one with `Category.register`."""


class Invalid(Category):
    """A request that cannot mean anything; the message names the bad part."""


class Forbidden(Category):
    """The caller may not do this (another seat, another table, not an operator)."""


class NotFound(Category, LookupError):
    """The thing asked for does not exist."""


class Conflict(Category):
    """A version conflict the client may retry after refreshing."""


class Refused(Category):
    """Well-formed, but the state does not allow it (an account without enough chips)."""


class AlreadyExists(Category):
    """An id the caller chose (a command's, a transfer's) already names something else."""


class TooManyRequests(Category):
    """The caller exceeded its rate limit."""


class Unavailable(Category):
    """Try again shortly (another node, a node taking a table over, a node draining, a backend
    that cannot be reached or is not migrated to this code's schema)."""


class NotImplementedYet(Category):
    """A call the service declares but does not implement yet."""


Invalid.register(BadRequest)
Invalid.register(UnknownRuleset)
Invalid.register(InvalidInput)
Conflict.register(WrongExpectedVersion)
Unavailable.register(StoreUnavailable)
Unavailable.register(MigrationError)
Unavailable.register(LiveStateUnavailable)
