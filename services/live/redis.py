"""Live state in Redis (redis.asyncio + hiredis), on one server or a Redis Cluster.

Key layout (`ns` is the namespace):
- `ns:t:{table}:view|lease|fence` — a table's view and lease share the `{table}` hash tag;
- `ns:fo:{foN}:table` — a table's fan-out stream, in one of FANOUT_SHARDS slots by a hash of
  the table id: a node's stream readers XREAD many tables at once, and one XREAD may only
  name keys of one slot, so a few shared slots keep a node's blocking reads few;
- `ns:dl:{dlN}:due|data|bytable` — deadlines, sharded over DEADLINE_SHARDS fixed slots by a hash
  of the table id, because one global sorted set would pin every table's timer to one node;
- `ns:nodes:{nodes}:exp|addr` — the node registry; `ns:live` — the live tables index;
- `ns:rl:{key}` — a rate limit's call log; `ns:p:{player}` — presence;
- `ns:open:{player}` — the unfinished tables a player created (the open-tables limit).
Every script and multi-key command touches one hash slot; a pipeline may span slots (on a
cluster, redis-py sends each node its part). The URL picks the client (connection.py).
"""

from __future__ import annotations

import asyncio
import collections
import os
import zlib
from collections.abc import AsyncIterator, Sequence
from types import TracebackType
from typing import Any

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.live import scripts
from services.live.base import (
    Claim,
    Clock,
    Deadline,
    DueWatch,
    Holder,
    Lease,
    LiveState,
    LiveStateUnavailable,
    Published,
    Turn,
    View,
    check_min_token,
    check_ttl,
    check_version,
    wall_clock_ms,
)
from services.live.connection import connect, deadline, redis_address, unreachable
from services.live.fanout import StreamFanOut
from services.observability import LEASES

DEADLINE_SHARDS = 16
"""Fixed for a deployment: every node must map a table to the same shard."""

FANOUT_SHARDS = 64
"""Fixed for a deployment, like DEADLINE_SHARDS. On a cluster a node needs up to this many
blocking stream reads; more shards spread the streams more evenly over the masters."""

_DAY_MS = 24 * 3600 * 1000
PIPELINE_RETRIES = 2  # as the clients' own (connection.py): a Redis restart costs a call ~0.15 s


class _Pipeliner:
    """Script calls queued while earlier ones are in flight share one pipeline: one round trip
    for the commands of many tables (group commit, as in the event store). One pipeline at a
    time, so each table's updates reach Redis in the order they were made.

    redis-py's own pipelined scripts would ask SCRIPT EXISTS first, a second round trip; here a
    Redis that lost its scripts (restarted) is given them again and the calls it refused rerun.
    """

    def __init__(self, client: Any, call_timeout_s: float, max_calls: int = 512,
                 pool: Any = None) -> None:
        self._client = client
        self._call_timeout_s = call_timeout_s
        self._max_calls = max_calls
        # On one server (not a cluster): the connection pool, and the connection the pipelines
        # go out on (see _send).
        self._pool = pool
        self._conn: Any = None
        self._replies: Any = None  # the hiredis reader of that connection's replies
        self._queue: collections.deque[tuple[list[tuple[Any, list[str], list[Any]]], asyncio.Future[Any]]] = (
            collections.deque())
        self._flushing = False
        self._task: asyncio.Task[None] | None = None  # held: the loop keeps only weak references

    async def call(self, calls: list[tuple[Any, list[str], list[Any]]]) -> list[Any]:
        """Run `calls` (script, keys, args) in order; their results."""
        future = asyncio.get_running_loop().create_future()
        self._queue.append((calls, future))
        if not self._flushing:
            self._flushing = True
            self._task = asyncio.create_task(self._flush())
        return list(await future)

    async def _flush(self) -> None:
        try:
            while self._queue:
                batch = [self._queue.popleft()]
                size = len(batch[0][0])
                while self._queue and size + len(self._queue[0][0]) <= self._max_calls:
                    batch.append(self._queue.popleft())
                    size += len(batch[-1][0])
                flat = [c for calls, _ in batch for c in calls]
                try:
                    results = await self._run(flat)
                except Exception as exc:  # each caller sees the error (its guard names Redis)
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                except BaseException:
                    # This task was cancelled (the loop is closing): no caller may be left
                    # waiting for an answer that will never come.
                    gone = RedisConnectionError("the live state's pipeline was stopped")
                    for _, future in [*batch, *self._queue]:
                        if not future.done():
                            future.set_exception(gone)
                    self._queue.clear()
                    raise
                at = 0
                for calls, future in batch:
                    if not future.done():
                        future.set_result(results[at:at + len(calls)])
                    at += len(calls)
        finally:
            self._flushing = False

    async def _run(self, calls: list[tuple[Any, list[str], list[Any]]]) -> list[Any]:
        results = await self._execute(calls)
        lost = [i for i, r in enumerate(results) if isinstance(r, NoScriptError)]
        if lost:
            for script in {id(calls[i][0]): calls[i][0] for i in lost}.values():
                await self._client.script_load(script.script)
            for i, result in zip(lost, await self._execute([calls[i] for i in lost]), strict=True):
                results[i] = result
        for result in results:
            if isinstance(result, Exception):
                raise result
        return results

    async def _execute(self, calls: list[tuple[Any, list[str], list[Any]]]) -> list[Any]:
        async with deadline(self._call_timeout_s, f"a pipeline of {len(calls)} calls"):
            if self._pool is not None:
                return await self._send(calls)
            async with self._client.pipeline(transaction=False) as pipe:
                for script, keys, args in calls:
                    # execute_command: redis-py blocks pipe.evalsha on a cluster (for want of
                    # a NoScriptError fallback, which _run provides).
                    pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
                return list(await pipe.execute(raise_on_error=False))

    async def _send(self, calls: list[tuple[Any, list[str], list[Any]]]) -> list[Any]:
        """The calls on one server: packed by hiredis, written at once on a connection this
        pipeliner keeps, and their replies parsed from what the socket reads (an error reply is
        that call's result).

        A redis-py Pipeline per round trip (connection checkout, per-command packing in Python,
        retry wrapper, reply callbacks) cost about as much CPU as the rest of a command's live
        update (issue 18); so did redis-py's per-reply read (a timeout context each) and its
        send (a task per write under asyncio.wait_for). The connection is redis-py's (its
        connect does AUTH, SELECT, TLS), used as the stream it is: the whole round trip is under
        the caller's deadline. Like redis-py's own retries, a call that lost its connection is
        sent again on a new one, at most PIPELINE_RETRIES times: every script here may run twice.
        """
        packed = b"".join([hiredis.pack_command(("EVALSHA", script.sha, len(keys), *keys, *args))
                           for script, keys, args in calls])
        for attempt in range(PIPELINE_RETRIES + 1):
            if self._conn is None:
                self._conn = await self._pool.get_connection()
                self._replies = hiredis.Reader(replyError=ResponseError)
            conn, replies = self._conn, self._replies
            try:
                if not conn.is_connected:
                    await conn.connect()
                try:
                    conn._writer.write(packed)
                except RuntimeError as exc:  # uvloop: a transport closed under this connection
                    raise RedisConnectionError(str(exc)) from exc
                await conn._writer.drain()
                results: list[Any] = []
                want = len(calls)
                while len(results) < want:
                    reply = replies.gets()
                    if reply is False:
                        data = await conn._reader.read(65536)
                        if not data:
                            raise RedisConnectionError("the live state's connection was closed")
                        replies.feed(data)
                    elif isinstance(reply, ResponseError) and str(reply).startswith("NOSCRIPT"):
                        results.append(NoScriptError(str(reply)))
                    else:
                        results.append(reply)
                return results
            except (RedisConnectionError, RedisTimeoutError, OSError):
                await self._drop(conn)
                if attempt == PIPELINE_RETRIES:
                    raise
                await asyncio.sleep(0.05 * 2**attempt)
            except BaseException:  # cancelled mid-reply: what is left to read is unknown
                await self._drop(conn)
                raise
        raise AssertionError("unreachable")

    async def _drop(self, conn: Any) -> None:
        self._conn = None
        await conn.disconnect(nowait=True)
        await self._pool.release(conn)


class _Unavailable:
    """Turns connection failures into LiveStateUnavailable naming the address."""

    def __init__(self, address: str) -> None:
        self.address = address

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        if error is not None and unreachable(error):
            why = ("a connection closed while the cluster's slot map changed"
                   if isinstance(error, AttributeError | RuntimeError) else str(error))
            raise LiveStateUnavailable(
                f"live state (Redis at {self.address}) is unreachable: {why}"
            ) from error


class RedisLiveState(LiveState):
    """Live state shared by every game node through one Redis deployment (server or cluster)."""

    def __init__(
        self,
        url: str,
        namespace: str = "qipai",
        *,
        clock: Clock = wall_clock_ms,
        stream_maxlen: int = 1000,
        idle_ttl_ms: int = _DAY_MS,
        listen_block_ms: int = 100,
        listen_group_size: int = 256,
        listen_queue_size: int = 1024,
        connect_timeout_s: float = 2.0,
        max_connections: int = 200,
        call_timeout_s: float | None = None,
    ) -> None:
        if any(c in namespace for c in "{}*?[]"):
            raise ValueError(f"namespace {namespace!r} may not contain braces or glob characters")
        self.namespace = namespace
        self.address = redis_address(url)
        self._clock = clock
        self._maxlen = stream_maxlen
        self._idle_ttl_ms = idle_ttl_ms
        self._guard = _Unavailable(self.address)
        self._connection = connect(
            url,
            connect_timeout_s=connect_timeout_s,
            # A blocked XREAD must not look like a dead socket.
            socket_timeout_s=max(5.0, 3 * listen_block_ms / 1000),
            max_connections=max_connections,
            call_timeout_s=call_timeout_s,
        )
        self._client: Any = self._connection.client
        register = self._client.register_script
        self._set_view = register(scripts.SET_VIEW)
        self._publish = register(scripts.PUBLISH)
        self._acquire = register(scripts.ACQUIRE_LEASE)
        self._renew = register(scripts.RENEW_LEASE)
        self._release = register(scripts.RELEASE_LEASE)
        self._register_node = register(scripts.REGISTER_NODE)
        self._deregister_node = register(scripts.DEREGISTER_NODE)
        self._schedule = register(scripts.SCHEDULE)
        self._cancel = register(scripts.CANCEL)
        self._claim = register(scripts.CLAIM_DUE)
        self._due_scan = register(scripts.DUE_SCAN)
        self._lease_value = register(scripts.LEASE_VALUE)
        self._allow = register(scripts.ALLOW)
        self._claim_open = register(scripts.CLAIM_OPEN_TABLE)
        self._next_shard = 0
        self._pipeliner = _Pipeliner(self._client, self._connection.call_timeout_s,
                                     pool=None if self._connection.cluster else self._connection.pool)
        self._fanout = StreamFanOut(
            self._connection,
            lambda: self._guard,
            block_ms=listen_block_ms,
            group_size=listen_group_size,
            queue_size=listen_queue_size,
        )

    # -- keys -------------------------------------------------------------------------------
    def _table_key(self, table_id: str, what: str) -> str:
        return f"{self.namespace}:t:{{{table_id}}}:{what}"

    def _stream_key(self, table_id: str) -> str:
        shard = zlib.crc32(table_id.encode()) % FANOUT_SHARDS
        return f"{self.namespace}:fo:{{fo{shard}}}:{table_id}"

    def _shard_keys(self, shard: int) -> list[str]:
        base = f"{self.namespace}:dl:{{dl{shard}}}"
        return [f"{base}:due", f"{base}:data", f"{base}:bytable"]

    @staticmethod
    def _shard(table_id: str) -> int:
        return zlib.crc32(table_id.encode()) % DEADLINE_SHARDS

    @property
    def _node_keys(self) -> list[str]:
        return [f"{self.namespace}:nodes:{{nodes}}:exp", f"{self.namespace}:nodes:{{nodes}}:addr"]

    # -- table view cache -------------------------------------------------------------------
    async def set_view(self, table_id: str, version: int, data: bytes) -> bool:
        with self._guard:
            stored = await self._set_view(
                keys=[self._table_key(table_id, "view")],
                args=[version, data, self._idle_ttl_ms],
            )
        return bool(stored)

    async def get_view(self, table_id: str) -> View | None:
        with self._guard:
            version, data = await self._client.hmget(self._table_key(table_id, "view"), "v", "d")
        if version is None or data is None:
            return None
        return View(int(version), bytes(data))

    # -- fan-out ----------------------------------------------------------------------------
    async def publish(self, table_id: str, version: int, payload: bytes) -> bool:
        check_version(version)
        with self._guard:
            added = await self._publish(
                keys=[self._stream_key(table_id)],
                args=[self._maxlen, self._idle_ttl_ms, wall_clock_ms(), version, payload],
            )
        return bool(added)

    async def update_table(
        self, table_id: str, events: Sequence[Published], view: View | None = None,
        turn: Turn | None = None, *, then: Sequence[Published] = (),
    ) -> int:
        # The stream, the view and the deadline live in three hash slots: three scripts, one
        # round trip (each is idempotent by version, so their order across slots is free).
        # `then` is a script of its own: Redis serves a blocked XREAD between two scripts.
        calls: list[tuple[Any, list[str], list[Any]]] = []
        published = 0
        now = wall_clock_ms()
        for part in (events, then):
            if part:
                args: list[int | bytes] = [self._maxlen, self._idle_ttl_ms, now]
                for event in part:
                    check_version(event.version)
                    args += [event.version, event.payload]
                calls.append((self._publish, [self._stream_key(table_id)], args))
                published += 1
        if view is not None:
            calls.append((self._set_view, [self._table_key(table_id, "view")],
                          [view.version, view.data, self._idle_ttl_ms]))
        if turn is not None:
            shard = self._shard_keys(self._shard(table_id))
            if turn.due_ms is None:
                calls.append((self._cancel, shard, ["one", self._member(table_id, turn.key)]))
            else:
                self._scheduling(turn.due_ms)
                calls.append((self._schedule, shard,
                              [self._member(table_id, turn.key), turn.due_ms, turn.payload]))
        if not calls:
            return 0
        with self._guard:
            results = await self._pipeliner.call(calls)
        return sum(int(r) for r in results[:published])

    async def listen(self, table_id: str, after_version: int) -> AsyncIterator[Published]:
        async for message in self._fanout.listen(self._stream_key(table_id), after_version):
            yield message

    # -- single-writer lease ----------------------------------------------------------------
    async def acquire_lease(
        self, table_id: str, node_id: str, ttl_ms: int, min_token: int = 0
    ) -> Lease | None:
        check_ttl(ttl_ms)
        check_min_token(min_token)
        with self._guard:
            token = await self._acquire(
                keys=[self._table_key(table_id, "lease"), self._table_key(table_id, "fence")],
                args=[node_id, ttl_ms, min_token, max(_DAY_MS, 2 * ttl_ms)],
            )
        LEASES.labels("acquire", "refused" if token is None else "ok").inc()
        if token is None:
            return None
        return Lease(table_id, node_id, int(token))

    async def renew(self, lease: Lease, ttl_ms: int) -> bool:
        check_ttl(ttl_ms)
        with self._guard:
            renewed = await self._renew(
                keys=[self._table_key(lease.table_id, "lease")],
                args=[f"{lease.token} {lease.node_id}", ttl_ms],
            )
        LEASES.labels("renew", "ok" if renewed else "lost").inc()
        return bool(renewed)

    async def renew_many(self, leases: Sequence[Lease], ttl_ms: int) -> list[bool]:
        check_ttl(ttl_ms)
        if not leases:
            return []
        calls: list[tuple[Any, list[str], list[Any]]] = [
            (self._renew, [self._table_key(lease.table_id, "lease")],
             [f"{lease.token} {lease.node_id}", ttl_ms])
            for lease in leases
        ]
        with self._guard:
            results = await self._pipeliner.call(calls)
        renewed = sum(1 for r in results if r)
        LEASES.labels("renew", "ok").inc(renewed)
        LEASES.labels("renew", "lost").inc(len(results) - renewed)
        return [bool(r) for r in results]

    async def release(self, lease: Lease) -> bool:
        with self._guard:
            released = await self._release(
                keys=[self._table_key(lease.table_id, "lease")],
                args=[f"{lease.token} {lease.node_id}"],
            )
        LEASES.labels("release", "ok" if released else "lost").inc()
        return bool(released)

    async def lease_holder(self, table_id: str) -> Holder | None:
        with self._guard:
            value = await self._client.get(self._table_key(table_id, "lease"))
        if value is None:
            return None
        token, node_id = value.decode().split(" ", 1)
        return Holder(node_id, int(token))

    # -- node registry ----------------------------------------------------------------------
    async def register_node(self, node_id: str, address: str, ttl_ms: int) -> None:
        check_ttl(ttl_ms)
        now = self._clock()
        with self._guard:  # every renewal round: the cheap path, as the leases it goes with
            await self._pipeliner.call(
                [(self._register_node, self._node_keys, [node_id, address, now + ttl_ms, now])])

    async def deregister_node(self, node_id: str) -> None:
        with self._guard:
            await self._deregister_node(keys=self._node_keys, args=[node_id])

    async def node_address(self, node_id: str) -> str | None:
        expiry, addresses = self._node_keys
        with self._guard:
            async with self._client.pipeline(transaction=False) as pipe:
                expires, address = await pipe.zscore(expiry, node_id).hget(
                    addresses, node_id
                ).execute()
        if expires is None or address is None or expires <= self._clock():
            return None
        return str(address.decode())

    async def live_nodes(self) -> list[str]:
        with self._guard:
            nodes = await self._client.zrangebyscore(
                self._node_keys[0], f"({self._clock()}", "+inf"
            )
        return sorted(node.decode() for node in nodes)

    # -- deadlines --------------------------------------------------------------------------
    @staticmethod
    def _member(table_id: str, key: str) -> str:
        # Length-prefixed so that one table's members form a lexicographic range of their own.
        return f"{_table_prefix(table_id)}{key}"

    async def schedule(self, table_id: str, key: str, due_ms: int, payload: bytes) -> None:
        self._scheduling(due_ms)
        # Through the pipeliner, as update_table's: a claim issued later reads it (`claim_due`).
        with self._guard:
            await self._pipeliner.call([(self._schedule, self._shard_keys(self._shard(table_id)),
                                         [self._member(table_id, key), due_ms, payload])])

    async def cancel(self, table_id: str, key: str | None = None) -> int:
        target = ["table", _table_prefix(table_id)] if key is None else ["one", self._member(table_id, key)]
        with self._guard:
            removed = await self._cancel(
                keys=self._shard_keys(self._shard(table_id)), args=target
            )
        return int(removed)

    async def claim_due(
        self,
        now_ms: int,
        limit: int,
        node_id: str | None = None,
        redeliver_after_ms: int | None = None,
        watch: DueWatch | None = None,
    ) -> list[Deadline]:
        if limit < 1:
            return []
        if watch is not None:
            watch.next_ms = None  # schedules from now on lower it; earlier ones are in the scan
        try:
            return await self._claim_due(now_ms, limit, node_id, redeliver_after_ms, watch)
        except BaseException:
            if watch is not None:
                watch.lower(now_ms)  # unknown: look again at the next tick
            raise

    async def _claim_due(self, now_ms: int, limit: int, node_id: str | None,
                         redeliver_after_ms: int | None, watch: DueWatch | None) -> list[Deadline]:
        # Three round trips at most, each one pipeline over the shards: what is due (and when
        # the next one falls due), who holds those tables, the claims.
        redeliver_at = 0 if redeliver_after_ms is None else now_ms + max(1, redeliver_after_ms)
        start = self._next_shard
        self._next_shard = (start + 1) % DEADLINE_SHARDS  # the first shard served rotates (fairness)
        order = [(start + i) % DEADLINE_SHARDS for i in range(DEADLINE_SHARDS)]
        # Look past the first `limit`: the head may belong to tables other nodes hold.
        fetch = max(1, limit) if node_id is None else max(8 * limit, 256)
        with self._guard:
            scans = await self._pipeliner.call(
                [(self._due_scan, self._shard_keys(shard)[:1], [now_ms, fetch]) for shard in order])
            due = {shard: [m.decode() for m in scan[1:]]
                   for shard, scan in zip(order, scans, strict=True) if len(scan) > 1}
            if watch is not None:
                for scan in scans:
                    if scan[0]:
                        watch.lower(int(float(scan[0])))
            if not due:
                return []
            if node_id is not None:
                due = await self._owned(due, node_id)
            calls: list[tuple[Any, list[str], list[Any]]] = []
            chosen_count = 0
            for shard, members in due.items():
                chosen = members[:limit - chosen_count]
                if chosen:
                    calls.append((self._claim, self._shard_keys(shard),
                                  [now_ms, len(chosen), redeliver_at, *chosen]))
                    chosen_count += len(chosen)
            results = await self._pipeliner.call(calls) if calls else []
        claimed = [d for flat in results for d in _deadlines(flat)]
        if watch is not None:
            if claimed and redeliver_at:
                watch.lower(redeliver_at)
            scanned = [len(scan) - 1 for scan in scans]
            if sum(scanned) > len(claimed) or max(scanned) >= fetch:
                watch.lower(now_ms)  # due ones left: other nodes' tables, or beyond `limit`
        return claimed

    async def _owned(self, due: dict[int, list[str]], node_id: str) -> dict[int, list[str]]:
        """The due members of each shard whose table lease `node_id` holds (read, then claimed)."""
        tables = sorted({_member_table(m) for members in due.values() for m in members})
        # One read per table, not MGET: the lease keys live in as many hash slots as tables.
        holders = await self._pipeliner.call(
            [(self._lease_value, [self._table_key(table, "lease")], []) for table in tables])
        mine = {
            table
            for table, value in zip(tables, holders, strict=True)
            if value is not None and value.decode().split(" ", 1)[1] == node_id
        }
        return {shard: [m for m in members if _member_table(m) in mine]
                for shard, members in due.items()}

    # -- live tables index ------------------------------------------------------------------
    async def mark_live(self, table_id: str) -> None:
        with self._guard:
            await self._client.sadd(f"{self.namespace}:live", table_id)

    async def unmark_live(self, table_id: str) -> None:
        with self._guard:
            await self._client.srem(f"{self.namespace}:live", table_id)

    async def live_tables(self) -> list[str]:
        with self._guard:
            tables = await self._client.smembers(f"{self.namespace}:live")
        return sorted(t.decode() for t in tables)

    async def claim_open_table(self, player_id: str, table_id: str, limit: int) -> Claim:
        with self._guard:
            claimed = await self._claim_open(keys=[f"{self.namespace}:open:{{{player_id}}}"],
                                             args=[table_id, limit])
        return (Claim.REFUSED, Claim.ADDED, Claim.HELD)[int(claimed)]

    async def remove_open_table(self, player_id: str, table_id: str) -> None:
        with self._guard:
            await self._client.srem(f"{self.namespace}:open:{{{player_id}}}", table_id)

    async def open_tables(self, player_id: str) -> list[str]:
        with self._guard:
            tables = await self._client.smembers(f"{self.namespace}:open:{{{player_id}}}")
        return sorted(t.decode() for t in tables)

    async def drop_table(self, table_id: str) -> None:
        with self._guard:
            # One key per DEL: the view and the stream are in different hash slots.
            await self._client.delete(self._table_key(table_id, "view"))
            await self._client.delete(self._stream_key(table_id))
            await self.cancel(table_id)
            await self.unmark_live(table_id)

    # -- rate limits and presence -----------------------------------------------------------
    async def allow(self, key: str, limit: int, window_ms: int) -> bool:
        check_ttl(window_ms)
        with self._guard:
            allowed = await self._allow(
                keys=[f"{self.namespace}:rl:{{{key}}}"],
                args=[self._clock(), window_ms, limit, os.urandom(8).hex()],
            )
        return bool(allowed)

    async def touch_presence(self, player_id: str, ttl_ms: int) -> None:
        check_ttl(ttl_ms)
        with self._guard:
            await self._client.set(f"{self.namespace}:p:{{{player_id}}}", b"1", px=ttl_ms)

    async def is_present(self, player_id: str) -> bool:
        with self._guard:
            return bool(await self._client.exists(f"{self.namespace}:p:{{{player_id}}}"))

    # -- housekeeping -----------------------------------------------------------------------
    async def ping(self) -> None:
        with self._guard:
            await self._client.ping()

    async def flush_namespace(self) -> None:
        with self._guard:
            # One key per UNLINK: a multi-key UNLINK would cross slots on Redis Cluster.
            async with self._client.pipeline(transaction=False) as pipe:
                async for key in self._client.scan_iter(match=f"{self.namespace}:*", count=500):
                    pipe.execute_command("UNLINK", key)
                await pipe.execute()

    async def close(self) -> None:
        await self._fanout.close()
        await self._connection.close()


def _table_prefix(table_id: str) -> str:
    return f"{len(table_id)}:{table_id}"


def _member_table(member: str) -> str:
    length, rest = member.split(":", 1)
    return rest[: int(length)]


def _deadlines(flat: list[bytes]) -> list[Deadline]:
    out = []
    for i in range(0, len(flat), 2):
        member = flat[i].decode()
        table_id = _member_table(member)
        key = member[len(_table_prefix(table_id)) :]
        out.append(Deadline(table_id, key, bytes(flat[i + 1])))
    return out
