"""The command pipeline: every change to a table goes through `execute`.

Under the table's lock: hold the lease, load the table (cache, else snapshot + tail), decide
(with every clock step due at once chained behind, then the table's own steps right after the
command: `follow_ups`), append all that at the expected version under the lease's fencing token
(retrying a conflict against a fresh load), then publish the new events to local watchers and
the fan-out, refresh the cached public view and re-arm the deadline, in one Redis round trip.
"""

from __future__ import annotations

import functools
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import structlog

from engine import table as tables
from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.core.messages import encode as encode_message
from engine.core.messages import message_to_json
from engine.table import Table, Timeout
from services.errors import AlreadyExists, Conflict
from services.eventstore import Fenced, NewEvent, WrongExpectedVersion
from services.game.clock import Deadlines
from services.game.feed import Batch, LocalFeed, encode_payload
from services.game.leases import NotHolder
from services.game.lobby import public_view
from services.game.ownership import Ownership
from services.game.repository import TableRepository
from services.game.reservations import Seats
from services.live.base import LiveState, LiveStateUnavailable, Published
from services.live.base import View as LiveView
from services.observability import APPENDS, COMMAND_LATENCY, COMMANDS, log

CONFLICT_RETRIES = 5
MAX_CLOCK_STEPS = 500  # clock steps chained into one command (a whole deal, with room to spare)

Steps = list[tuple[Any, list[Any]]]


class VersionConflict(Conflict):
    """The action was decided on an older table version than the current one."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"the table is at version {actual}, not {expected}: refresh and retry")
        self.expected, self.actual = expected, actual


# What the server adds to a command (a hand's seed and salt): not part of what a client asked.
SERVER_FIELDS = ("seed", "salt")


class CommandReused(AlreadyExists):
    """A command id the caller already used for a different command."""

    def __init__(self, command_id: str, stored: dict[str, Any]) -> None:
        shown = json.dumps(stored, ensure_ascii=False, sort_keys=True)
        shown = shown if len(shown) <= 300 else shown[:297] + "..."
        own = command_id.partition(":")[2] or command_id
        super().__init__(f"id {own[:40]!r} was already used for another command: {shown}")
        self.command_id, self.stored = command_id, stored


def _asked(command: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    data = command.get("data", {})
    return command.get("type"), {k: v for k, v in data.items() if k not in SERVER_FIELDS}


class _LogContext:
    """`structlog.contextvars.bound_contextvars` at less than half its cost per command (no
    generator, no copy of the whole context): the same keys bound, then reset as they were."""

    __slots__ = ("_bound", "_tokens")

    def __init__(self, **bound: Any) -> None:
        self._bound = bound

    def __enter__(self) -> None:
        self._tokens = structlog.contextvars.bind_contextvars(**self._bound)

    def __exit__(self, *exc: object) -> None:
        structlog.contextvars.reset_contextvars(**self._tokens)


@dataclass
class Outcome:
    """What a command did: the table's version after it, and the events it added (none when
    it was a retry of an action already applied, or changed nothing)."""

    table: Table
    version: int
    events: list[Any] = field(default_factory=list)
    duplicate: bool = False


class CommandPipeline:
    """Runs commands on the tables this node serves (see the module docstring)."""

    def __init__(self, repository: TableRepository, ownership: Ownership, deadlines: Deadlines,
                 local: LocalFeed, live: LiveState, node_id: str,
                 clock_ms: Callable[[], int], seats: Seats | None = None) -> None:
        self.repository, self.ownership, self.deadlines = repository, ownership, deadlines
        self.local, self.live, self.node_id, self.clock_ms = local, live, node_id, clock_ms
        # Takes a command's seat reservations and pays its buy-ins (`engine.chips.StackBoughtIn`)
        # before its events are stored, raising to refuse it with nothing stored; releases the
        # reservations its events end after they are (services/game/reservations.py).
        self.seats = seats
        self._applied_by_ruleset: dict[str, Any] = {}  # COMMANDS' children: a label lookup per action costs

    def _applied(self, ruleset: str) -> Any:
        child = self._applied_by_ruleset.get(ruleset)
        if child is None:
            child = self._applied_by_ruleset[ruleset] = COMMANDS.labels(ruleset, "applied")
        return child

    async def execute(self, table_id: str, cmd: Any, *, command_id: str | None, actor: str,
                      expected_version: int | None = None,
                      numbered: Callable[[Table], int] | None = None) -> Outcome:
        """Decide `cmd` on the table and store its events; see the module docstring.
        `expected_version` is in the caller's own numbering, `numbered` (default: the table's)."""
        started = self.clock_ms()
        with _LogContext(table_id=table_id, command_id=command_id, actor=actor, node=self.node_id):
            async with self.ownership.lock(table_id):
                lease = await self.ownership.hold(
                    table_id, must_exist=not isinstance(cmd, tables.CreateTable))
                for _ in range(CONFLICT_RETRIES):
                    table = await self.repository.load(
                        table_id, must_exist=not isinstance(cmd, tables.CreateTable))
                    if expected_version is not None and expected_version != (
                            current := numbered(table) if numbered else table.version):
                        if command_id and await self.applied_before(table_id, command_id, cmd):
                            return Outcome(table, table.version, duplicate=True)
                        log.debug("command_rejected", reason="version_conflict",
                                  expected=expected_version, version=current)
                        raise VersionConflict(expected_version, current)
                    try:
                        steps, after = self.decide(table, cmd)
                    except RuleViolation as exc:
                        if command_id and await self.applied_before(table_id, command_id, cmd):
                            return Outcome(table, table.version, duplicate=True)
                        COMMANDS.labels(table.ruleset or "none", "rejected").inc()
                        log.debug("command_rejected", command=type(cmd).__name__, code=exc.code,
                                  reason=exc.message, version=table.version)
                        raise
                    events = [ev for _, evs in steps for ev in evs]
                    if not events:
                        return Outcome(table, table.version)
                    # The table's own steps due right after the command (a claim window nobody
                    # may answer closes) share its append, each still a command of its own in
                    # the log; the answer below is the command's alone (see `follow_ups`).
                    own, own_events = after, events
                    more, after = self.follow_ups(after)
                    steps += more
                    events = [ev for _, evs in steps for ev in evs]
                    if self.seats is not None:
                        await self.seats.before(table, events)
                    new = self.records(steps, table.version, command_id, actor)
                    try:
                        version = await self.repository.append(table_id, table.version, new,
                                                               command_id, lease.token)
                    except WrongExpectedVersion:
                        log.info("append_conflict", version=table.version)
                        self.repository.forget(table_id)
                        continue
                    except Fenced:
                        log.warning("fenced_out", token=lease.token)
                        self.ownership.fenced_out(table_id)
                        holder = await self.live.lease_holder(table_id)
                        raise NotHolder(table_id, holder and holder.node_id,
                                        holder and await self.live.node_address(holder.node_id)) from None
                    if version != table.version + len(events):
                        # The same command id was stored before: that earlier result stands.
                        self.repository.forget(table_id)
                        table = await self.repository.load(table_id, must_exist=True)
                        if command_id:
                            await self.applied_before(table_id, command_id, cmd)
                        return Outcome(table, version, duplicate=True)
                    APPENDS.inc()
                    self._applied(table.ruleset or type(cmd).__name__).inc()
                    before, base = (table.status if table.exists else None), table.version
                    self.repository.remember(after)
                    now = self.clock_ms()
                    self.repository.last_event_ms[table_id] = now
                    if actor != "server":
                        self.repository.last_human_ms[table_id] = now
                    # Watchers get the command and the table's own steps after it as two
                    # batches, as if stored apart: a seat must not see a window nobody could
                    # answer arrive together with its close (docs/hidden-information.md, "Claim
                    # windows"); `apart` keeps them two even for a watcher that is behind.
                    mine = len(own_events)
                    # Views of the command's batch show its own deadline (a claim window's), not
                    # the one armed for the table after the step that follows it.
                    own_due = self.deadlines.shown_at_ms(own, now) if len(events) > mine else None
                    self.local.publish(table_id, Batch(
                        own.version, [(base + n, ev) for n, ev in enumerate(own_events, 1)], own, actor,
                        due_ms=own_due))
                    if len(events) > mine:
                        self.local.publish(table_id, Batch(after.version, [
                            (own.version + n, ev) for n, ev in enumerate(events[mine:], 1)], after, "server",
                            apart=True))
                    try:
                        await self._after_commit(after, new, base, before, mine, own_due)
                    except LiveStateUnavailable as exc:
                        # Stored but not announced: watchers fill the gap from the store.
                        log.warning("live_state_unavailable", stage="after_append",
                                    version=after.version, error=str(exc))
                        raise
                    if self.seats is not None:
                        await self.seats.after(after, events, before)
                    COMMAND_LATENCY.observe((self.clock_ms() - started) / 1000)
                    return Outcome(own, own.version, own_events)
                latest = await self.repository.load(table_id, must_exist=True)
                raise VersionConflict(-1, numbered(latest) if numbered else latest.version)

    def follow_ups(self, table: Table) -> tuple[Steps, Table]:
        """The steps the table takes right after a command (`engine.table.follow_up`: a claim
        window nobody may answer closes), each with the clock steps due at once behind it, and
        the table after them. The pipeline stores them in the command's own append, each as a
        command of its own in the log (a `Timeout` of the table clock, re-decided by Verify
        like any clock step), but answers the caller with its own command's result only: a
        claimant's answer must not tell whether another seat was still to answer."""
        steps: Steps = []
        while len(steps) <= MAX_CLOCK_STEPS and (step := tables.follow_up(table)) is not None:
            more, after = self.decide(table, step)
            if not more[0][1]:
                break
            steps += more
            table = after
        return steps, table

    async def applied_before(self, table_id: str, command_id: str, cmd: Any) -> bool:
        """Whether `command_id` was applied to this table already, as this very command (a
        retry); CommandReused when it was used for a different one."""
        stored = await self.repository.stored_command(table_id, command_id)
        if stored is None:
            return False
        if stored and _asked(stored) != _asked(message_to_json(cmd)):
            raise CommandReused(command_id, stored)
        return True

    def decide(self, table: Table, cmd: Any) -> tuple[Steps, Table]:
        """The command's events and, chained behind them, every clock step due at once (a
        deal at 0 ms per card): one append instead of a hundred. Each step stays a command of
        its own in the log, so verification re-decides it like any other."""
        events = tables.decide(table, cmd)
        steps: Steps = [(cmd, events)]
        after = functools.reduce(tables.evolve, events, table)
        while events and len(steps) <= MAX_CLOCK_STEPS and self.deadlines.due_at_once(after):
            tick = Timeout(after.version, secrets.token_bytes(16), secrets.token_bytes(16), fair=True)
            events = tables.decide(after, tick)
            if events:
                steps.append((tick, events))
                after = functools.reduce(tables.evolve, events, after)
        return steps, after

    def records(self, steps: Steps, version: int, command_id: str | None,
                actor: str) -> list[NewEvent]:
        """The steps' events as stored, each step's command in its first event's metadata."""
        now = datetime.now(UTC).isoformat()
        new = []
        for n, (cmd, events) in enumerate(steps):
            meta = ({"command_id": command_id, "actor": actor} if n == 0 else
                    {"command_id": f"timeout:{version}", "actor": "server"})
            # A step's later events share one metadata dict, which the store then encodes once
            # (nothing changes a NewEvent's metadata after this).
            rest = {**meta, "time": now}
            first = {**rest, "node": self.node_id, "command": message_to_json(cmd)}
            for i, ev in enumerate(events):
                name, schema, data = encode_message(ev)
                new.append(NewEvent(name, data, schema, first if i == 0 else rest))
            version += len(events)
        return new

    async def _after_commit(self, table: Table, new: list[NewEvent], first_version: int,
                            status_before: Status | None, own: int, own_due: int | None = None) -> None:
        """Announce in the live state, in one round trip, what one append stored: its first `own`
        events (the command's) and, published after them as a separate script, the rest (the
        table's own steps that followed it), with the view and deadline of `table` after all."""
        turn = self.deadlines.turn(table, self.clock_ms())
        due_ms = self.deadlines.due_at_ms(table)
        dues = {own: own_due, len(new): due_ms}
        published = [Published(first_version + n, encode_payload(
            first_version + n, ev, apart=n == own + 1, due_ms=dues.get(n)))
            for n, ev in enumerate(new, start=1)]
        await self.live.update_table(table.table_id, published[:own],
                                     LiveView(table.version, public_view(table)), turn,
                                     then=published[own:])
        status = table.status
        if first_version == 0:  # the command created the table
            await self.live.mark_live(table.table_id)
        if status is Status.MATCH_OVER:
            await self.live.unmark_live(table.table_id)
            await self.live.remove_open_table(table.created_by, table.table_id)
        if status_before is not None and status_before != status:
            await self.repository.save_snapshot(table)  # hand boundaries: rehydration = snapshot + one hand
