"""Lua scripts of the Redis live state: each one is a check-then-write that must be atomic.

Every script touches only the keys it is given, and those always share one hash tag, so the
scripts run unchanged on Redis Cluster.
"""

# KEYS: view hash. ARGV: version, data. Older or equal versions never overwrite a newer view.
SET_VIEW = """
local current = redis.call('HGET', KEYS[1], 'v')
if current and tonumber(current) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""

# KEYS: stream. ARGV: maxlen, idle ttl, publish time (ms, for the readers' lag), then version
# and payload of each event. A republished version is refused by Redis ("equal or smaller than
# the target stream top item"): that is the idempotence we want. Returns how many were appended.
PUBLISH = """
local appended = 0
for i = 4, #ARGV, 2 do
  local id = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], ARGV[i] .. '-0',
                         'd', ARGV[i + 1], 't', ARGV[3])
  if type(id) == 'table' and id.err then
    if not string.find(id.err, 'equal or smaller', 1, true) then
      return redis.error_reply(id.err)
    end
  else
    appended = appended + 1
  end
end
if appended > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return appended
"""

# KEYS: lease, fence. ARGV: node id, ttl ms, min token, fence ttl ms.
# The token is one above the stored counter, the caller's floor and the server clock in
# microseconds, so it still increases when the counter was lost (FLUSHALL, restart).
ACQUIRE_LEASE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
local now = redis.call('TIME')
local now_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
local stored = tonumber(redis.call('GET', KEYS[2]) or '0')
local token = math.max(stored + 1, tonumber(ARGV[3]) + 1, now_us)
local text = string.format('%.0f', token)
redis.call('SET', KEYS[2], text, 'PX', ARGV[4])
redis.call('SET', KEYS[1], text .. ' ' .. ARGV[1], 'PX', ARGV[2])
return text
"""

# KEYS: lease. ARGV: the holder value ("token node"), ttl ms.
RENEW_LEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# KEYS: lease. Its value: a plain GET, as a script so that the pipeliner sends it with others.
LEASE_VALUE = """
return redis.call('GET', KEYS[1])
"""

# KEYS: lease. ARGV: the holder value ("token node").
RELEASE_LEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

# KEYS: node expiry zset, node address hash. ARGV: node, address, expires at, now (ms).
REGISTER_NODE = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
for _, node in ipairs(gone) do
  redis.call('HDEL', KEYS[2], node)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""

# KEYS: node expiry zset, node address hash. ARGV: node.
DEREGISTER_NODE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""

# Deadlines of one shard: KEYS: due zset (score = due ms), payload hash, by-table lex zset
# (score 0; members sort by their "<len>:<table_id>" prefix so one table's members are a range).

# ARGV: member, due ms, payload.
SCHEDULE = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], 0, ARGV[1])
return 1
"""

# ARGV: "one" and a member, or "table" and a table's member prefix (every deadline of the table).
CANCEL = """
local members
if ARGV[1] == 'table' then
  members = redis.call('ZRANGEBYLEX', KEYS[3], '[' .. ARGV[2], '(' .. ARGV[2] .. '\\255')
else
  members = {ARGV[2]}
end
local removed = 0
for _, m in ipairs(members) do
  removed = removed + redis.call('ZREM', KEYS[1], m)
  redis.call('HDEL', KEYS[2], m)
  redis.call('ZREM', KEYS[3], m)
end
return removed
"""

# ARGV: now ms, how many. Returns the earliest due time after now ('' if none), then up to that
# many members due at now: what a clock needs to claim, and when to look again.
DUE_SCAN = """
local later = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
local out = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
table.insert(out, 1, later[2] or '')
return out
"""

# ARGV: now ms, limit, redeliver at (ms; 0 = remove), then optionally the members to claim
# (already chosen by the caller). Each member goes to exactly one caller: the one whose script
# found it due. Redelivery postpones a claimed member instead of removing it (at-least-once).
CLAIM_DUE = """
local members
if #ARGV > 3 then
  members = {unpack(ARGV, 4)}
else
  members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
end
local redeliver_at = tonumber(ARGV[3])
local out = {}
for _, m in ipairs(members) do
  local due = redis.call('ZSCORE', KEYS[1], m)
  if due and tonumber(due) <= tonumber(ARGV[1]) then
    out[#out + 1] = m
    out[#out + 1] = redis.call('HGET', KEYS[2], m) or ''
    if redeliver_at > 0 then
      redis.call('ZADD', KEYS[1], redeliver_at, m)
    else
      redis.call('ZREM', KEYS[1], m)
      redis.call('HDEL', KEYS[2], m)
      redis.call('ZREM', KEYS[3], m)
    end
  end
end
return out
"""

# KEYS: the player's open tables (a set). ARGV: the table id, the limit.
# 1: added, 2: already there (a retried create), 0: the player has `limit` open tables.
CLAIM_OPEN_TABLE = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  return 2
end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""

# KEYS: the key's call log (zset of call times). ARGV: now ms, window ms, limit, unique member.
# A sliding log: `limit` calls in any window of `window_ms`; refused calls are not counted.
ALLOW = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
-- Scores follow the callers' clock, expiry the server's: a minute of slack covers their skew.
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + 60000)
return 1
"""
