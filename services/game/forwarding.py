"""Cross-node forwarding: a call for a table another node serves is sent on to that node.

While a dead node's lease runs out, calls wait and retry (a short delay, never an error the
client must understand); then this node takes the table over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import grpc

from qipai.v1 import game_pb2_grpc
from services.errors import Unavailable
from services.game.leases import Leases, NotHolder
from services.observability import log

HOPS_HEADER = "qipai-forwarded"
MAX_HOPS = 2
FORWARD_TIMEOUT_S = 10.0
FORWARD_WINDOW_S = 12.0  # longer than a lease's life, so a dead holder's tables are taken over
RETRY_S = 0.2  # between attempts while a table has no reachable node

T = TypeVar("T")


class Forwarder:
    """Runs a call here when this node serves the table, else on the node that does."""

    def __init__(self, leases: Leases) -> None:
        self.leases = leases
        self._channels: dict[str, grpc.aio.Channel] = {}

    async def routed(self, method: str, request: Any, context: grpc.aio.ServicerContext[Any, Any],
                     local: Callable[[], Awaitable[T]], stub: Callable[[grpc.aio.Channel], Any] = (
                         game_pb2_grpc.GameStub)) -> T:
        """`local()` here, or `method` of `stub` (the Game service's) with `request` on the
        table's node."""
        try:
            return await local()
        except NotHolder as exc:
            moved = exc
        # Only a call this node does not serve pays for reading the hops and the clock.
        hops = _hops(context)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + FORWARD_WINDOW_S
        while True:
            if moved.address is None and self.leases.draining:
                raise Unavailable("this node is shutting down; another node serves the table") from None
            if moved.address and moved.address != self.leases.address and hops < MAX_HOPS:
                try:
                    result: T = await self._forward(moved.address, method, request, context, hops, stub)
                    return result
                except grpc.aio.AioRpcError as err:
                    if err.code() != grpc.StatusCode.UNAVAILABLE:
                        await context.abort(err.code(), err.details() or "",
                                            trailing_metadata=_relayable(err.trailing_metadata()))
                    log.warning("forward_failed", table_id=moved.table_id, to=moved.address,
                                code=err.code().name)
            if loop.time() > give_up:
                log.warning("table_unreachable", table_id=moved.table_id, holder=moved.node_id)
                raise Unavailable("the table's node cannot be reached; retry shortly") from None
            await asyncio.sleep(RETRY_S)
            try:
                return await local()
            except NotHolder as exc:
                moved = exc

    async def _forward(self, address: str, method: str, request: Any,
                       context: grpc.aio.ServicerContext[Any, Any], hops: int,
                       stub_type: Callable[[grpc.aio.Channel], Any]) -> Any:
        chan = self._channels.get(address)
        if chan is None:
            chan = self._channels[address] = grpc.aio.insecure_channel(address)
        metadata = [(k, v) for k, v in context.invocation_metadata() or () if k == "authorization"]
        metadata.append((HOPS_HEADER, str(hops + 1)))
        stub = stub_type(chan)
        return await getattr(stub, method)(request, metadata=tuple(metadata), timeout=FORWARD_TIMEOUT_S)


def _hops(context: grpc.aio.ServicerContext[Any, Any]) -> int:
    for key, value in context.invocation_metadata() or ():
        if key == HOPS_HEADER:
            return int(value) if str(value).isdigit() else MAX_HOPS
    return 0


def _relayable(metadata: Sequence[tuple[str, Any]] | None) -> tuple[tuple[str, Any], ...]:
    """The trailing metadata worth passing on (the rich status with a rule violation)."""
    return tuple((k, v) for k, v in metadata or () if k == "grpc-status-details-bin")
