"""Group commit: appends that wait at the same moment share one statement and one transaction.

Under many concurrent writers the cost of an append is mostly per transaction (a round trip, a
commit, a WAL flush), so merging the appends queued while earlier ones are in flight multiplies
throughput; a lone writer still gets a batch of one at once, with no added delay. Each append
stays individually atomic and individually answered: the batch statement checks every append's
expected version and command id on its own and inserts only those that pass.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
from collections.abc import Awaitable, Callable

from .records import AppendRequest, Row


@dataclasses.dataclass(eq=False)
class PendingAppend:
    """One caller's append, waiting for its batch."""

    stream_id: str
    expected: int
    rows: list[Row]
    command_id: str | None
    fence: int | None
    future: asyncio.Future[int]
    attempts: int = 0

    def resolve(self, version: int) -> None:
        if not self.future.done():
            self.future.set_result(version)

    def fail(self, error: BaseException) -> None:
        if not self.future.done():
            self.future.set_exception(error)


RunBatch = Callable[[list[PendingAppend]], Awaitable[None]]


class GroupCommit:
    """Runs queued appends through `run_batch`, at most `max_in_flight` batches at a time.

    A batch never holds two appends to the same stream (they would conflict inside one
    statement); the later one waits for a following batch, so each stream keeps its queue order.
    `run_batch` must settle every append's future or call `retry` for it.
    """

    def __init__(
        self, run_batch: RunBatch, max_in_flight: int, max_batch: int = 100, max_bytes: int = 4 << 20
    ) -> None:
        self._run_batch = run_batch
        self._max_in_flight = max(1, max_in_flight)
        self._max_batch = max_batch
        self._max_bytes = max_bytes
        self._queue: collections.deque[PendingAppend] = collections.deque()
        self._flushers: set[asyncio.Task[None]] = set()
        self._active = 0

    async def submit(self, request: AppendRequest) -> int:
        """Queue one append and wait for its resulting version (or its error)."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._queue.append(PendingAppend(*request, future))
        self._start_flushers()
        return await future

    def retry(self, pending: PendingAppend) -> None:
        """Put an append back at the head of the queue (its batch could not decide it)."""
        pending.attempts += 1
        self._queue.appendleft(pending)
        self._start_flushers()

    async def drain(self) -> None:
        """Wait until every queued append has been decided."""
        while self._flushers:
            await asyncio.gather(*self._flushers, return_exceptions=True)

    def _start_flushers(self) -> None:
        # Counted by hand, not by len(self._flushers): a finished flusher leaves that set only
        # in a later loop iteration, and an append queued meanwhile would wait for nobody.
        while self._queue and self._active < self._max_in_flight:
            self._active += 1
            task = asyncio.create_task(self._flush())
            self._flushers.add(task)
            task.add_done_callback(self._flushers.discard)

    def _take_batch(self) -> list[PendingAppend]:
        batch: list[PendingAppend] = []
        streams: set[str] = set()
        held_back: list[PendingAppend] = []
        size = 0
        while self._queue and len(batch) < self._max_batch and size < self._max_bytes:
            pending = self._queue.popleft()
            if pending.future.done():  # the caller was cancelled before its turn came
                continue
            if pending.stream_id in streams:
                held_back.append(pending)
            else:
                streams.add(pending.stream_id)
                batch.append(pending)
                size += sum(len(data) + len(metadata) for _, _, data, metadata in pending.rows)
        self._queue.extendleft(reversed(held_back))
        return batch

    async def _flush(self) -> None:
        try:
            while batch := self._take_batch():
                try:
                    await self._run_batch(batch)
                except Exception as exc:
                    for pending in batch:
                        pending.fail(exc)
                except BaseException:
                    for pending in batch:
                        pending.future.cancel()
                    raise
        finally:
            self._active -= 1
