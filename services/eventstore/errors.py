"""Typed event-store errors: every failure a caller can act on has its own class."""

from __future__ import annotations


class EventStoreError(Exception):
    """Base of every error the event store raises on purpose."""


class WrongExpectedVersion(EventStoreError):
    """An append raced another writer (or was based on a stale read): reload and decide again."""

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream_id!r} is at version {actual}, not the expected version {expected}"
        )
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


class InvalidInput(EventStoreError, ValueError):
    """A request the store refuses before writing anything."""


class UnknownEventType(InvalidInput):
    """An event type name that the store's registry does not know."""

    def __init__(self, type_name: object) -> None:
        super().__init__(f"unknown event type {type_name!r}: register it with @event(...) first")
        self.type_name = type_name


class InvalidStreamId(InvalidInput):
    """An empty, over-long or non-text stream id."""


class InvalidVersion(InvalidInput):
    """A version or schema version that is not a non-negative integer in range."""


class PayloadTooLarge(InvalidInput):
    """An event or snapshot whose encoded JSON is bigger than the store accepts."""


class NotSerialisable(InvalidInput):
    """Event data or metadata that cannot be stored as JSON."""


class StoreUnavailable(EventStoreError):
    """The database cannot be reached (or went away); names where it was looked for, never a password."""


class MigrationError(EventStoreError):
    """The database schema does not match the migrations this code ships."""


class CheckpointMoved(EventStoreError):
    """Another consumer with the same subscription name advanced the checkpoint first;
    this consumer's batch was rolled back."""


class Fenced(EventStoreError):
    """A writer presented an older fencing token than the newest the stream has seen: another
    writer (a node holding a newer lease) has taken the stream over."""

    def __init__(self, stream_id: str, token: int, newest: int) -> None:
        super().__init__(
            f"stream {stream_id!r} is fenced at token {newest}; token {token} is older: "
            "another writer has taken it over"
        )
        self.stream_id = stream_id
        self.token = token
        self.newest = newest
