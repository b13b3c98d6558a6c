"""The table service of one node: the units below, behind the calls the servicers make.

    repository   (repository.py)  snapshot + tail, the cache, the fenced append
    pipeline     (pipeline.py)    lock → lease → load → decide → append → publish → arm
    ownership    (ownership.py)   leases, take-over, adoption of orphans, drain, the table locks
    clock        (clock.py)       deadlines: how long, armed in the live state, fired when due
    watcher      (feed.py)        local queues, the fan-out pump, backfill from the store

`services.bootstrap.table_service` builds and wires them.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from engine import table as tables
from engine.core.errors import RuleViolation
from engine.table import Table
from services.eventstore import EventStore, RecordedEvent
from services.game.clock import REDELIVER_AFTER_MS, Clock, Deadlines
from services.game.feed import Batch, Watcher
from services.game.leases import Leases
from services.game.ownership import Ownership
from services.game.pipeline import CommandPipeline, Outcome, VersionConflict
from services.game.repository import (
    STREAM_PREFIX,
    TableNotFound,
    TableRepository,
    new_table_id,
    requested_table_id,
)
from services.live.base import LiveState, LiveStateUnavailable
from services.observability import log

__all__ = ["STREAM_PREFIX", "Batch", "Outcome", "SeatTakenBack", "TableNotFound", "TableService",
           "VersionConflict", "new_table_id", "requested_table_id"]

ORPHAN_SWEEP_S = 2.0  # how often a node looks for tables whose node died
# How late a deadline of a table this node serves may be before it is armed again (it may have
# been lost): past the clock's redelivery of a claimed deadline, so that one is never doubled.
OVERDUE_GRACE_MS = 2 * REDELIVER_AFTER_MS


class SeatTakenBack(VersionConflict):
    """An action decided on an older version, by a seat the server was playing for: refused,
    but the seat is its player's again, so the retry on the current version wins."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(expected, actual)
        self.args = (f"{self.args[0]}; auto-play (托管) is off for your seat: your next move is yours",)


@dataclass
class TableService:
    """Tables on one node. Commands for one table run one at a time (a lock per table)."""

    store: EventStore
    live: LiveState
    node_id: str
    repository: TableRepository
    pipeline: CommandPipeline
    ownership: Ownership
    deadlines: Deadlines
    clock: Clock
    watcher: Watcher
    id_key: str = ""
    """The server's secret, keying the ids of tables made by request (repository.requested_table_id)."""

    @property
    def leases(self) -> Leases:
        return self.ownership.leases

    # -- commands ----------------------------------------------------------------------------

    async def create(self, ruleset: str, options: dict[str, Any], created_by: str, *,
                     private: bool = True, fixed_deal: str = "", command_id: str | None = None,
                     table_id: str | None = None) -> Outcome:
        """A new table; `fixed_deal` (scenario deal JSON) makes its first hand that deal."""
        table_id = table_id or new_table_id()
        cmd = tables.CreateTable(table_id, ruleset, dict(options), created_by, private, fixed_deal,
                                 rules=tables.RULES)
        return await self.execute(table_id, cmd, command_id=command_id, actor=created_by)

    async def ready(self, table_id: str, player_id: str, command_id: str | None = None,
                    nonce_commitment: str = "", nonce: bytes = b"") -> Outcome:
        """Ready for the next hand, or reveal the nonce committed to (docs/fairness.md)."""
        cmd = tables.Ready(player_id, secrets.token_bytes(16), secrets.token_bytes(16),
                           nonce_commitment, nonce, fair=True)
        return await self.execute(table_id, cmd, command_id=command_id, actor=player_id)

    async def execute(self, table_id: str, cmd: Any, *, command_id: str | None, actor: str,
                      expected_version: int | None = None,
                      numbered: Callable[[Table], int] | None = None) -> Outcome:
        """Decide `cmd` on the table and store its events (see pipeline.py).

        A caller that goes away (a cancelled RPC, a reload) does not cut the command short: once
        its events may be stored they must also be published and its deadline armed, or every
        watcher would be left with a gap.
        """
        run = asyncio.ensure_future(self.pipeline.execute(
            table_id, cmd, command_id=command_id, actor=actor, expected_version=expected_version,
            numbered=numbered))
        run.add_done_callback(_retrieve)
        try:
            return await asyncio.shield(run)
        except (VersionConflict, RuleViolation) as refused:
            if not isinstance(cmd, tables.Act):
                raise
            raise await self._taken_back(table_id, cmd.player_id, refused) from None

    async def _taken_back(self, table_id: str, player_id: str,
                          refused: VersionConflict | RuleViolation) -> Exception:
        """A seat on auto-play whose action was refused is taken back (`TakeBack`), and the
        refusal to tell its player. Its player is evidently there: left on auto-play, the seat
        would lose every race with the server's move 300 ms after each event (a client deciding
        on the version it saw is always too late), and never be played by its player again.
        Taking it back re-arms the table's deadline at the new version, so the pending auto move
        is gone and the next attempt has the full timeout."""
        table = self.repository.cached(table_id)
        seat = None if table is None else table.seat_of(player_id)
        if table is not None and (seat is None or (seat not in table.auto and seat not in table.claim_auto)):
            return refused
        try:
            outcome = await self.execute(table_id, tables.TakeBack(player_id), command_id=None,
                                         actor=player_id)
        except RuleViolation:  # not seated after all: the refusal says what went wrong
            return refused
        if outcome.events and isinstance(refused, VersionConflict):
            log.info("seat_taken_back", table_id=table_id, player_id=player_id,
                     version=outcome.version)
            # In the seat's own numbering, as every version it is told (hidden-information.md).
            return SeatTakenBack(refused.expected, outcome.table.seen_by(outcome.table.seat_of(player_id)))
        return refused

    def delay_ms(self, table: Table) -> int | None:
        """How long after its last event the table's pending decision times out (None: none)."""
        return self.deadlines.delay_ms(table)

    async def fire_due(self, limit: int = 50) -> int:
        """Fire up to `limit` deadlines due now; returns how many fired."""
        return await self.clock.fire_due(limit)

    # -- ownership ---------------------------------------------------------------------------

    async def adopt(self, table_id: str) -> bool:
        return await self.ownership.adopt(table_id)

    async def adopt_orphans(self) -> int:
        return await self.ownership.adopt_orphans()

    async def rebuild_deadlines(self) -> int:
        return await self.ownership.rebuild_deadlines()

    async def drain(self) -> None:
        """Stop serving: hand every table's lease over so other nodes continue them at once."""
        await self.ownership.drain()

    async def run(self, stop: asyncio.Event, tick_s: float = 0.05) -> None:
        """Until `stop`: fire due deadlines, keep leases alive, adopt orphaned tables."""
        leases = asyncio.create_task(self.leases.run(stop))
        last_sweep = 0.0
        loop = asyncio.get_running_loop()
        try:
            while not stop.is_set():
                try:
                    await self.fire_due()
                    if loop.time() - last_sweep > ORPHAN_SWEEP_S:
                        last_sweep = loop.time()
                        await self.adopt_orphans()
                        await self.ownership.rearm_overdue(OVERDUE_GRACE_MS)
                except LiveStateUnavailable as exc:
                    log.warning("live_state_unavailable", node=self.node_id, error=str(exc))
                except Exception:
                    log.exception("clock_tick_failed", node=self.node_id)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), tick_s)
        finally:
            await leases

    # -- reads -------------------------------------------------------------------------------

    async def serve(self, table_id: str) -> Table:
        """The table as its writer sees it (taking it over if no node serves it); NotHolder
        if another node does."""
        return await self.ownership.serve(table_id)

    async def get(self, table_id: str) -> Table:
        """The table as of its latest event; TableNotFound if there is none."""
        return await self.repository.load(table_id, must_exist=True)

    def watch(self, table_id: str, seat: int | None, after_version: int,
              poll_s: float = 5.0) -> AsyncIterator[Batch]:
        """Every event after `after_version` that `seat` may see, in batches (see feed.py)."""
        return self.watcher.watch(table_id, seat, after_version, poll_s)

    async def history(self, table_id: str, first: int = 1,
                      last: int | None = None) -> list[RecordedEvent]:
        await self.repository.load(table_id, must_exist=True)
        return await self.repository.events(table_id, first, last)


def _retrieve(run: asyncio.Future[Any]) -> None:
    """Mark an abandoned command's failure as seen; its caller, gone, cannot take it."""
    if not run.cancelled():
        run.exception()
