"""The client's half of fair deals (docs/fairness.md): commit a nonce with Ready, reveal it when
the table asks, and check every hand's deal at its end from this seat's own Watch events: the
deal itself (`engine.deal_check`) and the pieces this seat was shown (`clients.shown`).

`qipai check-hand TABLE_ID` runs the same check for a player after the fact: it needs the
player's own token, never an operator's.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import grpc

from clients.shown import ShownPieces
from engine.core.messages import decode, schema_version
from engine.deal_check import DealChecker, HandCheck
from qipai.v1 import game_pb2

CAUGHT_UP_S = 3.0  # a Watch quiet this long has sent all there was


class DealMismatch(Exception):
    """A finished hand's deal does not follow from its commitments (docs/fairness.md)."""

    def __init__(self, check: HandCheck) -> None:
        super().__init__(str(check))
        self.check = check


def event_of(ev: game_pb2.TableEvent) -> Any:
    """A Watch event as the engine's message."""
    return decode(ev.type, schema_version(ev.type), json.loads(ev.data_json))


class SeatChecker:
    """One seat's check of every hand it played: the deal follows from the commitments, seeds and
    nonces (`DealChecker`), and every piece the seat was dealt, drew or saw turned up is the one the
    revealed deck order holds there (`ShownPieces`). `feed` returns the hands that just ended."""

    def __init__(self, seat: int, own_nonces: Mapping[str, bytes] | None = None) -> None:
        self.deal = DealChecker(seat, own_nonces)
        self.shown = ShownPieces(seat)

    def feed(self, ev: Any) -> list[HandCheck]:
        self.shown.feed(ev)
        checks = self.deal.feed(ev)
        if not checks:
            return []
        # The deck was revealed before DealRevealed (the ruleset's hand end): compare with it now.
        seen = tuple(self.shown.ended())
        return [replace(c, problems=c.problems + seen) for c in checks]

    def awaiting_my_nonce(self) -> bytes | None:
        return self.deal.awaiting_my_nonce()


class DealFollower:
    """Feeds one seat's Watch updates to a SeatChecker; reveals this seat's nonce when the deal
    waits for it (through `reveal`) and hands every finished hand's check to `on_check`."""

    def __init__(self, seat: int, nonces: dict[str, bytes],
                 reveal: Callable[[bytes], Any], on_check: Callable[[HandCheck], None]) -> None:
        self.checker = SeatChecker(seat, nonces)
        self._reveal, self._on_check = reveal, on_check
        self._revealed: set[bytes] = set()
        self._tasks: set[asyncio.Task[Any]] = set()

    def update(self, update: game_pb2.TableUpdate) -> None:
        for ev in update.events:
            for check in self.checker.feed(event_of(ev)):
                self._on_check(check)
        nonce = self.checker.awaiting_my_nonce()
        if nonce is not None and nonce not in self._revealed:
            self._revealed.add(nonce)
            task = asyncio.ensure_future(self._reveal(nonce))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)


def strict(check: HandCheck) -> None:
    """The default reaction to a hand's check: a mismatch is an error."""
    if not check.ok:
        raise DealMismatch(check)


async def check_hand(player: Any, table_id: str) -> list[HandCheck]:
    """Every finished hand's check, from the events `player`'s own Watch stream gives."""
    view = await player.view(table_id)
    if view.seat < 0:
        raise PermissionError("only players seated at this table can check its hands")
    checker = SeatChecker(view.seat)
    checks: list[HandCheck] = []
    if view.version == 0:
        return checks
    stream = player.watch(table_id, 0)
    updates = stream.__aiter__()
    try:
        while True:
            # The stream skips commands that showed this seat nothing: quiet means caught up.
            try:
                async with asyncio.timeout(CAUGHT_UP_S):
                    update = await anext(updates)
            except (TimeoutError, StopAsyncIteration):
                break
            for ev in update.events:
                checks += checker.feed(event_of(ev))
            if update.version >= view.version:
                break
    finally:
        stream.cancel()
    return checks


def main(args: Any) -> int:
    """`qipai check-hand TABLE_ID [--hand N] [--token T]`: 0 when every hand checked is fair."""
    from clients.client import Player, channel

    token = args.token or os.environ.get("QIPAI_TOKEN", "")
    if not token:
        print("qipai check-hand: give your player token with --token or QIPAI_TOKEN", file=sys.stderr)
        return 2

    async def run() -> list[HandCheck]:
        async with channel(args.grpc_addr) as chan:
            return await check_hand(Player(chan, token), args.table_id)

    try:
        checks = asyncio.run(run())
    except grpc.aio.AioRpcError as err:
        print(f"qipai check-hand: {err.code().name}: {err.details()}", file=sys.stderr)
        return 1
    except PermissionError as exc:
        print(f"qipai check-hand: {exc}", file=sys.stderr)
        return 1
    if args.hand:
        checks = [c for c in checks if c.hand == args.hand]
    if not checks:
        which = f"hand {args.hand}" if args.hand else "any hand"
        print(f"{args.table_id}: no fair deal of {which} has ended yet (or it was dealt before "
              "fair deals, or from a scripted deal)")
        return 1
    for check in checks:
        print(f"{args.table_id} {check}")
    return 0 if all(c.ok for c in checks) else 1
