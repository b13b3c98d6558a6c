"""One shared run for the three tests that need many tables of every ruleset played over gRPC:
bots play 20 tables of each ruleset, several of each at once, on one `qipai serve` on Postgres
and Redis; every seat adds a nonce to its deal and checks it (docs/fairness.md), plays one hand
with a stake and stands up, so the ledger settles the hand and returns the stacks.

Each test asserts its own property from the run's record (`TwentyTables`) and the server, which
stays up for the session:
- test_game: every table's hand ended and Verify passes it;
- test_fairness: every client checked every hand it played, with its own nonce in the deal;
- test_settlement: every hand was settled exactly once and every stack came back.

The record holds only what a client saw (ids, the deal checks): nothing of the server's insides.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from clients.client import Player, channel, play_seat
from engine.deal_check import HandCheck
from qipai.v1 import game_pb2
from tests.conftest import drop_keys, drop_schema
from tests.e2e.conftest import server_starter

RULESETS = ("koudian", "daqi", "wuhan", "jj")
SEATS = {"koudian": 4, "daqi": 5, "wuhan": 4, "jj": 4}
TABLES = 20  # of each ruleset
STAKE = 2
# Tables in play at once, the rulesets taking turns (so about a quarter of them of each). Each
# seat must reveal its nonce within the server's 5 s of its table's last commitment: with all 80
# tables' clients in one process on a loaded machine, some would not (the protocol working, not
# what these tests are about). Every seat follows its table before anyone commits, too.
AT_ONCE = 12
# Should a table's next hand start (10 s after the last) before its players have all left, the
# server plays the empty seats to the end of it at this pace, and cashes them out then.
MAHJONG_QUICK = {"turn_timeout_ms": 1000, "claim_timeout_ms": 1000, "claim_window_min_ms": 0}  # bots: no pause
QUICK = {"koudian": MAHJONG_QUICK, "wuhan": MAHJONG_QUICK, "jj": MAHJONG_QUICK,
         "daqi": {"deal_interval_ms": 0, "bid_window_ms": 0, "play_timeout_ms": 1000,
                  "bury_timeout_ms": 1000}}


@dataclass(frozen=True)
class PlayedTable:
    table_id: str
    ruleset: str
    player_ids: tuple[str, ...]  # by seat
    checks: tuple[tuple[HandCheck, ...], ...]  # by seat: the deal checks that seat's client made


@dataclass(frozen=True)
class TwentyTables:
    address: str  # the server, still up
    database_url: str  # its event store and ledger
    tables: tuple[PlayedTable, ...]


async def leave(player: Player, table_id: str) -> None:
    await player.game.Leave(game_pb2.TableRequest(table_id=table_id, request_id=uuid.uuid4().hex),
                            metadata=player.metadata)


async def play_then_leave(player: Player, table_id: str, seed: int,
                          on_deal: Callable[[HandCheck], None]) -> None:
    """One hand, then stand up at once (before the next hand starts by itself)."""
    await play_seat(player, table_id, "greedy", seed=seed, on_deal=on_deal)
    await leave(player, table_id)


@dataclass(eq=False)
class FollowingPlayer(Player):
    """A player whose Watch streams tell (`following`) when one first brought an update."""

    following: asyncio.Event = field(default_factory=asyncio.Event)

    def watch(self, table_id: str, from_version: int = 0, with_views: bool = False) -> Any:
        return _Heard(super().watch(table_id, from_version, with_views), self.following)


class _Heard:
    """A Watch call that sets `heard` at its first update."""

    def __init__(self, call: Any, heard: asyncio.Event) -> None:
        self._call, self._heard = call, heard

    async def __aiter__(self) -> AsyncIterator[Any]:
        async for update in self._call:
            self._heard.set()
            yield update

    def cancel(self) -> bool:
        return bool(self._call.cancel())


async def play_table(chan: grpc.aio.Channel, n: int, ruleset: str) -> PlayedTable:
    players = [await FollowingPlayer.guest(chan, f"p{i}") for i in range(SEATS[ruleset])]
    table_id = (await players[0].create_table(ruleset, {**QUICK[ruleset], "stake": STAKE})).table_id
    for i, p in enumerate(players):
        await p.join(table_id, i)
    checks: list[list[HandCheck]] = [[] for _ in players]
    # Each seat follows the table before anyone commits, as a real client does, so that its
    # reveal answers the deal's request at once (not after its stream has opened).
    playing = [asyncio.create_task(play_then_leave(p, table_id, n * 10 + i, checks[i].append))
               for i, p in enumerate(players)]
    try:
        async with asyncio.timeout(120):
            await asyncio.gather(*(p.following.wait() for p in players))
        await asyncio.gather(*(p.ready(table_id, commit=True) for p in players))
        await asyncio.gather(*playing)
    finally:
        for task in playing:
            task.cancel()
    return PlayedTable(table_id, ruleset, tuple(p.player_id for p in players),
                       tuple(tuple(c) for c in checks))


async def play_all(address: str) -> tuple[PlayedTable, ...]:
    async with channel(address) as chan:
        at_once = asyncio.Semaphore(AT_ONCE)

        async def one(n: int, ruleset: str) -> PlayedTable:
            async with at_once:
                return await play_table(chan, n, ruleset)

        return tuple(await asyncio.wait_for(asyncio.gather(*(
            one(n, ruleset) for n, ruleset in enumerate(RULESETS * TABLES))), 900))


def shared_run(tmp_path_factory: pytest.TempPathFactory, postgres_url: str,
               redis_url: str) -> Iterator[TwentyTables]:
    """The `twenty_tables` fixture (tests/e2e/conftest.py): the run, then its server stays up
    until the block ends."""
    tmp = tmp_path_factory.mktemp("twenty-tables")
    schema = "twenty_" + os.urandom(6).hex()
    url = f"{postgres_url}{'&' if '?' in postgres_url else '?'}schema={schema}"
    env = {"QIPAI_DATABASE_URL": url, "QIPAI_REDIS_URL": redis_url,
           "QIPAI_LIVE_NAMESPACE": schema, "QIPAI_NODE_ID": f"e2e-{schema}",
           # The run is read by tests long after it was played: none of its tables may be closed
           # as abandoned meanwhile (that end has tests of its own).
           "QIPAI_ABANDON_AFTER_S": "0"}
    try:
        with server_starter(tmp) as start:
            server = start(env)
            # Its own thread and event loop: the tests' loops are per test.
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                tables = pool.submit(asyncio.run, play_all(server.address)).result()
            yield TwentyTables(server.address, url, tables)
    finally:
        drop_schema(postgres_url, schema)
        drop_keys(redis_url, f"{schema}:")
