"""The values that go into and come out of the event store."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any, NamedTuple

from engine.core import messages


@dataclasses.dataclass(frozen=True, order=True, slots=True)
class GlobalPosition:
    """Where an event sits in the global order: `(tx_id, position)`, compared as a pair.

    On Postgres `tx_id` is the writing transaction's id; events are read only once every
    transaction below the snapshot's xmin has finished, so nothing can later appear before a
    position a reader has passed. On SQLite writes are serialised, so `tx_id` is always 0 and
    `position` (the rowid) alone is commit order.
    """

    tx_id: int = 0
    position: int = 0

    def __str__(self) -> str:
        return f"{self.tx_id}:{self.position}"

    @classmethod
    def parse(cls, text: str) -> GlobalPosition:
        """The inverse of `str(position)`, for cursors that travel as text."""
        tx_id, sep, position = text.partition(":")
        if not sep:
            raise ValueError(f"not a global position: {text!r} (expected 'tx_id:position')")
        return cls(int(tx_id), int(position))


START = GlobalPosition(0, 0)


@dataclasses.dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append: its registered type name, JSON data, and caller-supplied metadata
    (command id, actor, causation, time)."""

    type: str
    data: dict[str, Any]
    schema_version: int = 1
    metadata: dict[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, message: Any, metadata: dict[str, Any] | None = None) -> NewEvent:
        """A `NewEvent` from a registered engine event (type, schema version and data encoded)."""
        name, version, data = messages.encode(message)
        return cls(name, data, version, dict(metadata or {}))


@dataclasses.dataclass(frozen=True, slots=True)
class RecordedEvent:
    """An event as stored: its place in its stream and in the global order."""

    stream_id: str
    version: int
    position: GlobalPosition
    type: str
    schema_version: int
    data: dict[str, Any]
    metadata: dict[str, Any]
    recorded_at: datetime

    def decode(self) -> Any:
        """The engine event, upcast to the current schema version."""
        return messages.decode(self.type, self.schema_version, self.data)


@dataclasses.dataclass(frozen=True, slots=True)
class Snapshot:
    """A stream's state as of `version`; rehydration is this plus the events after it."""

    stream_id: str
    version: int
    type: str
    schema_version: int
    data: dict[str, Any]
    recorded_at: datetime


Row = tuple[str, int, str, str]  # type, schema version, data JSON, metadata JSON


class AppendRequest(NamedTuple):
    """One append, checked and encoded, as the store's front hands it to a backend."""

    stream_id: str
    expected: int
    rows: list[Row]
    command_id: str | None
    fence: int | None
