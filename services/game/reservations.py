"""One live matchmade table per player: a seat reservation, taken with the buy-in.

A table the matchmaker made (a queue's match, a room's start: `created_by` "matchmaker") seats a
player only if their reservation — one row per player in `seat_reservations`, on the event
store's database, its primary key the player — is free or already names this table. The row is
inserted in the very transaction that escrows the seat's buy-in in the ledger, before the
table's events are stored; two sits of one player at two tables, from any matchmakers on any
game nodes, meet at that key, and the second finds it taken and is refused (`seated_elsewhere`,
FAILED_PRECONDITION) with nothing posted. So a player is seated at one live matchmade table, and
their chips are escrowed at most once per reservation (docs/design.md, "One table per player").

The reservation is released after the table stores the player's `PlayerLeft` (they stood up)
or its match ending (over, or closed). A release that never happened (the node died between
the two) is recovered by the next sit that meets it: the table it names is read from the store,
and a reservation whose player does not sit there, or whose match is over, is stale and taken
over (compare-and-set on the table it names). A reservation younger than `IN_FLIGHT_MS` whose
player does not sit there yet is a sit under way (between its commit and the append of the
seat), and is left alone.

Tables players create themselves (`CreateTable`) are outside the rule, as they were.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.table import BOT_PREFIX, PlayerLeft, PlayerSeated, Table
from services.errors import Conflict
from services.eventstore import EventStore
from services.live.base import wall_clock_ms
from services.observability import log

if TYPE_CHECKING:
    from services.ledger.buyin import BuyIns

MATCHMAKER = "matchmaker"
"""Who the matchmaker creates tables as: the tables the rule covers."""

IN_FLIGHT_MS = 30_000
"""How long a reservation whose player is not seated yet counts as a sit under way. A sit takes
milliseconds from the reservation's commit to its append; past this it was abandoned (its node
died, or its append failed for good)."""

TRIES = 5


class Seats(Protocol):
    """What the command pipeline calls around a command's append (None: no ledger, no rule)."""

    async def before(self, table: Table, events: Sequence[Any]) -> None:
        """Before `events` are stored at `table`: take the seated players' reservations and
        escrow their buy-ins, in one transaction; raises to refuse the command."""
        ...

    async def after(self, table: Table, events: Sequence[Any], status_before: Status | None) -> None:
        """After `events` are stored (`table` as they left it): release what they ended."""
        ...


class SeatReservations:
    """`Seats` on the event store's database: reservations and buy-ins in one transaction.
    `read` reads a table from the store (bypassing caches: another node may serve it)."""

    def __init__(self, store: EventStore, read: Callable[[str], Awaitable[Table]],
                 buy_ins: BuyIns | None = None,
                 clock_ms: Callable[[], int] = wall_clock_ms) -> None:
        self.store, self.read, self.buy_ins, self.clock_ms = store, read, buy_ins, clock_ms
        qmark = getattr(store, "backend", "") == "sqlite"
        self._sql: Callable[[str], str] = (lambda q: q) if qmark else (lambda q: q.replace("?", "%s"))

    async def before(self, table: Table, events: Sequence[Any]) -> None:
        players = _seated_players(table, events)
        bought = self.buy_ins.of(events) if self.buy_ins is not None else []
        if not players and not bought:
            return
        if self.buy_ins is not None and bought:
            await self.buy_ins.welcome(events)
        for _ in range(TRIES):
            stale = {player: await self._stale_holder(player, table.table_id) for player in players}
            try:
                async with self.store.transaction() as tx:
                    for player in players:
                        await self._take(tx, player, table.table_id, stale[player])
                    if self.buy_ins is not None and bought:
                        await self.buy_ins.post_in(tx, table.table_id, events)
                return
            except _Raced:
                continue
        raise Conflict("your seat reservation is changing too fast: try again")

    async def after(self, table: Table, events: Sequence[Any], status_before: Status | None) -> None:
        if table.created_by != MATCHMAKER:
            return
        try:
            if status_before is not Status.MATCH_OVER and table.status is Status.MATCH_OVER:
                await self._execute("DELETE FROM seat_reservations WHERE table_id = ?", (table.table_id,))
                return
            for ev in events:
                if isinstance(ev, PlayerLeft):
                    await self._execute("DELETE FROM seat_reservations WHERE player_id = ? AND table_id = ?",
                                        (ev.player_id, table.table_id))
            for player in _seated_players(table, events):
                held = await self.holder(player)
                if held is None or held[0] != table.table_id:
                    # Taken over while this sit stalled past IN_FLIGHT_MS between its reservation
                    # and its append: the one case the rule misses. Loud, for an operator.
                    log.error("seat_reservation_lost", table_id=table.table_id, player_id=player,
                              holder=held[0] if held else "")
        except Exception as exc:  # the store away: the next sit meeting it finds it stale
            log.warning("seat_reservation_not_released", table_id=table.table_id, error=repr(exc))

    async def holder(self, player_id: str) -> tuple[str, int] | None:
        """The table `player_id`'s reservation names, and when it was taken (unix ms)."""
        rows = await self._execute(
            "SELECT table_id, taken_ms FROM seat_reservations WHERE player_id = ?", (player_id,))
        return (str(rows[0][0]), int(rows[0][1])) if rows else None

    async def _stale_holder(self, player_id: str, table_id: str) -> str | None:
        """The other table a stale reservation of the player names (to be taken over), None
        when there is none or it names `table_id`; refuses when it is live."""
        held = await self.holder(player_id)
        if held is None or held[0] == table_id:
            return None
        other, taken_ms = held
        there = await self.read(other)
        if not there.exists or there.status is Status.MATCH_OVER:
            return other
        if there.seat_of(player_id) is not None:
            raise RuleViolation("seated_elsewhere", f"{player_id} sits at table {other}, whose match "
                                                    f"is not over: finish it or leave it first")
        if self.clock_ms() - taken_ms < IN_FLIGHT_MS:
            raise RuleViolation("seated_elsewhere", f"{player_id} is being seated at table {other}")
        return other

    async def _take(self, tx: Any, player_id: str, table_id: str, replacing: str | None) -> None:
        now = self.clock_ms()
        if replacing is not None:
            rows = await tx.execute(self._sql(
                "UPDATE seat_reservations SET table_id = ?, taken_ms = ?"
                " WHERE player_id = ? AND table_id = ? RETURNING player_id"),
                (table_id, now, player_id, replacing))
            if not rows:
                raise _Raced
            log.info("seat_reservation_taken_over", player_id=player_id, table_id=table_id,
                     stale=replacing)
            return
        await tx.execute(self._sql(
            "INSERT INTO seat_reservations (player_id, table_id, taken_ms) VALUES (?, ?, ?)"
            " ON CONFLICT (player_id) DO NOTHING"), (player_id, table_id, now))
        rows = await tx.execute(self._sql(
            "SELECT table_id FROM seat_reservations WHERE player_id = ?"), (player_id,))
        if not rows or rows[0][0] != table_id:
            raise _Raced  # another table's sit committed first: look at it again

    async def _execute(self, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        async with self.store.transaction() as tx:
            return await tx.execute(self._sql(query), params)


class _Raced(Exception):
    """Another transaction changed the reservation between the look and the take."""


def _seated_players(table: Table, events: Sequence[Any]) -> list[str]:
    if table.created_by != MATCHMAKER:
        return []
    return [ev.player_id for ev in events
            if isinstance(ev, PlayerSeated) and not ev.player_id.startswith(BOT_PREFIX)]
