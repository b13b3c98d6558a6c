"""Every live-state call on a Redis Cluster ends within its deadline: a node that takes a
command and never answers (a master killed mid-failover, a partition) makes the call
LiveStateUnavailable (UNAVAILABLE to a client) with a message saying so, never a hang."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from services.live.base import LiveStateUnavailable
from services.live.base import View as LiveView
from services.live.redis import RedisLiveState


@pytest.fixture
async def silent_node() -> AsyncIterator[int]:
    """A port that accepts connections and reads what is sent, but never answers."""
    async def swallow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.read(4096):
            pass
        writer.close()

    server = await asyncio.start_server(swallow, "127.0.0.1", 0)
    yield server.sockets[0].getsockname()[1]
    server.close()


async def test_a_command_a_cluster_node_never_answers_is_unavailable_after_its_deadline(silent_node):
    live = RedisLiveState(f"redis+cluster://127.0.0.1:{silent_node}", "deadline", call_timeout_s=0.3)
    try:
        with pytest.raises(LiveStateUnavailable, match=r"got no answer within 0\.3 s"):
            await asyncio.wait_for(live.get_view("table-x"), 30)  # the library alone waits longer
    finally:
        await live.close()


async def test_a_pipelined_update_a_cluster_node_never_answers_is_unavailable_after_its_deadline(silent_node):
    live = RedisLiveState(f"redis+cluster://127.0.0.1:{silent_node}", "deadline", call_timeout_s=0.3)
    try:
        with pytest.raises(LiveStateUnavailable, match=r"got no answer within 0\.3 s"):
            await asyncio.wait_for(live.update_table("table-x", [], LiveView(1, b"{}")), 30)
    finally:
        await live.close()
