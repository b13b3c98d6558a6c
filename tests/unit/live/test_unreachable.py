"""Which client errors mean "Redis could not be reached" (LiveStateUnavailable, UNAVAILABLE to a
client) rather than a bug (INTERNAL)."""

from __future__ import annotations

import pytest

from services.live.connection import unreachable


def _raised_inside_redis_connection(error: Exception) -> Exception:
    """`error` as redis-py's asyncio connection module raises it (its frame's file name)."""
    scope: dict[str, object] = {}
    code = compile("def send(error):\n    raise error\n", "/venv/redis/asyncio/connection.py", "exec")
    exec(code, scope)  # noqa: S102 - a function whose frames name redis's module
    try:
        scope["send"](error)  # type: ignore[operator]
    except Exception as raised:  # noqa: BLE001
        return raised
    raise AssertionError("not raised")


@pytest.mark.parametrize("error", [
    AttributeError("'NoneType' object has no attribute 'writelines'"),
    RuntimeError("unable to perform operation on <TCPTransport closed=True>; the handler is closed"),
])
def test_a_write_on_a_connection_the_cluster_client_closed_is_unreachable(error):
    assert unreachable(_raised_inside_redis_connection(error))


@pytest.mark.parametrize("error", [AttributeError("x"), RuntimeError("x")])
def test_the_same_errors_from_our_own_code_are_bugs(error):
    try:
        raise error
    except Exception as raised:  # noqa: BLE001
        assert not unreachable(raised)


def test_a_cluster_with_no_node_that_answers_for_the_slot_map_is_unreachable():
    from redis.exceptions import RedisClusterException
    from redis.exceptions import TimeoutError as RedisTimeoutError

    try:
        try:
            raise RedisTimeoutError("Timeout reading from 127.0.0.1:7100")
        except RedisTimeoutError as timeout:
            raise RedisClusterException("Redis Cluster cannot be connected.") from timeout
    except RedisClusterException as raised:
        assert unreachable(raised)
    assert not unreachable(RedisClusterException("Invalid args in command"))  # a bug, not an outage
