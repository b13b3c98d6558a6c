"""Public queues: a player's ticket from Queue to a seat (or a cancellation), and the formation
loop every matchmaker process runs.

A ticket is held by its Queue stream: while the stream is open it renews the ticket's hold;
when the stream drops the hold runs out after the queue's grace period and the next formation
step cancels the ticket as disconnected. Queueing again within the grace returns the same
ticket. Formation is one atomic step of the ticket store; seating a formed match is idempotent,
so a match whose process died is seated by another (see store.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections.abc import AsyncIterator, Callable

from prometheus_client import Counter, Gauge, Histogram

from services.errors import Forbidden, Invalid, NotFound
from services.observability import log

from .config import QueuesConfig, QueueSpec, problems
from .game import GameGateway, SeatRefused
from .one_table import AlreadySeated as AlreadySeated  # Queue's refusal, long named here
from .one_table import OneTable
from .ratings import DEFAULT_RATING, Ratings
from .seating import Seating
from .store import TicketStore
from .tickets import (
    BY_PLAYER,
    CANCELLED,
    INSUFFICIENT_CHIPS,
    MATCHED,
    SEARCHING,
    Match,
    Ticket,
    new_ticket_id,
)

FORM_BATCH = 128  # matches one formation step takes out of a queue at most
POLL_S = 0.2  # how often a Queue stream looks at its ticket
MAX_SEATING = 64  # matches seated at once by one process

QUEUE_SIZE = Gauge("qipai_matchmaking_queue_size", "Searching tickets per queue", ["queue"])
MATCHES = Counter("qipai_matchmaking_matches_total", "Matches seated", ["queue", "bots"])
TIME_TO_MATCH = Histogram("qipai_matchmaking_time_to_match_seconds", "From Queue to seated",
                          buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120))


class UnknownQueue(NotFound):
    """No queue with that ruleset, preset and tier."""


class TicketNotFound(NotFound):
    """No such ticket (or not the caller's)."""


def wall_ms() -> int:
    return int(time.time() * 1000)


class Matchmaker:
    """Tickets and formation for every configured queue."""

    def __init__(self, config: QueuesConfig, store: TicketStore, game: GameGateway,
                 ratings: Ratings | None = None, *, clock_ms: Callable[[], int] = wall_ms,
                 lease_ms: int | None = None, tick_s: float = 0.1, poll_s: float = POLL_S,
                 record_waits: list[int] | None = None) -> None:
        self.config, self.store, self.game = config, store, game
        self.seating = Seating(game)
        self.ratings = ratings
        self.clock_ms, self.tick_s, self.poll_s = clock_ms, tick_s, poll_s
        self.lease_ms = config.lease_ms if lease_ms is None else lease_ms
        self.record_waits = record_waits  # every ticket's wait, for benchmarks
        self.one_table = OneTable(game, store)
        """Keeps a seated player from queueing; serving.py gives it the rooms' tables too."""
        self._seating = asyncio.Semaphore(MAX_SEATING)
        self._tasks: set[asyncio.Task[None]] = set()

    # -- tickets -------------------------------------------------------------------------

    def spec(self, ruleset: str, preset: str, tier: str) -> QueueSpec:
        spec = self.config.find(ruleset, preset, tier)
        if spec is None:
            if ruleset not in self.config.rulesets():
                raise Invalid(f"no public queues for ruleset {ruleset!r}; the rulesets are "
                              f"{', '.join(self.config.rulesets())}")
            names = sorted(q for q in self.config.queues if q.startswith(ruleset + "/"))
            raise UnknownQueue(f"no queue {ruleset}/{preset or 'standard'}/{tier or '-'}; "
                               f"the {ruleset} queues are {', '.join(names)}")
        return spec

    async def queue(self, player_id: str, ruleset: str, preset: str = "", tier: str = "") -> Ticket:
        """The player's live ticket, or a new one in the queue asked for."""
        latest = await self.store.latest(player_id)
        if latest is not None and latest.live:
            return latest
        spec = self.spec(ruleset, preset, tier)
        await self.one_table.refuse_if_seated(player_id, "queueing again")
        rating = round(DEFAULT_RATING)
        if self.ratings is not None:
            rating = round(await self.ratings.rating(player_id, spec.ruleset))
        now = self.clock_ms()
        ticket = Ticket(new_ticket_id(spec.name), player_id, spec.name, SEARCHING, now,
                        rating=rating, expires_ms=now + spec.grace_ms)
        return await self.store.enqueue(ticket)

    async def own(self, player_id: str, ticket_id: str, admin: bool = False) -> Ticket:
        """The ticket asked for (empty: the player's latest), if it is theirs."""
        ticket = await (self.store.get(ticket_id) if ticket_id else self.store.latest(player_id))
        if ticket is None or (ticket.player_id != player_id and not admin):
            raise TicketNotFound(f"no ticket {ticket_id!r} of yours" if ticket_id else
                                 "you have no ticket: Queue first")
        return ticket

    async def cancel(self, player_id: str, ticket_id: str) -> Ticket | None:
        """Cancel the player's ticket (idempotent: None when there is none)."""
        try:
            ticket = await self.own(player_id, ticket_id)
        except TicketNotFound:
            if ticket_id and await self.store.get(ticket_id) is not None:
                raise Forbidden("this ticket is not yours") from None
            return None
        return await self.store.cancel(ticket.ticket_id, BY_PLAYER, "cancelled by the player")

    async def follow(self, ticket: Ticket) -> AsyncIterator[tuple[Ticket, int, int]]:
        """The ticket as it changes, with its position and estimated wait, until it is matched
        or cancelled; renews its hold meanwhile (the caller's stream is open)."""
        spec = self.config.queues.get(ticket.queue)
        grace = spec.grace_ms if spec is not None else 15_000
        renew_every = max(1, grace // 3)
        renewed = 0
        last: tuple[str, int, str] | None = None
        while True:
            now = self.clock_ms()
            current: Ticket | None = ticket
            if ticket.state == SEARCHING and now - renewed >= renew_every:
                current = await self.store.hold(ticket.ticket_id, now + grace)
                renewed = now
            else:
                current = await self.store.get(ticket.ticket_id)
            if current is None:
                return
            ticket = current
            position = await self.store.position(ticket) if ticket.state == SEARCHING else 0
            key = (ticket.state, position, ticket.table_id)
            if key != last:
                last = key
                yield ticket, position, await self.estimated_wait_ms(ticket, now)
            if ticket.state in (MATCHED, CANCELLED):
                return
            await asyncio.sleep(self.poll_s)

    async def estimated_wait_ms(self, ticket: Ticket, now_ms: int) -> int:
        """Until the ticket's match: the queue's median wait of late (across every matchmaker
        process), else its bot-fill time."""
        if ticket.state != SEARCHING:
            return 0
        waited = now_ms - ticket.created_ms
        _, waits = await self.store.match_stats(ticket.queue)
        if waits:
            return max(0, int(statistics.median(waits)) - waited)
        spec = self.config.queues.get(ticket.queue)
        if spec is not None and spec.bot_fill_after_ms:
            return max(0, spec.bot_fill_after_ms - waited)
        return 0

    async def list_queues(self) -> list[tuple[str, int, int, int, int]]:
        """Every queue: (name, searching, oldest wait, matches, median wait of late), from the
        shared store: any matchmaker process answers for all of them."""
        now = self.clock_ms()
        out = []
        for name in self.config.queues:
            searching, oldest = await self.store.stats(name)
            matches, waits = await self.store.match_stats(name)
            median = int(statistics.median(waits)) if waits else 0
            out.append((name, searching, now - oldest if oldest else 0, matches, median))
            QUEUE_SIZE.labels(name).set(searching)
        return out

    # -- formation -----------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Form and seat matches until `stop` is set."""
        checked = asyncio.create_task(self.check_presets())
        last_claim = 0
        while not stop.is_set():
            try:
                now = self.clock_ms()
                if now - last_claim >= 1000:
                    await self.recover(now)
                    last_claim = now
                await self.form_once(now)
            except Exception as exc:  # a backend away: try again next tick
                log.warning("matchmaking_paused", error=repr(exc))
                await _sleep_unless(stop, 1.0)
            await _sleep_unless(stop, self.tick_s)
        checked.cancel()
        for task in [checked, *self._tasks]:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task

    async def check_presets(self) -> None:
        """Disable the queues whose preset its ruleset refuses (a table could never be made).
        Off the event loop, while queues already form: loading the rulesets takes seconds."""
        for name, problem in (await asyncio.to_thread(problems, self.config)).items():
            log.error("queue_disabled", queue=name, problem=problem)
            self.config.queues.pop(name, None)

    async def form_once(self, now_ms: int | None = None, *, wait: bool = False) -> int:
        """One formation step over every queue; seats what it formed in the background (or
        before returning, with `wait`). Returns how many matches it formed."""
        now = self.clock_ms() if now_ms is None else now_ms
        formed = 0
        for spec in self.config.queues.values():
            matches = await self.store.form(spec, now, self.lease_ms, FORM_BATCH)
            formed += len(matches)
            for match in matches:
                self._start(spec, match)
        if wait:
            await self.settle()
        return formed

    async def recover(self, now_ms: int) -> int:
        """Take over the pending matches of processes that died, and seat them."""
        taken = 0
        for spec in self.config.queues.values():
            for match in await self.store.claim_stale(spec.name, now_ms, self.lease_ms):
                log.info("match_taken_over", match_id=match.match_id, queue=spec.name)
                self._start(spec, match)
                taken += 1
        return taken

    async def settle(self) -> None:
        """Wait for the matches being seated."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _start(self, spec: QueueSpec, match: Match) -> None:
        task = asyncio.create_task(self._seat_guarded(spec, match))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _seat_guarded(self, spec: QueueSpec, match: Match) -> None:
        async with self._seating:
            try:
                await self.seat(spec, match)
            except Exception as exc:
                # Left pending: its lease runs out and a process seats it again.
                log.warning("match_not_seated", match_id=match.match_id, error=repr(exc))

    async def seat(self, spec: QueueSpec, match: Match) -> None:
        """Seat a formed match and tell its tickets; undo it when a player cannot sit."""
        table_id = self.seating.game.table_id(match.match_id)
        hold_until = self.clock_ms() + spec.grace_ms
        if match.failed:  # a process died undoing it: finish undoing
            await self.seating.unseat(match.match_id, table_id, match.players)
            await self.store.requeue(match.match_id, spec.name, {}, hold_until)
            return
        players: list[str | None] = [*match.players, *([None] * match.bots)]

        async def failed(_: SeatRefused) -> None:
            await self.store.mark_failed(match.match_id, spec.name)

        try:
            seated = await self.seating.seat_match(match.match_id, spec.ruleset, spec.options,
                                                   spec.stakes, players, before_rollback=failed,
                                                   bot_level=spec.bot_level)
        except SeatRefused as refused:
            n = match.players.index(refused.player_id) if refused.player_id in match.players else -1
            reason = INSUFFICIENT_CHIPS if refused.reason == INSUFFICIENT_CHIPS else refused.reason
            cancel = {match.tickets[n]: (reason, refused.detail)} if n >= 0 else {}
            await self.store.requeue(match.match_id, spec.name, cancel, hold_until)
            log.info("match_undone", match_id=match.match_id, player_id=refused.player_id,
                     reason=refused.reason)
            return
        seats = {ticket_id: n for n, ticket_id in enumerate(match.tickets)}
        now = self.clock_ms()
        waits = [now - created for created in match.created_ms]  # none for a match taken over
        if await self.store.matched(match.match_id, spec.name, seated.table_id, seats, waits):
            MATCHES.labels(spec.name, str(match.bots)).inc()
            for created in match.created_ms:
                if self.record_waits is not None:
                    self.record_waits.append(now - created)
                TIME_TO_MATCH.observe((now - created) / 1000)
            log.debug("match_seated", match_id=match.match_id, table_id=seated.table_id,
                     queue=spec.name, bots=match.bots)


async def _sleep_unless(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await stop.wait()
