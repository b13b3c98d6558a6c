"""The event-store interface both backends implement; input checks live here, once."""

from __future__ import annotations

import abc
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from engine.core.messages import is_registered

from . import validation
from .records import START, AppendRequest, GlobalPosition, NewEvent, RecordedEvent, Snapshot
from .subscription import Handler, Subscription, Transaction
from .wakeup import Wakeup

__all__ = ["EventStore", "Handler", "Transaction"]

class EventStore(abc.ABC):
    """An append-only log of streams with optimistic concurrency, idempotent commands,
    a loss-free global order, snapshots, and exactly-once subscriptions."""

    backend: str

    def __init__(self, known_type: Callable[[str], bool] | None = None) -> None:
        self._known_type = known_type or (lambda name: is_registered(name, "event"))
        self.wakeup = Wakeup()

    async def __aenter__(self) -> EventStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str | None = None,
        fence: int | None = None,
    ) -> int:
        """Append `events` after `expected_version` (0 = new stream) and return the new version.

        Raises `WrongExpectedVersion` if the stream is elsewhere. If `command_id` was already
        appended to this stream, returns that append's resulting version and writes nothing,
        whatever `expected_version` says now. An append whose caller is cancelled (or loses the
        connection) may or may not have committed: retry it with the same `command_id` to know.
        With `fence` (a lease's fencing token), raises `Fenced` if the stream has seen a newer
        token; appends without one are not checked.
        """
        rows = validation.new_events(events, self._known_type)
        return await self._append(AppendRequest(
            validation.stream_id(stream_id),
            validation.version(expected_version, "expected version"),
            rows,
            validation.optional_text(command_id, "command id", validation.MAX_COMMAND_ID_LENGTH),
            None if fence is None else validation.version(fence, "fencing token"),
        ))

    async def fence(self, stream_id: str, token: int) -> None:
        """Record `token` as the stream's newest fencing token (a writer that just took the
        stream's lease). From when this returns, appends under an older token fail with
        `Fenced`; raises `Fenced` itself if the stream has already seen a newer token."""
        await self._fence(validation.stream_id(stream_id), validation.version(token, "fencing token"))

    async def read_stream(
        self, stream_id: str, from_version: int = 1, to_version: int | None = None
    ) -> list[RecordedEvent]:
        """The stream's events with `from_version <= version <= to_version`, in version order."""
        first = validation.version(from_version, "from version", 1)
        last = None if to_version is None else validation.version(to_version, "to version")
        return await self._read_stream(validation.stream_id(stream_id), first, last)

    async def read_all(
        self, after: GlobalPosition = START, limit: int = 1000
    ) -> list[RecordedEvent]:
        """Up to `limit` events after `after` in global order. Pass the last event's `position`
        as the next `after`: no event ever appears behind a position already returned."""
        return await self._read_all(validation.position(after), validation.limit(limit))

    async def stream_version(self, stream_id: str) -> int:
        """The stream's current version (0 if it has no events)."""
        return await self._stream_version(validation.stream_id(stream_id))

    async def command_version(self, stream_id: str, command_id: str) -> int | None:
        """The stream's version after the append of `command_id`, or None if there was none."""
        return await self._command_version(
            validation.stream_id(stream_id),
            validation.name(command_id, "command id", validation.MAX_COMMAND_ID_LENGTH),
        )

    async def list_streams(self, prefix: str | None = None) -> list[str]:
        """Every stream id (starting with `prefix`, if given), sorted."""
        if prefix is not None and not isinstance(prefix, str):
            raise validation.InvalidInput(f"prefix must be text, got {prefix!r}")
        return await self._list_streams(prefix or "")

    async def save_snapshot(
        self, stream_id: str, version: int, type: str, schema_version: int, data: dict[str, Any]
    ) -> None:
        """Keep `data` as the stream's state at `version` (an older snapshot never replaces a newer one)."""
        sid = validation.stream_id(stream_id)
        at = validation.version(version, "snapshot version", 1)
        name = validation.type_name(type)
        schema = validation.version(schema_version, "snapshot schema version", 1)
        text = validation.sized_json(data, "snapshot data", f"snapshot of {sid}")
        await self._save_snapshot(sid, at, name, schema, text)

    async def load_snapshot(self, stream_id: str) -> Snapshot | None:
        """The stream's latest snapshot, or None."""
        return await self._load_snapshot(validation.stream_id(stream_id))

    def subscribe(self, name: str, handler: Handler, **options: Any) -> Subscription:
        """A `Subscription` named `name` (its checkpoint's key): `await sub.run()` follows the
        log forever, `await sub.catch_up()` handles what is there. Options: `batch_size`,
        `poll_interval`."""
        return Subscription(self, name, handler, **options)

    async def follow(
        self, after: GlobalPosition = START, poll_interval: float = 1.0, batch_size: int = 500
    ) -> AsyncIterator[RecordedEvent]:
        """Every event after `after`, then live ones as they commit (at-least-once for the
        caller: remember the last position yourself to resume)."""
        validation.position(after)
        while True:
            seen = self.wakeup.generation
            batch = await self.read_all(after, batch_size)
            for event in batch:
                yield event
            if batch:
                after = batch[-1].position
            if len(batch) < batch_size:
                await self._wait_for_appends(seen, poll_interval)

    async def checkpoint(self, name: str) -> GlobalPosition:
        """Where the subscription `name` has got to (START if it never ran)."""
        return await self._checkpoint(validation.name(name, "subscription name", 200))

    async def consume(
        self, name: str, after: GlobalPosition | None, batch_size: int, handler: Handler
    ) -> tuple[int, GlobalPosition]:
        """One step of the consumer `name`: read the next batch after `after` (None: after its
        stored checkpoint) and, in one transaction, run `handler` on it and move the checkpoint
        from `after` to the batch's end, failing with `CheckpointMoved` if it was not at
        `after`. Returns how many events were handled (0: caught up) and the checkpoint now.
        `Subscription` drives this; call it yourself only to build another kind of consumer."""
        return await self._consume(validation.name(name, "subscription name", 200), after,
                                   validation.limit(batch_size), handler)

    async def wait_for_appends(self, seen: int, timeout: float) -> None:
        """Sleep until an append may have committed since `wakeup.generation` was `seen`, or
        `timeout` passes."""
        await self._wait_for_appends(seen, timeout)

    @abc.abstractmethod
    def transaction(self) -> contextlib.AbstractAsyncContextManager[Transaction]:
        """`async with store.transaction() as tx:` runs SQL of your own in one transaction
        (committed on exit, rolled back on an exception), e.g. a consumer's schema set-up."""

    @abc.abstractmethod
    async def close(self) -> None: ...

    @abc.abstractmethod
    async def _append(self, request: AppendRequest) -> int: ...

    @abc.abstractmethod
    async def _fence(self, stream_id: str, token: int) -> None: ...

    @abc.abstractmethod
    async def _read_stream(self, stream_id: str, first: int, last: int | None) -> list[RecordedEvent]: ...

    @abc.abstractmethod
    async def _read_all(self, after: GlobalPosition, limit: int) -> list[RecordedEvent]: ...

    @abc.abstractmethod
    async def _stream_version(self, stream_id: str) -> int: ...

    @abc.abstractmethod
    async def _command_version(self, stream_id: str, command_id: str) -> int | None: ...

    @abc.abstractmethod
    async def _list_streams(self, prefix: str) -> list[str]: ...

    @abc.abstractmethod
    async def _save_snapshot(self, stream_id: str, version: int, type: str, schema: int, data: str) -> None: ...

    @abc.abstractmethod
    async def _load_snapshot(self, stream_id: str) -> Snapshot | None: ...

    @abc.abstractmethod
    async def _checkpoint(self, name: str) -> GlobalPosition: ...

    @abc.abstractmethod
    async def _consume(
        self, name: str, after: GlobalPosition | None, batch_size: int, handler: Handler
    ) -> tuple[int, GlobalPosition]:
        """Read the next batch after `after` (None: after `name`'s stored checkpoint) and, in
        one transaction, run `handler` and move the checkpoint from `after` to the batch's
        end, failing with `CheckpointMoved` if it was not at `after`. Returns how many events
        were handled (0: caught up) and the checkpoint now."""

    async def _wait_for_appends(self, seen: int, timeout: float) -> None:
        """Sleep until an append may have committed since `seen`, or `timeout` passes."""
        await self.wakeup.wait(seen, timeout)
