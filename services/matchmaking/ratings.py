"""Ratings per player and ruleset (Elo-like, starting at 1500), used for the queues' bands and
shown by GetProfile.

They follow the event log as the ledger's settlement does: a subscription reads each hand's
`table.HandSettled` and updates the ratings in the same transaction as its checkpoint, so every
hand is rated exactly once, whatever crashes or how many matchmaker processes run the
consumer. Each payment of a hand is a game the payee won against the payer (bots never pay or
are paid: their stack is empty), scored with the Elo expectation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any, Protocol

from services.eventstore import EventStore, RecordedEvent, StoreUnavailable
from services.observability import log

DEFAULT_RATING = 1500.0
K = 16.0  # rating points a payment moves at most
SUBSCRIPTION = "matchmaking-ratings"
SETTLED = "table.HandSettled"

DDL = ("CREATE TABLE IF NOT EXISTS matchmaking_ratings (player_id TEXT NOT NULL, "
       "ruleset TEXT NOT NULL, rating DOUBLE PRECISION NOT NULL, hands BIGINT NOT NULL, "
       "PRIMARY KEY (player_id, ruleset))")


class Ratings(Protocol):
    async def rating(self, player_id: str, ruleset: str) -> float:
        """The player's rating in `ruleset` (DEFAULT_RATING when unrated)."""
        ...

    async def profile(self, player_id: str) -> list[tuple[str, float, int]]:
        """(ruleset, rating, hands rated) for every ruleset the player was rated in."""
        ...


def expected(rating: float, other: float) -> float:
    """The Elo expectation of a player rated `rating` beating one rated `other`."""
    return 1.0 / (1.0 + 10 ** ((other - rating) / 400.0))


def rate_hand(ratings: dict[str, float], payments: Sequence[tuple[str, str]]) -> dict[str, float]:
    """The ratings after one hand whose (payer, payee) payments are each a win for the payee;
    the changes of one hand are computed from the ratings before it."""
    delta: dict[str, float] = {}
    for payer, payee in payments:
        gain = K * (1.0 - expected(ratings[payee], ratings[payer]))
        delta[payee] = delta.get(payee, 0.0) + gain
        delta[payer] = delta.get(payer, 0.0) - gain
    return {p: ratings[p] + d for p, d in delta.items()}


def hand_payments(event: RecordedEvent) -> tuple[str, list[tuple[str, str]]]:
    """The ruleset of a settled hand and its payments between players (not bots)."""
    data = event.data
    out = []
    for p in data.get("payments", ()):
        payer, payee = p.get("payer_player", ""), p.get("payee_player", "")
        if p.get("chips", 0) > 0 and payer and payee and payer != payee \
                and not payer.startswith("bot-") and not payee.startswith("bot-"):
            out.append((payer, payee))
    return str(data.get("ruleset", "")), out


class LogRatings:
    """Ratings stored next to the events (Postgres or SQLite), fed by the event log."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    def _sql(self, tx: Any, sql: str) -> str:
        return sql.replace("?", "%s") if tx.paramstyle == "format" else sql

    async def rating(self, player_id: str, ruleset: str) -> float:
        async with self.store.transaction() as tx:
            rows = await tx.execute(self._sql(tx, "SELECT rating FROM matchmaking_ratings "
                                                  "WHERE player_id = ? AND ruleset = ?"), (player_id, ruleset))
        return float(rows[0][0]) if rows else DEFAULT_RATING

    async def profile(self, player_id: str) -> list[tuple[str, float, int]]:
        async with self.store.transaction() as tx:
            rows = await tx.execute(self._sql(tx, "SELECT ruleset, rating, hands FROM matchmaking_ratings "
                                                  "WHERE player_id = ? ORDER BY ruleset"), (player_id,))
        return [(str(r), float(v), int(h)) for r, v, h in rows]

    async def handle(self, tx: Any, events: list[RecordedEvent]) -> None:
        """Rate the settled hands of a batch, in the subscription's transaction."""
        for event in events:
            if event.type != SETTLED or not event.stream_id.startswith("table-"):
                continue
            ruleset, payments = hand_payments(event)
            if not payments:
                continue
            players = sorted({p for pair in payments for p in pair})
            before: dict[str, float] = dict.fromkeys(players, DEFAULT_RATING)
            hands: dict[str, int] = dict.fromkeys(players, 0)
            marks = ", ".join("?" for _ in players)
            for player, rating, n in await tx.execute(self._sql(
                    tx, f"SELECT player_id, rating, hands FROM matchmaking_ratings "
                        f"WHERE ruleset = ? AND player_id IN ({marks})"), (ruleset, *players)):
                before[player], hands[player] = float(rating), int(n)
            after = rate_hand(before, payments)
            await tx.executemany(self._sql(
                tx, "INSERT INTO matchmaking_ratings (player_id, ruleset, rating, hands) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (player_id, ruleset) DO UPDATE SET "
                    "rating = excluded.rating, hands = excluded.hands"),
                [(p, ruleset, after.get(p, before[p]), hands[p] + 1) for p in players])

    async def catch_up(self) -> int:
        """Rate every hand in the log now (tests); returns how many events were read."""
        return await self.store.subscribe(SUBSCRIPTION, self.handle).catch_up()

    async def run(self, stop: asyncio.Event) -> None:
        """Follow the log until `stop` is set."""
        while not stop.is_set():
            task = asyncio.ensure_future(self.store.subscribe(SUBSCRIPTION, self.handle,
                                                              poll_interval=0.5).run())
            stopper = asyncio.ensure_future(stop.wait())
            await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            if not task.done():
                task.cancel()
            try:
                await task
            except (asyncio.CancelledError, StoreUnavailable, OSError):
                pass
            except Exception as exc:
                log.warning("ratings_paused", error=repr(exc))
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(2.0):
                        await stop.wait()


async def open_ratings(store: EventStore) -> LogRatings:
    """The ratings on the event store's database (their table made if missing)."""
    async with store.transaction() as tx:
        if tx.paramstyle == "format":
            # Postgres: two matchmakers starting at once would both create the table, and the
            # loser of that race fails on pg_type's unique index even with IF NOT EXISTS.
            await tx.execute("SELECT pg_advisory_xact_lock(hashtext('matchmaking_ratings'))")
        await tx.execute(DDL)
    return LogRatings(store)
