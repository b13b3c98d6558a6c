"""The live-state interface: what the game service keeps in Redis (or memory) to be fast.

Live state is rebuildable and never the source of truth (the event log is): every method copes
with keys that vanished (FLUSHALL, restart) by returning the empty answer, never by failing.
"""

from __future__ import annotations

import enum
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

Clock = Callable[[], int]
"""Milliseconds since the epoch; injectable so tests control time."""


def wall_clock_ms() -> int:
    """The real clock, in milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


class LiveStateUnavailable(ConnectionError):
    """The live-state backend cannot be reached; the message names the address (never a password)."""


class Claim(enum.Enum):
    """What claiming a place among a player's open tables did."""

    ADDED = "added"
    HELD = "held"  # the table was already one of them (a retried create)
    REFUSED = "refused"  # the player already has as many as allowed


class View(NamedTuple):
    """A table's cached public view and the table version it reflects."""

    version: int
    data: bytes


class Published(NamedTuple):
    """One fan-out message: the table version it brings the table to, and its payload."""

    version: int
    payload: bytes


class Turn(NamedTuple):
    """A table's deadline `key` as a command leaves it: due at `due_ms`, or cancelled (None)."""

    key: str
    due_ms: int | None
    payload: bytes = b""


class Holder(NamedTuple):
    """Who holds a table's lease, with the fencing token of that acquisition."""

    node_id: str
    token: int


class Deadline(NamedTuple):
    """A deadline removed from the schedule by `claim_due`: the caller must fire it."""

    table_id: str
    key: str
    payload: bytes


class DueWatch:
    """When a clock should next look for due deadlines (`claim_due` with this watch): the
    earliest due time the live state holds as of its last claim, lowered by every deadline
    scheduled through the same live-state object since; None when none is scheduled. It only
    sees that object's schedules: a clock still looks now and then for those of other nodes."""

    __slots__ = ("__weakref__", "next_ms")

    def __init__(self) -> None:
        self.next_ms: int | None = 0  # unknown until a first claim: look at once

    def lower(self, due_ms: int) -> None:
        """A deadline due at `due_ms` may be in the live state: look no later than that."""
        if self.next_ms is None or due_ms < self.next_ms:
            self.next_ms = due_ms


@dataclass(frozen=True, slots=True)
class Lease:
    """Proof that `node_id` may write `table_id`; `token` strictly increases per table."""

    table_id: str
    node_id: str
    token: int


class LiveState(ABC):
    """Fast, shared, disposable state of the live tables (one namespace per deployment)."""

    namespace: str

    def watch_due(self) -> DueWatch:
        """A watch kept up to date by every deadline scheduled through this object, and set by
        each `claim_due` given it (a clock sleeps until the earliest one instead of polling)."""
        watch = DueWatch()
        refs: list[weakref.ref[DueWatch]] = self.__dict__.setdefault("_watches", [])
        refs[:] = [ref for ref in refs if ref() is not None]
        refs.append(weakref.ref(watch))
        return watch

    def _scheduling(self, due_ms: int) -> None:
        """Lower every watch to a deadline being scheduled, before it is written (a claim that
        starts later reads the live state after this write: see `claim_due`)."""
        for ref in self.__dict__.get("_watches", ()):
            watch = ref()
            if watch is not None:
                watch.lower(due_ms)

    # -- table view cache -------------------------------------------------------------------
    @abstractmethod
    async def set_view(self, table_id: str, version: int, data: bytes) -> bool:
        """Store the view unless a view of the same or a newer version is stored; True if stored."""

    @abstractmethod
    async def get_view(self, table_id: str) -> View | None:
        """The cached view, or None when there is none (never cached, dropped or lost)."""

    # -- fan-out ----------------------------------------------------------------------------
    @abstractmethod
    async def publish(self, table_id: str, version: int, payload: bytes) -> bool:
        """Append to the table's stream under `version`; False (harmless) if already published."""

    @abstractmethod
    async def update_table(
        self, table_id: str, events: Sequence[Published], view: View | None = None,
        turn: Turn | None = None, *, then: Sequence[Published] = (),
    ) -> int:
        """Publish `events` (in order), cache `view` and set or cancel the deadline `turn`, in
        one round trip per append.

        `then` are the events of the table's own steps stored in the same append right after
        the command's (a claim window closing): published after `events` as an append to the
        stream of its own, so that a reader waiting on the stream is woken with `events` alone,
        as if the two had been stored apart. Same rules as `publish`, `set_view`, `schedule`
        and `cancel`; returns how many events (of both) were appended.
        """

    @abstractmethod
    def listen(self, table_id: str, after_version: int) -> AsyncIterator[Published]:
        """Yield every message with a version above `after_version`, in order, live, forever.

        Versions strictly increase but may have gaps when the backend lost data: the caller
        fills gaps from the event log.
        """

    # -- single-writer lease ----------------------------------------------------------------
    @abstractmethod
    async def acquire_lease(
        self, table_id: str, node_id: str, ttl_ms: int, min_token: int = 0
    ) -> Lease | None:
        """Take the table's lease if nobody holds it; its token exceeds every earlier one and `min_token`."""

    @abstractmethod
    async def renew(self, lease: Lease, ttl_ms: int) -> bool:
        """Extend the lease if it is still this one; False if it expired or was taken over."""

    async def renew_many(self, leases: Sequence[Lease], ttl_ms: int) -> list[bool]:
        """`renew` for each lease (one round trip where the backend can): a node renews all its
        tables at once."""
        return [await self.renew(lease, ttl_ms) for lease in leases]

    @abstractmethod
    async def release(self, lease: Lease) -> bool:
        """Give the lease up if it is still this one; True if it was."""

    @abstractmethod
    async def lease_holder(self, table_id: str) -> Holder | None:
        """The node holding the table's lease and its token, or None."""

    # -- node registry ----------------------------------------------------------------------
    @abstractmethod
    async def register_node(self, node_id: str, address: str, ttl_ms: int) -> None:
        """Announce (or keep announcing) that `node_id` serves at `address` for `ttl_ms`."""

    @abstractmethod
    async def deregister_node(self, node_id: str) -> None:
        """Withdraw a node at once (graceful shutdown)."""

    @abstractmethod
    async def node_address(self, node_id: str) -> str | None:
        """Where a live node serves, or None if it is unknown or expired."""

    @abstractmethod
    async def live_nodes(self) -> list[str]:
        """Ids of the nodes whose registration has not expired, sorted."""

    # -- deadlines --------------------------------------------------------------------------
    @abstractmethod
    async def schedule(self, table_id: str, key: str, due_ms: int, payload: bytes) -> None:
        """Set the one pending deadline of (table, key), replacing any earlier one."""

    @abstractmethod
    async def cancel(self, table_id: str, key: str | None = None) -> int:
        """Remove the table's deadline `key` (or all its deadlines); returns how many went."""

    @abstractmethod
    async def claim_due(
        self,
        now_ms: int,
        limit: int,
        node_id: str | None = None,
        redeliver_after_ms: int | None = None,
        watch: DueWatch | None = None,
    ) -> list[Deadline]:
        """Remove and return up to `limit` deadlines due at `now_ms`, each to exactly one caller.

        With `node_id`, only deadlines of tables whose lease that node holds are claimed: the
        others stay for their own writer. With `redeliver_after_ms`, a claimed deadline is not
        removed but postponed by that much, so it fires again unless the caller reschedules or
        cancels it first: at-least-once, for callers that may die between claiming and firing.
        With `watch`, it is set to when the earliest deadline left falls due (`now_ms` when some
        are due and were not claimed; None when none is left); a deadline scheduled through this
        object while the claim runs lowers it again, and one scheduled before the call is in
        what the claim reads (this object writes and reads deadlines in the order it is asked).
        """

    # -- live tables index ------------------------------------------------------------------
    @abstractmethod
    async def mark_live(self, table_id: str) -> None:
        """Record that the table is being played."""

    @abstractmethod
    async def unmark_live(self, table_id: str) -> None:
        """Record that the table is no longer played."""

    @abstractmethod
    async def live_tables(self) -> list[str]:
        """Ids of the tables marked live, sorted."""

    @abstractmethod
    async def drop_table(self, table_id: str) -> None:
        """Forget a finished table's view, stream, deadlines and live mark (not its lease fence)."""

    # -- each player's unfinished tables (the open-tables limit) -----------------------------
    @abstractmethod
    async def claim_open_table(self, player_id: str, table_id: str, limit: int) -> Claim:
        """Record that `player_id` creates `table_id`, unless they already have `limit` open
        tables: counted and taken in one atomic step, so concurrent creates cannot overshoot."""

    @abstractmethod
    async def remove_open_table(self, player_id: str, table_id: str) -> None:
        """Record that `player_id`'s table `table_id` finished."""

    @abstractmethod
    async def open_tables(self, player_id: str) -> list[str]:
        """The unfinished tables `player_id` created, sorted."""

    # -- rate limits and presence -----------------------------------------------------------
    @abstractmethod
    async def allow(self, key: str, limit: int, window_ms: int) -> bool:
        """Count one call for `key`; False if `limit` calls were already allowed in the last `window_ms`."""

    @abstractmethod
    async def touch_presence(self, player_id: str, ttl_ms: int) -> None:
        """Mark the player present for the next `ttl_ms`."""

    @abstractmethod
    async def is_present(self, player_id: str) -> bool:
        """Whether the player touched presence within their last ttl."""

    # -- housekeeping -----------------------------------------------------------------------
    @abstractmethod
    async def ping(self) -> None:
        """Raise LiveStateUnavailable unless the backend answers."""

    @abstractmethod
    async def flush_namespace(self) -> None:
        """Delete every key of this namespace (tests; simulates losing the live state)."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections; the object is unusable afterwards."""


MAX_MIN_TOKEN = 2**52 - 1
"""Redis scripts count in Lua doubles, exact up to 2**53: floors stay well below (the clock
floor, microseconds since 1970, is about 2**50.6 in this century)."""


def check_min_token(min_token: int) -> None:
    """Refuse floors a Lua double could not add one to exactly."""
    if not 0 <= min_token <= MAX_MIN_TOKEN:
        raise ValueError(f"min_token must be between 0 and {MAX_MIN_TOKEN}, got {min_token}")


def next_token(stored: int, min_token: int, now_us: int) -> int:
    """The fencing token of a new acquisition.

    One above the last one stored, but never below the caller's floor (the table version it knows)
    or the clock in microseconds, so tokens keep increasing after the counter itself was lost.
    """
    return max(stored + 1, min_token + 1, now_us)


def check_version(version: int) -> None:
    """Stream IDs are `version-0` and Redis refuses `0-0`: versions start at 1."""
    if version < 1:
        raise ValueError(f"a published version must be 1 or more, got {version}")


def check_ttl(ttl_ms: int) -> None:
    """A ttl below 1 ms would be refused by Redis (PX 0) or expire at once."""
    if ttl_ms < 1:
        raise ValueError(f"a ttl must be at least 1 ms, got {ttl_ms}")
