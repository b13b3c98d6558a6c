"""Wake-ups of the store's own readers when an append commits."""

from __future__ import annotations

import asyncio


class Wakeup:
    """A counter that appends bump; waiters sleep until it moves past what they last saw.

    Reading the counter *before* reading events and waiting for it to change *after* means a
    wake-up that lands between the two is never lost.
    """

    def __init__(self) -> None:
        self.generation = 0
        self._changed = asyncio.Event()

    def bump(self) -> None:
        self.generation += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait(self, seen: int, timeout: float) -> None:
        if self.generation != seen:
            return
        # Not asyncio.wait_for: on Python 3.11 it can swallow a cancellation that arrives as
        # the event fires, leaving a cancelled subscription running forever.
        try:
            async with asyncio.timeout(timeout):
                await self._changed.wait()
        except TimeoutError:
            pass
