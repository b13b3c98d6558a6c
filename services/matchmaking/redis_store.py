"""Tickets and queues in Redis (or a Redis Cluster), shared by every matchmaker process.

Every key of one queue carries the queue's hash tag (`<ns>:mmq:{<queue>}:…`), so the queue, its
tickets and its pending matches sit in one hash slot and each Lua script below runs atomically
over all of them. FORM is the formation step: it picks the groups and moves their tickets out
of the queue into a pending match in one script, so a ticket is in at most one match, whatever
number of processes call it at once. A player's pointer to their latest ticket lives in the
player's own slot; it is set (compare-and-set) before the ticket is created, so two Queue calls
of one player make one ticket.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from typing import Any

from services.live.connection import connect, redis_address
from services.live.redis import _Unavailable

from .config import QueueSpec
from .store import RECENT_WAITS
from .tickets import SEARCHING, Match, Ticket

KEEP_MS = 24 * 3600 * 1000  # a finished ticket (and a player's pointer) is kept this long
SCAN = 512  # tickets one formation step looks at, from the front of the queue
CREATING_MS = 2000  # a pointer to a ticket not yet written is trusted this long

_BAND = """
local function band(waited)
  local b = bstart + math.floor(widen * math.max(0, waited) / 1000)
  if b > bmax then b = bmax end
  return b
end
"""

# KEYS: queue, pending, match counter. ARGV: key prefix, now, seats, bot fill after, band
# start, widen per s, band max, limit, lease until, scan, keep ms.
FORM = """
local prefix = ARGV[1]
local now = tonumber(ARGV[2])
local seats = tonumber(ARGV[3])
local botafter = tonumber(ARGV[4])
local bstart = tonumber(ARGV[5])
local widen = tonumber(ARGV[6])
local bmax = tonumber(ARGV[7])
local limit = tonumber(ARGV[8])
local lease = ARGV[9]
local scan = tonumber(ARGV[10])
""" + _BAND + """
local ids = redis.call('ZRANGE', KEYS[1], 0, scan - 1)
local live = {}
for _, id in ipairs(ids) do
  local tk = prefix .. 't:' .. id
  local f = redis.call('HMGET', tk, 'state', 'created', 'rating', 'expires', 'player')
  if f[1] ~= 'searching' then
    redis.call('ZREM', KEYS[1], id)
  elseif tonumber(f[4]) > 0 and tonumber(f[4]) < now then
    redis.call('HSET', tk, 'state', 'cancelled', 'reason', 'disconnected', 'detail',
      'the Queue stream dropped and no reconnect came within the grace period')
    redis.call('PEXPIRE', tk, ARGV[11])
    redis.call('ZREM', KEYS[1], id)
  else
    live[#live + 1] = {id = id, created = tonumber(f[2]), rating = tonumber(f[3]), player = f[5]}
  end
end
local out = {}
local used = {}
local formed = 0
for i = 1, #live do
  if formed >= limit then break end
  local a = live[i]
  if not used[a.id] then
    local waited = now - a.created
    local b = band(waited)
    local group = {a}
    for j = i + 1, #live do
      if #group == seats then break end
      local c = live[j]
      if not used[c.id] and math.abs(c.rating - a.rating) <= math.max(b, band(now - c.created)) then
        group[#group + 1] = c
      end
    end
    if #group == seats or (botafter > 0 and waited >= botafter) then
      formed = formed + 1
      local mid = 'm' .. redis.call('INCR', KEYS[3]) .. '-' .. string.sub(a.id, 1, 16)
      local tids, pids, made = {}, {}, {}
      for _, t in ipairs(group) do
        used[t.id] = true
        tids[#tids + 1] = t.id
        pids[#pids + 1] = t.player
        made[#made + 1] = t.created
        redis.call('HSET', prefix .. 't:' .. t.id, 'state', 'forming', 'match', mid)
        redis.call('ZREM', KEYS[1], t.id)
      end
      local bots = seats - #group
      redis.call('HSET', prefix .. 'm:' .. mid, 'tickets', table.concat(tids, ' '),
        'players', table.concat(pids, ' '), 'bots', bots, 'failed', 0)
      redis.call('ZADD', KEYS[2], lease, mid)
      out[#out + 1] = mid
      out[#out + 1] = bots
      out[#out + 1] = table.concat(tids, ' ')
      out[#out + 1] = table.concat(pids, ' ')
      out[#out + 1] = table.concat(made, ' ')
    end
  end
end
return out
"""

# KEYS: pending. ARGV: prefix, now, lease until, max.
CLAIM = """
local out = {}
for _, mid in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, ARGV[4])) do
  local f = redis.call('HMGET', ARGV[1] .. 'm:' .. mid, 'tickets', 'players', 'bots', 'failed')
  if f[1] then
    redis.call('ZADD', KEYS[1], ARGV[3], mid)
    out[#out + 1] = mid
    out[#out + 1] = f[3]
    out[#out + 1] = f[1]
    out[#out + 1] = f[2]
    out[#out + 1] = f[4]
  else
    redis.call('ZREM', KEYS[1], mid)
  end
end
return out
"""

# KEYS: pending. ARGV: prefix, match id.
MARK_FAILED = """
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('HSET', ARGV[1] .. 'm:' .. ARGV[2], 'failed', 1)
end
return 1
"""

# KEYS: pending, matches counter, recent waits. ARGV: prefix, match id, table, keep ms, the
# waits of its tickets (space-separated, none for a match taken over), recent waits kept,
# then ticket, seat pairs.
MATCHED = """
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('DEL', ARGV[1] .. 'm:' .. ARGV[2])
redis.call('INCR', KEYS[2])
for w in string.gmatch(ARGV[5], '%S+') do redis.call('LPUSH', KEYS[3], w) end
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[6]) - 1)
for i = 7, #ARGV, 2 do
  local tk = ARGV[1] .. 't:' .. ARGV[i]
  redis.call('HSET', tk, 'state', 'matched', 'table', ARGV[3], 'seat', ARGV[i + 1])
  redis.call('PEXPIRE', tk, ARGV[4])
end
return 1
"""

# KEYS: queue, pending. ARGV: prefix, match id, hold until, keep ms, then ticket, reason,
# detail triplets (the tickets to cancel).
REQUEUE = """
if not redis.call('ZSCORE', KEYS[2], ARGV[2]) then return 0 end
local mk = ARGV[1] .. 'm:' .. ARGV[2]
local tickets = redis.call('HGET', mk, 'tickets') or ''
local cancel = {}
for i = 5, #ARGV, 3 do cancel[ARGV[i]] = {ARGV[i + 1], ARGV[i + 2]} end
for tid in string.gmatch(tickets, '%S+') do
  local tk = ARGV[1] .. 't:' .. tid
  if cancel[tid] then
    redis.call('HSET', tk, 'state', 'cancelled', 'reason', cancel[tid][1], 'detail', cancel[tid][2])
    redis.call('PEXPIRE', tk, ARGV[4])
  else
    local f = redis.call('HMGET', tk, 'seq', 'expires')
    local expires = math.max(tonumber(f[2]) or 0, tonumber(ARGV[3]))
    redis.call('HSET', tk, 'state', 'searching', 'match', '', 'expires', expires)
    redis.call('ZADD', KEYS[1], f[1], tid)
  end
end
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('DEL', mk)
return 1
"""

# KEYS: queue, queue's sequence. ARGV: prefix, ticket id, player, queue, created, rating, expires.
ENQUEUE = """
local seq = redis.call('INCR', KEYS[2])
redis.call('HSET', ARGV[1] .. 't:' .. ARGV[2], 'id', ARGV[2], 'player', ARGV[3], 'queue', ARGV[4],
  'state', 'searching', 'created', ARGV[5], 'seq', seq, 'rating', ARGV[6], 'expires', ARGV[7],
  'match', '', 'table', '', 'seat', -1, 'reason', '', 'detail', '')
redis.call('ZADD', KEYS[1], seq, ARGV[2])
return seq
"""

# KEYS: queue. ARGV: prefix, ticket id, reason, detail, keep ms.
CANCEL = """
local tk = ARGV[1] .. 't:' .. ARGV[2]
if redis.call('HGET', tk, 'state') ~= 'searching' then return 0 end
redis.call('HSET', tk, 'state', 'cancelled', 'reason', ARGV[3], 'detail', ARGV[4])
redis.call('PEXPIRE', tk, ARGV[5])
redis.call('ZREM', KEYS[1], ARGV[2])
return 1
"""

# KEYS: ticket. ARGV: expires.
HOLD = """
if redis.call('HGET', KEYS[1], 'state') ~= 'searching' then return 0 end
redis.call('HSET', KEYS[1], 'expires', ARGV[1])
return 1
"""

# KEYS: player pointer. ARGV: expected ("" for none), new, keep ms.
SET_POINTER = """
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisTicketStore:
    """The ticket store on one Redis deployment (server or cluster)."""

    def __init__(self, url: str, namespace: str = "qipai", *, max_connections: int = 100) -> None:
        if any(c in namespace for c in "{}"):
            raise ValueError(f"namespace {namespace!r} may not contain braces")
        self.namespace = namespace
        self._guard = _Unavailable(redis_address(url))
        self._connection = connect(url, connect_timeout_s=2.0, socket_timeout_s=5.0,
                                   max_connections=max_connections)
        self._client: Any = self._connection.client
        register = self._client.register_script
        self._form, self._claim = register(FORM), register(CLAIM)
        self._mark_failed, self._matched = register(MARK_FAILED), register(MATCHED)
        self._requeue, self._enqueue = register(REQUEUE), register(ENQUEUE)
        self._cancel, self._hold = register(CANCEL), register(HOLD)
        self._set_pointer = register(SET_POINTER)

    # -- keys --------------------------------------------------------------------------------

    def _prefix(self, queue: str) -> str:
        return f"{self.namespace}:mmq:{{{queue}}}:"

    def _queue_keys(self, queue: str) -> tuple[str, str, str, str]:
        p = self._prefix(queue)
        return p + "q", p + "pending", p + "seq", p + "mseq"

    def _pointer(self, player_id: str) -> str:
        return f"{self.namespace}:mmp:{{{player_id}}}"

    # -- tickets -----------------------------------------------------------------------------

    async def enqueue(self, ticket: Ticket) -> Ticket:
        with self._guard:
            for _ in range(100):
                raw = await self._client.get(self._pointer(ticket.player_id))
                pointer = _text(raw) if raw is not None else ""
                if pointer:
                    current_id, _, since = pointer.partition("|")
                    current = await self.get(current_id)
                    if current is not None and current.live:
                        return current
                    if current is None and _now_ms() - int(since or 0) < CREATING_MS:
                        await asyncio.sleep(0.02)  # another call of this player is creating it
                        continue
                claimed = await self._set_pointer(
                    keys=[self._pointer(ticket.player_id)],
                    args=[pointer, f"{ticket.ticket_id}|{_now_ms()}", KEEP_MS])
                if not int(claimed):
                    continue
                queue, _, seq_key, _ = self._queue_keys(ticket.queue)
                seq = await self._enqueue(keys=[queue, seq_key], args=[
                    self._prefix(ticket.queue), ticket.ticket_id, ticket.player_id, ticket.queue,
                    ticket.created_ms, ticket.rating, ticket.expires_ms])
                return Ticket(ticket.ticket_id, ticket.player_id, ticket.queue, SEARCHING,
                              ticket.created_ms, int(seq), ticket.rating, ticket.expires_ms)
        raise TimeoutError("could not queue: the player's ticket kept changing")

    async def get(self, ticket_id: str) -> Ticket | None:
        queue = ticket_id.partition("@")[2]
        if not queue:
            return None
        with self._guard:
            raw = await self._client.hgetall(self._prefix(queue) + "t:" + ticket_id)
        if not raw:
            return None
        f = {_text(k): _text(v) for k, v in raw.items()}
        return Ticket(f["id"], f["player"], f["queue"], f["state"], int(f["created"]),
                      int(f["seq"]), int(f["rating"]), int(f["expires"]), f.get("match", ""),
                      f.get("table", ""), int(f.get("seat", -1)), f.get("reason", ""),
                      f.get("detail", ""))

    async def latest(self, player_id: str) -> Ticket | None:
        with self._guard:
            raw = await self._client.get(self._pointer(player_id))
        if raw is None:
            return None
        return await self.get(_text(raw).partition("|")[0])

    async def hold(self, ticket_id: str, expires_ms: int) -> Ticket | None:
        queue = ticket_id.partition("@")[2]
        with self._guard:
            await self._hold(keys=[self._prefix(queue) + "t:" + ticket_id], args=[expires_ms])
        return await self.get(ticket_id)

    async def cancel(self, ticket_id: str, reason: str, detail: str) -> Ticket | None:
        queue = ticket_id.partition("@")[2]
        if not queue:
            return None
        with self._guard:
            await self._cancel(keys=[self._queue_keys(queue)[0]],
                               args=[self._prefix(queue), ticket_id, reason, detail, KEEP_MS])
        return await self.get(ticket_id)

    # -- formation ---------------------------------------------------------------------------

    async def form(self, spec: QueueSpec, now_ms: int, lease_ms: int, limit: int) -> list[Match]:
        queue, pending, _, mseq = self._queue_keys(spec.name)
        with self._guard:
            out = await self._form(keys=[queue, pending, mseq], args=[
                self._prefix(spec.name), now_ms, spec.seats, spec.bot_fill_after_ms, spec.band_start,
                spec.band_widen_per_s, spec.band_max, limit, now_ms + lease_ms, SCAN, KEEP_MS])
        items = [_text(x) for x in out]
        return [Match(items[i], spec.name, tuple(items[i + 2].split()), tuple(items[i + 3].split()),
                      int(items[i + 1]), created_ms=tuple(int(x) for x in items[i + 4].split()))
                for i in range(0, len(items), 5)]

    async def claim_stale(self, queue: str, now_ms: int, lease_ms: int) -> list[Match]:
        pending = self._queue_keys(queue)[1]
        with self._guard:
            out = await self._claim(keys=[pending], args=[self._prefix(queue), now_ms,
                                                          now_ms + lease_ms, 50])
        items = [_text(x) for x in out]
        return [Match(items[i], queue, tuple(items[i + 2].split()), tuple(items[i + 3].split()),
                      int(items[i + 1]), failed=items[i + 4] == "1") for i in range(0, len(items), 5)]

    async def mark_failed(self, match_id: str, queue: str) -> None:
        with self._guard:
            await self._mark_failed(keys=[self._queue_keys(queue)[1]],
                                    args=[self._prefix(queue), match_id])

    async def matched(self, match_id: str, queue: str, table_id: str,
                      seats: Mapping[str, int], waits_ms: Sequence[int] = ()) -> bool:
        pairs = [x for ticket_id, seat in seats.items() for x in (ticket_id, seat)]
        p = self._prefix(queue)
        with self._guard:
            done = await self._matched(
                keys=[self._queue_keys(queue)[1], p + "matches", p + "waits"],
                args=[p, match_id, table_id, KEEP_MS, " ".join(map(str, waits_ms)), RECENT_WAITS,
                      *pairs])
        return bool(int(done))

    async def match_stats(self, queue: str) -> tuple[int, list[int]]:
        p = self._prefix(queue)
        with self._guard:
            matches = await self._client.get(p + "matches")
            waits = await self._client.lrange(p + "waits", 0, -1)
        return int(_text(matches)) if matches is not None else 0, [int(_text(w)) for w in waits]

    async def requeue(self, match_id: str, queue: str, cancel: Mapping[str, tuple[str, str]],
                      hold_until_ms: int) -> bool:
        triplets = [x for ticket_id, (reason, detail) in cancel.items()
                    for x in (ticket_id, reason, detail)]
        q, pending, _, _ = self._queue_keys(queue)
        with self._guard:
            done = await self._requeue(keys=[q, pending], args=[
                self._prefix(queue), match_id, hold_until_ms, KEEP_MS, *triplets])
        return bool(int(done))

    async def stats(self, queue: str) -> tuple[int, int]:
        q = self._queue_keys(queue)[0]
        with self._guard:
            size = int(await self._client.zcard(q))
            first = await self._client.zrange(q, 0, 0)
            if not first:
                return size, 0
            created = await self._client.hget(self._prefix(queue) + "t:" + _text(first[0]), "created")
        return size, int(_text(created)) if created is not None else 0

    async def position(self, ticket: Ticket) -> int:
        if ticket.state != SEARCHING:
            return 0
        with self._guard:
            rank = await self._client.zrank(self._queue_keys(ticket.queue)[0], ticket.ticket_id)
        return 0 if rank is None else int(rank) + 1

    async def close(self) -> None:
        await self._connection.close()


def _now_ms() -> int:
    return int(time.time() * 1000)
