"""Leaderboards: chips won per ruleset and period, a projection of the settlement transfers.

A settlement transfer (`kind` "settle") pays from one seat's stack to another's; its details
name the ruleset and the two players. Each one adds its amount to the payee's score and takes
it from the payer's in three boards: the local day, the local week and all time. The boards
live in Redis sorted sets (a dict in memory for the embedded default) and can be rebuilt from
the transfers at any time: they are never the source of truth.
"""

from __future__ import annotations

import abc
import bisect
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from .calendar import local_day, week_key
from .transfers import Posted

PERIODS = ("day", "week", "all")
# Day and week boards stay readable a little after their period for "yesterday"/"last week".
_TTL_S = {"day": 8 * 86400, "week": 36 * 86400}


@dataclass(frozen=True)
class Entry:
    rank: int  # 1-based; 0: not on the board
    player_id: str
    chips_won: int


def period_key(period: str, at: datetime, zone: ZoneInfo) -> str:
    """The board of `period` that `at` falls in: "2026-12-01", "2026-W49" or "all"."""
    if period == "day":
        return local_day(at, zone).isoformat()
    if period == "week":
        return week_key(local_day(at, zone))
    return "all"


def board(ruleset: str, period: str, key: str) -> str:
    return f"{ruleset}:{period}:{key}"


def scores(posted: Posted, zone: ZoneInfo) -> list[tuple[str, str, int]]:
    """`(board, player, delta)` for each board a settlement transfer changes."""
    t = posted.transfer
    ruleset, payer, payee = (t.details.get(k) for k in ("ruleset", "payer_player", "payee_player"))
    if t.kind != "settle" or not ruleset or not payer or not payee:
        return []
    out = []
    for period in PERIODS:
        name = board(ruleset, period, period_key(period, posted.posted_at, zone))
        out += [(name, payee, t.amount), (name, payer, -t.amount)]
    return out


class Leaderboards(abc.ABC):
    """The sorted sets behind the boards."""

    @abc.abstractmethod
    async def add(self, deltas: Iterable[tuple[str, str, int]]) -> None:
        """Add each delta to the player's score on its board."""

    @abc.abstractmethod
    async def replace(self, boards: dict[str, dict[str, int]]) -> None:
        """Make `boards` the only boards (a rebuild)."""

    @abc.abstractmethod
    async def top(self, name: str, start: int, stop: int) -> list[Entry]:
        """Places `start`..`stop` (0-based, inclusive) of a board, most chips won first."""

    @abc.abstractmethod
    async def find(self, name: str, player_id: str) -> Entry:
        """The player's place on a board (rank 0 if not on it)."""

    @abc.abstractmethod
    async def size(self, name: str) -> int: ...

    @abc.abstractmethod
    async def is_built(self) -> bool:
        """Whether the boards have been built since the store was last emptied."""

    @abc.abstractmethod
    async def close(self) -> None: ...


class MemoryLeaderboards(Leaderboards):
    """One process's boards, ordered like Redis (equal scores: larger member first)."""

    def __init__(self) -> None:
        self._scores: dict[str, dict[str, int]] = defaultdict(dict)
        self._built = False

    async def add(self, deltas: Iterable[tuple[str, str, int]]) -> None:
        for name, player, delta in deltas:
            scores = self._scores[name]
            scores[player] = scores.get(player, 0) + delta

    async def replace(self, boards: dict[str, dict[str, int]]) -> None:
        self._scores = defaultdict(dict, {name: dict(s) for name, s in boards.items()})
        self._built = True

    def _ordered(self, name: str) -> list[tuple[int, str]]:
        return sorted(((s, p) for p, s in self._scores.get(name, {}).items()), reverse=True)

    async def top(self, name: str, start: int, stop: int) -> list[Entry]:
        ordered = self._ordered(name)
        return [Entry(i + 1, p, s) for i, (s, p) in enumerate(ordered) if start <= i <= stop]

    async def find(self, name: str, player_id: str) -> Entry:
        score = self._scores.get(name, {}).get(player_id)
        if score is None:
            return Entry(0, player_id, 0)
        ascending = sorted((s, p) for p, s in self._scores[name].items())
        return Entry(len(ascending) - bisect.bisect_left(ascending, (score, player_id)), player_id, score)

    async def size(self, name: str) -> int:
        return len(self._scores.get(name, {}))

    async def is_built(self) -> bool:
        return self._built

    async def close(self) -> None:
        return None


class RedisLeaderboards(Leaderboards):
    """Boards in Redis sorted sets under `<namespace>:ledger:lb:`."""

    def __init__(self, url: str, namespace: str) -> None:
        import redis.asyncio as redis

        self._redis = redis.Redis.from_url(url)
        self._prefix = f"{namespace}:ledger:lb:"
        self._built_key = f"{namespace}:ledger:lb-built"

    def _key(self, name: str) -> str:
        return self._prefix + name

    async def add(self, deltas: Iterable[tuple[str, str, int]]) -> None:
        pipe = self._redis.pipeline(transaction=False)
        for name, player, delta in deltas:
            key = self._key(name)
            pipe.zincrby(key, delta, player)
            period = name.split(":")[1]
            if period in _TTL_S:
                pipe.expire(key, _TTL_S[period])
        await pipe.execute()

    async def replace(self, boards: dict[str, dict[str, int]]) -> None:
        stale = {k async for k in self._redis.scan_iter(match=self._prefix + "*", count=500)}
        for name, scores in boards.items():
            key = self._key(name)
            stale.discard(key.encode())
            staging = f"{key}:rebuilding"
            pipe = self._redis.pipeline(transaction=True)
            pipe.delete(staging)
            if scores:
                pipe.zadd(staging, {p: s for p, s in scores.items()})
                pipe.rename(staging, key)  # readers see the old board or the new one, whole
                period = name.split(":")[1]
                if period in _TTL_S:
                    pipe.expire(key, _TTL_S[period])
            else:
                pipe.delete(key)
            await pipe.execute()
        if stale:
            await self._redis.delete(*stale)
        await self._redis.set(self._built_key, "1")

    async def top(self, name: str, start: int, stop: int) -> list[Entry]:
        rows: list[tuple[bytes, float]] = await self._redis.zrevrange(  # type: ignore[assignment]
            self._key(name), start, stop, withscores=True)
        return [Entry(start + i + 1, p.decode(), int(s)) for i, (p, s) in enumerate(rows)]

    async def find(self, name: str, player_id: str) -> Entry:
        pipe = self._redis.pipeline(transaction=False)
        pipe.zrevrank(self._key(name), player_id)
        pipe.zscore(self._key(name), player_id)
        rank, score = await pipe.execute()
        return Entry(0, player_id, 0) if rank is None else Entry(rank + 1, player_id, int(score))

    async def size(self, name: str) -> int:
        return int(await self._redis.zcard(self._key(name)))

    async def is_built(self) -> bool:
        return bool(await self._redis.exists(self._built_key))

    async def close(self) -> None:
        await self._redis.aclose()


def open_leaderboards(url: str, namespace: str) -> Leaderboards:
    """Redis boards for `redis://...`, in-memory ones for `memory://`."""
    if url.startswith("memory://"):
        return MemoryLeaderboards()
    return RedisLeaderboards(url, namespace)
