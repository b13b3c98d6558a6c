"""A Redis URL made into a client: one Redis server, or a Redis Cluster.

- `redis://[user:pass@]host:port/db`, `rediss://…`, `unix:///path` — one server;
- `redis+cluster://[user:pass@]host:port,host:port,…` (TLS: `rediss+cluster://`) — a Redis
  Cluster, found through any of the listed nodes. One is enough; listing several lets a node
  start while one of them is down. Cluster has only database 0, so the URL names none.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ClusterError, RedisClusterException, SlotNotCoveredError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
SINGLE_SCHEMES = ("redis", "rediss", "unix")

UNREACHABLE: tuple[type[BaseException], ...] = (
    RedisConnectionError, RedisTimeoutError, OSError,
    # A cluster with a master down answers CLUSTERDOWN, or has slots nobody serves.
    ClusterError, SlotNotCoveredError,
)
"""What a client raises when its Redis (or part of its cluster) cannot be reached."""


def unreachable(error: BaseException) -> bool:
    """Whether `error` means a command could not reach Redis."""
    if isinstance(error, UNREACHABLE):
        return True
    # The cluster client found no node it could ask for the slot map (all of them refused or
    # timed out): raised from the last node's connection error.
    if isinstance(error, RedisClusterException) and error.__cause__ is not None:
        return unreachable(error.__cause__)
    # redis-py 8.1's cluster client closes every connection when it relearns the slot map (a
    # master failed over), the ones other commands are writing to included: those fail on the
    # closed socket before anything was sent, with an AttributeError, or under uvloop with a
    # RuntimeError ("unable to perform operation on <TCPTransport closed=True>").
    if isinstance(error, AttributeError | RuntimeError):
        tb = error.__traceback__
        while tb is not None:
            if Path(tb.tb_frame.f_code.co_filename).parts[-3:] == ("redis", "asyncio", "connection.py"):
                return True
            tb = tb.tb_next
    return False


def scheme(url: str) -> str:
    return url.split("://", 1)[0].lower() if "://" in url else ""


@dataclass(frozen=True)
class ClusterURL:
    """The parts of a `redis+cluster://` URL."""

    nodes: tuple[tuple[str, int], ...]
    username: str | None
    password: str | None
    tls: bool

    @classmethod
    def parse(cls, url: str) -> ClusterURL:
        kind, _, rest = url.partition("://")
        if kind.lower() not in CLUSTER_SCHEMES:
            raise ValueError(f"not a Redis Cluster URL: {kind}://… (use redis+cluster://host:port,…)")
        location = rest.split("/", 1)[0].split("?", 1)[0]
        credentials, _, hosts = location.rpartition("@")
        user, _, password = credentials.partition(":")
        nodes = []
        for part in hosts.split(","):
            host, sep, port = part.strip().rpartition(":")
            if not sep or not host or not port.isdigit():
                raise ValueError(
                    f"Redis Cluster node {part.strip()!r} must be host:port "
                    "(redis+cluster://host:port,host:port,…)"
                )
            nodes.append((host.strip("[]"), int(port)))
        database = rest.split("/", 1)[1].split("?", 1)[0] if "/" in rest else ""
        if database not in ("", "0"):
            raise ValueError(f"Redis Cluster has only database 0, not {database}")
        return cls(tuple(nodes), unquote(user) or None, unquote(password) or None,
                   kind.lower() == "rediss+cluster")

    @property
    def address(self) -> str:
        return "cluster " + ",".join(f"{h}:{p}" for h, p in self.nodes)


@contextlib.asynccontextmanager
async def deadline(seconds: float, what: str) -> AsyncIterator[None]:
    """At most `seconds` for the calls inside, else redis-py's TimeoutError (so: unreachable)
    saying what did not answer. redis-py's own timeouts bound each socket read, not a call: a
    cluster client that lost a master retries, relearns the slot map and waits for connections
    of its own accord, and after a master's kill -9 one call was seen waiting for minutes."""
    bound = asyncio.timeout(seconds)
    try:
        async with bound:
            yield
    except TimeoutError:
        if not bound.expired():
            raise
        raise RedisTimeoutError(f"{what} got no answer within {seconds:g} s") from None


class _Cluster(RedisCluster):
    """A cluster client that learns the slot map before each command that finds it unknown,
    and gives each command at most `call_timeout_s`, retries and relearning the map included.

    redis-py 8.1 starts resolving a command (asking a node for its keys) before it learns the
    map; concurrent first commands then race on connections that learning it closes.
    """

    call_timeout_s = 10.0

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        async with deadline(self.call_timeout_s, f"{args[0] if args else 'a command'}"):
            await self.initialize()  # returns at once while the map is known
            return await super().execute_command(*args, **kwargs)


def redis_address(url: str) -> str:
    """Where a Redis URL points, without user or password (for messages and logs)."""
    if scheme(url) in CLUSTER_SCHEMES:
        return ClusterURL.parse(url).address
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return parts.path
    host = parts.hostname or "localhost"
    port = parts.port or 6379
    db = parts.path.lstrip("/") or "0"
    return f"{host}:{port}/{db}"


@dataclass
class Connection:
    """A client (Any: redis-py types every reply as a union of sync/async and bytes/str), the
    hash slot of a key (constant on one server, where any keys may share a command), and how to
    close it."""

    client: Any
    slot: Callable[[str], int]
    cluster: bool
    call_timeout_s: float
    _pool: Any = None

    async def xread(self, streams: dict[str, str], count: int, block_ms: int) -> Any:
        """XREAD of streams that share one hash slot. On a cluster it goes straight to the node
        serving that slot: redis-py would otherwise ask a server which of XREAD's arguments are
        keys (COMMAND GETKEYS) before every call, a second round trip."""
        if not self.cluster:
            return await self.client.xread(streams, count=count, block=block_ms)
        async with deadline(self.call_timeout_s, "XREAD"):
            await self.client.initialize()  # returns at once while the slot map is known
        node = self.client.get_node_from_key(next(iter(streams)))
        return await self.client.execute_command(
            "XREAD", "COUNT", count, "BLOCK", block_ms, "STREAMS", *streams, *streams.values(),
            target_nodes=node,
        )

    @property
    def pool(self) -> Any:
        """One server's connection pool (None on a cluster, whose client has one per node)."""
        return self._pool

    def in_use(self) -> int:
        """Connections checked out right now (on a cluster, over every node): the blocking
        stream reads among them show how many connections the fan-out holds."""
        if self._pool is not None:
            return len(self._pool._in_use_connections)
        return sum(len(node._connections) - len(node._free) for node in self.client.get_nodes())

    async def close(self) -> None:
        await self.client.aclose()
        if self._pool is not None:
            await self._pool.aclose()


def connect(
    url: str, *, connect_timeout_s: float, socket_timeout_s: float, max_connections: int,
    call_timeout_s: float | None = None,
) -> Connection:
    """A client for `url`; nothing connects until the first command. A call (a command, with
    redis-py's retries, or a pipeline) gets at most `call_timeout_s` in all (by default twice
    `socket_timeout_s`)."""
    call_timeout_s = call_timeout_s or 2 * socket_timeout_s
    # Two quick retries with a short backoff: a Redis restart or a cluster's topology change
    # should cost a call a few hundred milliseconds, not the library's default seconds.
    retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), 2)
    if scheme(url) in CLUSTER_SCHEMES:
        parsed = ClusterURL.parse(url)
        client = _Cluster(
            startup_nodes=[ClusterNode(host, port) for host, port in parsed.nodes],
            username=parsed.username,
            password=parsed.password,
            ssl=parsed.tls,
            # Per node; a cluster client does not queue for a connection, it fails.
            max_connections=max_connections,
            socket_connect_timeout=connect_timeout_s,
            socket_timeout=socket_timeout_s,
            retry=retry,
            # No health_check_interval: with it, redis-py 8.1's cluster client lets two
            # concurrent first commands share a connection mid-handshake (AttributeError).
        )
        client.call_timeout_s = call_timeout_s
        return Connection(client, client.keyslot, cluster=True, call_timeout_s=call_timeout_s)
    # Blocking pool: a burst of concurrent calls waits for a connection instead of failing.
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=5,
        socket_connect_timeout=connect_timeout_s,
        socket_timeout=socket_timeout_s,
        retry=retry,
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
        health_check_interval=30,
    )
    return Connection(aioredis.Redis(connection_pool=pool), lambda key: 0, cluster=False,
                      call_timeout_s=call_timeout_s, _pool=pool)
