"""One writer per table: this node's leases on the tables it serves.

A lease lives in the live state (`SET NX PX` with a fencing token). The node renews its leases
while it serves the tables; the event store rejects appends carrying an older token than the
newest it has seen for the stream (`fence`), so a node that lost its lease — paused, partitioned,
or its Redis flushed — can never append again under it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from services.errors import Unavailable
from services.eventstore import Fenced
from services.live.base import Lease, LiveState, LiveStateUnavailable
from services.observability import log

LEASE_TTL_MS = 3_000
RENEW_EVERY_S = 0.75
NODE_TTL_MS = 5_000


class NotHolder(Unavailable):
    """Another node serves this table (or nobody can right now): send the call there."""

    def __init__(self, table_id: str, node_id: str | None, address: str | None) -> None:
        super().__init__(f"table {table_id} is served by node {node_id or '(none yet)'}")
        self.table_id, self.node_id, self.address = table_id, node_id, address


class Leases:
    """The leases this node holds, kept alive by `run` until `stop` is set."""

    def __init__(self, live: LiveState, node_id: str, address: str,
                 fence: Callable[[str, int], Awaitable[None]],
                 on_lost: Callable[[str], Awaitable[None]]) -> None:
        self.live, self.node_id, self.address = live, node_id, address
        self._fence, self._on_lost = fence, on_lost
        self.held: dict[str, Lease] = {}
        self.draining = False

    async def hold(self, table_id: str) -> Lease:
        """This node's lease on `table_id`, taking it when nobody holds it; NotHolder otherwise."""
        lease = self.held.get(table_id)
        if lease is not None:
            return lease
        holder = await self.live.lease_holder(table_id)
        if holder is not None and holder.node_id == self.node_id:
            lease = Lease(table_id, self.node_id, holder.token)  # ours from before (a restart)
        elif holder is not None or self.draining:
            raise NotHolder(table_id, holder and holder.node_id,
                            holder and await self.live.node_address(holder.node_id))
        else:
            lease = await self.live.acquire_lease(table_id, self.node_id, LEASE_TTL_MS)
            if lease is None:
                holder = await self.live.lease_holder(table_id)
                raise NotHolder(table_id, holder and holder.node_id,
                                holder and await self.live.node_address(holder.node_id))
        # Fence first: from now on an append under any older token fails in the store itself.
        await self._fence(table_id, lease.token)
        self.held[table_id] = lease
        return lease

    def drop(self, table_id: str) -> None:
        """Forget a lease this node no longer has (fenced out, taken over)."""
        self.held.pop(table_id, None)

    async def release(self, table_id: str) -> None:
        lease = self.held.pop(table_id, None)
        if lease is not None:
            with contextlib.suppress(LiveStateUnavailable):
                await self.live.release(lease)

    async def release_all(self) -> None:
        """Hand every table over (graceful drain): other nodes take them on their next call."""
        self.draining = True
        for table_id in list(self.held):
            await self.release(table_id)
        with contextlib.suppress(LiveStateUnavailable):
            await self.live.deregister_node(self.node_id)

    async def renew_once(self) -> list[str]:
        """Renew every held lease; returns the tables whose lease was lost to another node."""
        lost = []
        items = list(self.held.items())
        # Concurrent: the live state sends both in one round trip.
        registered, results = await asyncio.gather(
            self.live.register_node(self.node_id, self.address, NODE_TTL_MS),
            self.live.renew_many([lease for _, lease in items], LEASE_TTL_MS),
            return_exceptions=True)
        if isinstance(registered, BaseException):
            raise registered
        if isinstance(results, BaseException):
            raise results
        for (table_id, lease), ok in zip(items, results, strict=True):
            if ok or self.held.get(table_id) is not lease:
                continue
            retaken = await self._retake(lease)
            if self.held.get(table_id) is not lease:
                continue  # a command found out first (fenced out) or another renewal retook it
            if retaken is None:
                del self.held[table_id]
                lost.append(table_id)
            else:
                self.held[table_id] = retaken
        return lost

    async def _retake(self, lease: Lease) -> Lease | None:
        """The table's lease again if it merely lapsed: this node was too busy to renew it in
        time (a loaded CPU, a start-up rebuilding many tables) and no node has held it since.

        A process cannot lose a lease to itself, so this is not a loss: the node keeps its
        tables, their cached state and their watchers. None when another node holds the table
        or held it meanwhile (then it may have written, and the table is lost for real).
        """
        holder = await self.live.lease_holder(lease.table_id)
        if holder is not None:
            if holder.node_id == self.node_id and holder.token > lease.token:
                return Lease(lease.table_id, self.node_id, holder.token)  # a concurrent retake
            return None
        if await self.live.get_view(lease.table_id) is None:
            return None  # the live state itself was lost (flushed, restarted): rebuild it all
        try:
            # Our own token again: accepted only if no newer one was fenced, i.e. nobody wrote.
            await self._fence(lease.table_id, lease.token)
        except Fenced:
            return None
        fresh = await self.live.acquire_lease(lease.table_id, self.node_id, LEASE_TTL_MS,
                                              min_token=lease.token)
        if fresh is None:
            return None
        try:
            await self._fence(fresh.table_id, fresh.token)
        except Fenced:
            with contextlib.suppress(LiveStateUnavailable):
                await self.live.release(fresh)
            return None
        log.info("lease_retaken", table_id=lease.table_id, node=self.node_id)
        return fresh

    async def run(self, stop: asyncio.Event) -> None:
        """Renew leases and the node's registration until `stop`; report each lost lease."""
        while not stop.is_set():
            try:
                for table_id in await self.renew_once():
                    log.warning("lease_lost", table_id=table_id, node=self.node_id)
                    await self._on_lost(table_id)
            except LiveStateUnavailable as exc:
                log.warning("live_state_unavailable", error=str(exc))
            except Exception:
                log.exception("lease_renewal_failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), RENEW_EVERY_S)
