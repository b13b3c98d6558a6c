"""Exactly-once subscriptions: catch up from the stored checkpoint, then follow live appends."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from . import validation
from .errors import CheckpointMoved
from .records import GlobalPosition, RecordedEvent
from .wakeup import Wakeup


class Transaction(Protocol):
    """The consumer's view of the transaction in which its checkpoint is saved.

    Whatever a handler runs through it commits or rolls back together with the checkpoint.
    Parameters use the backend's DB-API style: `%s` / `%(name)s` on Postgres (psycopg),
    `?` / `:name` on SQLite; `paramstyle` says which ("format" or "qmark"). `connection` is
    the raw psycopg `AsyncConnection` or `sqlite3.Connection` (the latter only to be used
    through `execute`, which runs it on the store's database thread).
    """

    backend: str
    paramstyle: str

    @property
    def connection(self) -> Any: ...

    async def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement; returns its rows ([] for statements without a result)."""
        ...

    async def executemany(self, sql: str, params: Sequence[Sequence[Any] | dict[str, Any]]) -> None:
        """Run one statement once per parameter set."""
        ...


Handler = Callable[[Transaction, list[RecordedEvent]], Awaitable[None]]


class Consumable(Protocol):
    """What a subscription needs of the store (`EventStore` provides it)."""

    wakeup: Wakeup

    async def consume(
        self, name: str, after: GlobalPosition | None, batch_size: int, handler: Handler
    ) -> tuple[int, GlobalPosition]: ...

    async def wait_for_appends(self, seen: int, timeout: float) -> None: ...

    async def checkpoint(self, name: str) -> GlobalPosition: ...


class Subscription:
    """Feeds batches of events to `async handler(tx, events)`.

    Each batch, the handler's own SQL through `tx` and the new checkpoint commit in one
    transaction, so a crash or a cancelled task at any point leaves the effect applied exactly
    once: either the whole batch and its checkpoint committed, or neither did. A handler that
    raises stops `run()` with that exception and its batch is rolled back (it is retried on the
    next start). Two consumers with the same name never both commit a batch: the loser's batch
    is rolled back (`catch_up()` raises `CheckpointMoved`; `run()` carries on from the winner's
    checkpoint).
    """

    def __init__(
        self,
        store: Consumable,
        name: str,
        handler: Handler,
        *,
        batch_size: int = 256,
        poll_interval: float = 1.0,
    ) -> None:
        self.store = store
        self.name = validation.name(name, "subscription name", 200)
        self.handler = handler
        self.batch_size = validation.limit(batch_size)
        # Wake-ups can be missed (another process wrote, or a notification was dropped);
        # polling bounds how late such events are seen.
        self.poll_interval = poll_interval
        # The checkpoint as this consumer last committed or read it; None: load it.
        self._at: GlobalPosition | None = None

    async def catch_up(self) -> int:
        """Handle every event committed so far; returns how many were handled."""
        total = 0
        while True:
            try:
                handled, self._at = await self.store.consume(
                    self.name, self._at, self.batch_size, self.handler
                )
            except BaseException:
                # The batch may or may not have committed (a cancelled COMMIT): reload the
                # stored checkpoint next time rather than trust this one.
                self._at = None
                raise
            total += handled
            if handled < self.batch_size:
                return total

    async def run(self) -> None:
        """Catch up, then keep handling new events until cancelled."""
        while True:
            seen = self.store.wakeup.generation
            try:
                await self.catch_up()
            except CheckpointMoved:
                # Another consumer of this name got there first; its batch stands, ours was
                # rolled back. Carry on from where it got to.
                continue
            await self.store.wait_for_appends(seen, self.poll_interval)

    async def position(self) -> GlobalPosition:
        """The stored checkpoint: the last event this subscription's effects include."""
        return await self.store.checkpoint(self.name)
