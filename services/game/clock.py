"""The table clock: when a table's pending decision times out, its deadline in the live state,
and firing the deadlines that are due (a `Timeout` command through the pipeline).

The abandon policy rides on the same deadline: a table nobody has acted at (created, sat,
readied, played, left) for `abandon_after_ms` is closed (`Close`), whether it waits for players
or the server auto-plays every seat, so no table lives on without people (docs/operations.md)."""

from __future__ import annotations

import asyncio
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Protocol

from engine.core.contract import Deadline, Status
from engine.table import AwaitingReveals, Close, Table, Timeout
from services.game.leases import NotHolder
from services.live.base import LiveState, Turn
from services.observability import log

BETWEEN_HANDS_MS = 10_000  # after a hand ends, the next starts this late unless all are ready sooner
AUTO_PLAY_DELAY_MS = 300  # how soon the server acts for a seat on auto-play (a human-like pace)
REDELIVER_AFTER_MS = 5_000
REVEAL_TIMEOUT_MS = 5_000  # how long a deal waits for committed nonces (docs/fairness.md)
ABANDONED = "abandoned"  # the reason a table closed by the abandon policy records
ARMED_REMEMBERED = 10_000  # tables whose armed deadline a node keeps for their views
# How often the clock looks for due deadlines when none it knows of is due: it learns the ones
# armed through its own live state at once (DueWatch), this is for those another process armed
# (a writer that lost the table to this node while its write was under way).
LOOK_ANYWAY_MS = 1_000


class Deadlines:
    """A table's deadline, from its state: how long until it, keeping it armed, and when the
    armed one falls (what a view shows)."""

    def __init__(self, live: LiveState, clock_ms: Callable[[], int],
                 last_human_ms: Callable[[str], int | None] = lambda _: None,
                 abandon_after_ms: int = 0) -> None:
        self.live, self.clock_ms = live, clock_ms
        self.last_human_ms, self.abandon_after_ms = last_human_ms, abandon_after_ms
        # Per table, the version, the due time shown, the claim window (Deadline.window) and when
        # it opened, of the deadline this node armed last: a view reports that very instant, not
        # one recomputed from a later clock reading, and a window still open keeps it (and its
        # minimum counts from its opening).
        self._armed: OrderedDict[str, tuple[int, int | None, Hashable, int]] = OrderedDict()

    def abandoned(self, table: Table, now_ms: int) -> bool:
        """Whether nobody has acted at the unfinished `table` for the abandon policy's time."""
        if not self.abandon_after_ms or not table.exists or table.status is Status.MATCH_OVER:
            return False
        last = self.last_human_ms(table.table_id)
        return last is not None and now_ms - last >= self.abandon_after_ms

    @staticmethod
    def delay_ms(table: Table) -> int | None:
        """How long the table's pending decision lasts, as every observer is shown it: from its
        last event, or for a claim window from its opening (None: no decision pending)."""
        return Deadlines._delay_ms(table, _deadline(table))

    @staticmethod
    def _delay_ms(table: Table, deadline: Deadline | None) -> int | None:
        """`delay_ms` with the table's pending decision (`_deadline`) already worked out."""
        if isinstance(table.deal, AwaitingReveals):
            return REVEAL_TIMEOUT_MS
        status = table.status
        if status is Status.WAITING_FOR_HAND:
            if table.hands_started == 0 or table.short_of_players():
                return None
            everyone_auto = all(table.is_auto(s) for s in range(len(table.seats)))
            return AUTO_PLAY_DELAY_MS if everyone_auto else BETWEEN_HANDS_MS
        if deadline is None:
            return None
        # Who owes a claim window is hidden: its length must not tell whether they are on auto-play.
        if deadline.window is None and _auto_owed(table, deadline):
            return min(AUTO_PLAY_DELAY_MS, deadline.timeout_ms)
        return deadline.timeout_ms

    @staticmethod
    def due_at_once(table: Table) -> bool:
        """Whether the table clock acts right away (a deal at 0 ms per card)."""
        deadline = _deadline(table)
        return deadline is not None and deadline.timeout_ms == 0 and list(deadline.defaults) == [None]

    def turn(self, table: Table, since_ms: int) -> Turn:
        """The table's deadline: due `delay_ms` after `since_ms` (a claim window: after it
        opened; its auto-played claimants answer sooner), or when the abandon policy closes the
        table if that comes first, or none. Remembered as the table's armed deadline
        (`due_at_ms`): every deadline armed in the live state is computed here."""
        due, decision, window, opened = self._due(table, since_ms)
        self._remember(table.table_id, (table.version, decision, window, opened))
        if due is None:
            return Turn("turn", None)
        return Turn("turn", due, str(table.version).encode())

    def _due(self, table: Table, since_ms: int) -> tuple[int | None, int | None, Hashable, int]:
        """When the clock fires for `table`; when the pending decision times out as observers
        are shown it (None when the only deadline is the abandon policy's); the claim window it
        belongs to and when that opened. A claim window keeps the due time it opened with; its
        claimants on auto-play answer AUTO_PLAY_DELAY_MS after the latest command, earlier than
        shown, and by its minimum (`Deadline.min_ms`) at the latest; once decided, a window with
        a minimum closes when the minimum is over, whoever could claim."""
        deadline = _deadline(table)
        window = None if deadline is None else deadline.window
        idle_due = None
        if self.abandon_after_ms and table.exists and table.status is not Status.MATCH_OVER:
            idle_due = (self.last_human_ms(table.table_id) or since_ms) + self.abandon_after_ms
        armed = self._armed.get(table.table_id)
        opened = since_ms
        if window is not None and armed is not None and armed[2] == window and armed[1] is not None:
            shown: int | None = armed[1]  # the same window still open: a hidden answer moves nothing
            opened = armed[3]
        else:
            delay = self._delay_ms(table, deadline)
            shown = None if delay is None else since_ms + delay
            if shown is not None and idle_due is not None:
                shown = min(shown, idle_due)
        due = idle_due if shown is None else shown
        if due is not None and deadline is not None and window is not None:
            least = opened + deadline.min_ms
            if deadline.min_ms and list(deadline.defaults) == [None]:
                due = min(due, least)  # decided: it closes as it would have had nobody been asked
            elif _auto_owed(table, deadline):
                due = min(due, since_ms + AUTO_PLAY_DELAY_MS)
                if deadline.min_ms:
                    due = min(due, least)
        return due, shown, window, opened

    def due_at_ms(self, table: Table) -> int | None:
        """When the pending decision of `table` times out, in unix ms: the instant the deadline
        this node armed for this very version fires. Every GetView is answered by the node that
        writes the table, which armed it (after each command, on taking the table over); a node
        fed by another's fan-out learns it from there (`learn`). None when no decision is
        pending, or when this node neither armed nor learned the table at this version."""
        armed = self._armed.get(table.table_id)
        return armed[1] if armed is not None and armed[0] == table.version else None

    def shown_at_ms(self, table: Table, since_ms: int) -> int | None:
        """When the pending decision of `table`, reached at `since_ms`, times out as views show
        it, without arming it: for a version the table leaves in the same append."""
        return self._due(table, since_ms)[1]

    def learn(self, table: Table, due_ms: int) -> None:
        """Remember the deadline the node writing `table` showed at its version (told through
        the fan-out; the Watch views themselves take it from Batch.due_ms): if this node takes
        the table over mid claim window, the window keeps its due time."""
        deadline = _deadline(table)
        window = None if deadline is None else deadline.window
        opened = due_ms - (0 if deadline is None else deadline.timeout_ms)
        self._remember(table.table_id, (table.version, due_ms, window, opened))

    def _remember(self, table_id: str, armed: tuple[int, int | None, Hashable, int]) -> None:
        self._armed[table_id] = armed
        self._armed.move_to_end(table_id)
        while len(self._armed) > ARMED_REMEMBERED:
            self._armed.popitem(last=False)

    async def arm(self, table: Table, since_ms: int) -> None:
        turn = self.turn(table, since_ms)
        if turn.due_ms is None:
            await self.live.cancel(table.table_id, turn.key)
        else:
            await self.live.schedule(table.table_id, turn.key, turn.due_ms, turn.payload)


_DECISIONS_REMEMBERED = 4_096
# Per table: the table (an immutable value) last asked about and its pending decision. A command
# asks for it several times (chaining clock steps, arming, the deadline its views show).
_decisions: dict[str, tuple[Table, Deadline | None]] = {}


def _deadline(table: Table) -> Deadline | None:
    """The pending decision of the hand in play (None between hands)."""
    if table.status is not Status.IN_HAND:
        return None
    known = _decisions.get(table.table_id)
    if known is not None and known[0] is table:
        return known[1]
    if len(_decisions) >= _DECISIONS_REMEMBERED:
        _decisions.clear()
    deadline = table.rules.deadline(table.game)
    _decisions[table.table_id] = (table, deadline)
    return deadline


def _auto_owed(table: Table, deadline: Deadline) -> bool:
    """Whether every seat that owes the decision is played by the server (托管; in a claim
    window also after missed claim windows)."""
    owing = [s for s in deadline.defaults if s is not None]
    auto = table.answers_claims_for if deadline.window is not None else table.is_auto
    return bool(owing) and all(auto(s) for s in owing)


class Fired(Protocol):
    """What firing a deadline did (the pipeline's Outcome)."""

    @property
    def table(self) -> Table: ...

    @property
    def events(self) -> list[object]: ...


Execute = Callable[[str, Timeout | Close, str], Awaitable[Fired]]


class Clock:
    """Fires due deadlines: each as a `Timeout` command run by `execute(table_id, cmd, command_id)`."""

    def __init__(self, live: LiveState, deadlines: Deadlines, node_id: str,
                 last_event_ms: Callable[[str], int | None], execute: Execute,
                 cached: Callable[[str], Table | None] = lambda _: None) -> None:
        self.live, self.deadlines, self.node_id = live, deadlines, node_id
        self._last_event_ms, self._execute, self._cached = last_event_ms, execute, cached
        self._watch = live.watch_due()
        self._looked_ms: int | None = None

    async def fire_due(self, limit: int = 50) -> int:
        """Fire up to `limit` deadlines due now (one clock tick); returns how many fired. A
        burst of timeouts (many tables abandoned at once) is spread over ticks rather than
        stalling every other table's commands. Asks the live state only when a deadline may be
        due: the earliest it holds has come, or one was armed since, or LOOK_ANYWAY_MS passed."""
        now = self.deadlines.clock_ms()
        if self._idle_ms(now):
            return 0
        self._looked_ms = now
        # Claimed deadlines are postponed, not removed, until firing re-arms or cancels them: a
        # node that dies between claiming and firing leaves them to the table's next writer.
        due = await self.live.claim_due(now, limit, node_id=self.node_id,
                                        redeliver_after_ms=REDELIVER_AFTER_MS, watch=self._watch)
        if due:
            await asyncio.gather(*(self._fire(d.table_id, int(d.payload)) for d in due))
        return len(due)

    def idle_ms(self) -> int:
        """How long `fire_due` has nothing to do from now, in ms (0: a deadline may be due). A
        deadline armed later through this node's live state lowers it but wakes nobody: a loop
        sleeping until it sleeps no longer than a tick, or is woken by those arms as well."""
        return self._idle_ms(self.deadlines.clock_ms())

    def _idle_ms(self, now: int) -> int:
        looked = self._looked_ms
        if looked is None or not 0 <= now - looked < LOOK_ANYWAY_MS:
            return 0
        wake = self._watch.next_ms
        until = looked + LOOK_ANYWAY_MS if wake is None else min(wake, looked + LOOK_ANYWAY_MS)
        return max(0, until - now)

    async def _fire(self, table_id: str, version: int) -> None:
        cmd: Timeout | Close = Timeout(version, secrets.token_bytes(16), secrets.token_bytes(16),
                                           fair=True)
        command_id = f"timeout:{version}"
        table = self._cached(table_id)
        if table is not None and table.version == version and self.deadlines.abandoned(
                table, self.deadlines.clock_ms()):
            log.info("table_abandoned", table_id=table_id, version=version)
            cmd, command_id = Close(ABANDONED), f"close:{version}"
        try:
            outcome = await self._execute(table_id, cmd, command_id)
            if not outcome.events:  # stale or already fired: set the deadline the table has now
                since = self._last_event_ms(table_id) or self.deadlines.clock_ms()
                await self.deadlines.arm(outcome.table, since)
        except NotHolder:
            pass  # another node took the table over; its clock fires this deadline
        except Exception:  # a timer must never kill the clock; the table stays as it was
            log.exception("timeout_failed", table_id=table_id, version=version)
