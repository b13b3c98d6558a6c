"""Forwarding: a call runs here when this node serves the table, and waits, never errs, while
the table's node is being replaced; a draining node sends callers elsewhere."""

from __future__ import annotations

import pytest

from services.errors import Unavailable
from services.game import forwarding
from services.game.forwarding import Forwarder
from services.game.leases import NotHolder


class _Leases:
    def __init__(self, draining: bool = False) -> None:
        self.draining, self.address = draining, "a:1"


class _Context:
    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()


async def test_a_call_for_a_table_this_node_serves_runs_here():
    async def local() -> str:
        return "done here"

    assert await Forwarder(_Leases()).routed("Act", None, _Context(), local) == "done here"


async def test_a_draining_node_tells_the_caller_to_go_elsewhere():
    async def local() -> str:
        raise NotHolder("table-1", None, None)

    with pytest.raises(Unavailable, match="shutting down"):
        await Forwarder(_Leases(draining=True)).routed("Act", None, _Context(), local)


async def test_a_call_waits_while_a_dead_nodes_lease_runs_out_then_runs_here(monkeypatch):
    monkeypatch.setattr(forwarding, "RETRY_S", 0.0)
    attempts = []

    async def local() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise NotHolder("table-1", "node-b", None)  # its node is gone: no address
        return "taken over"

    assert await Forwarder(_Leases()).routed("Act", None, _Context(), local) == "taken over"
    assert len(attempts) == 3
