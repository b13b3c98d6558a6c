"""Fencing tokens: once a stream has seen a newer lease token, a writer under an older one can
never append to it again."""

from __future__ import annotations

import asyncio

import pytest

from services.eventstore import Fenced, InvalidVersion

from .events import moved

pytestmark = pytest.mark.integration


async def test_an_append_under_the_streams_newest_token_goes_through(store):
    await store.fence("table-1", 3)
    assert await store.append("table-1", 0, [moved(1)], fence=3) == 1
    assert await store.append("table-1", 1, [moved(2)], fence=4) == 2


async def test_an_append_under_an_older_token_is_refused_and_writes_nothing(store):
    await store.fence("table-1", 1)
    await store.append("table-1", 0, [moved(1)], fence=1)
    await store.fence("table-1", 2)  # another node took the table over
    with pytest.raises(Fenced) as caught:
        await store.append("table-1", 1, [moved(2), moved(3)], fence=1)
    assert (caught.value.stream_id, caught.value.token, caught.value.newest) == ("table-1", 1, 2)
    assert "table-1" in str(caught.value)
    assert await store.stream_version("table-1") == 1


async def test_a_fence_never_moves_back(store):
    await store.fence("table-1", 5)
    await store.fence("table-1", 5)  # the same holder again, e.g. after a restart
    with pytest.raises(Fenced) as caught:
        await store.fence("table-1", 4)
    assert caught.value.newest == 5
    with pytest.raises(Fenced):
        await store.append("table-1", 0, [moved(1)], fence=4)


async def test_fences_are_per_stream(store):
    await store.fence("table-1", 9)
    assert await store.append("table-2", 0, [moved(1)], fence=1) == 1


async def test_appends_without_a_token_are_not_fenced(store):
    await store.fence("table-1", 9)
    assert await store.append("table-1", 0, [moved(1)]) == 1


async def test_a_retried_command_is_answered_even_after_its_writer_was_fenced_out(store):
    await store.fence("table-1", 1)
    assert await store.append("table-1", 0, [moved(1)], command_id="c1", fence=1) == 1
    await store.fence("table-1", 2)
    # Nothing is written, so nothing to fence: the original result stands.
    assert await store.append("table-1", 0, [moved(1)], command_id="c1", fence=1) == 1


async def test_a_fenced_append_fails_alone_among_concurrent_appends(store):
    await store.fence("taken", 2)
    results = await asyncio.gather(
        *(store.append(f"free-{i}", 0, [moved(i)], fence=1) for i in range(10)),
        store.append("taken", 0, [moved(0)], fence=1),
        return_exceptions=True,
    )
    assert results[:10] == [1] * 10
    assert isinstance(results[10], Fenced)
    assert await store.stream_version("taken") == 0


@pytest.mark.parametrize("token", [-1, 1.5, True, "2"])
async def test_a_fencing_token_must_be_a_non_negative_integer(store, token):
    with pytest.raises(InvalidVersion, match="fencing token"):
        await store.fence("table-1", token)
    with pytest.raises(InvalidVersion, match="fencing token"):
        await store.append("table-1", 0, [moved(1)], fence=token)
