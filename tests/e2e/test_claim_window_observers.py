"""Observer equivalence of claim windows (issue 24, docs/hidden-information.md): what a seat sees
from the moment another seat discards (or adds a kong) until a claimant's answer resolves the
window is the same whether or not some seat can claim it, moment by moment.

Each case plays two fixed deals over gRPC that differ only in seat 2's concealed tiles (in A it
can pong the discard, win on it, or rob the added kong; in B it cannot), with the same public
moves. After the last move, the observing seat 1 asks for its view and sends a pass and a claim
it cannot make at 0, 100 and 300 ms, while seat 2 stays silent until its window times out, or
passes after a delay shorter than the window's minimum. Seat 1's Watch stream (events, versions,
views; a deadline as its distance from the discard, to 50 ms), its views and answers, and the
other observers' streams (the discarder's, seat 3's, an operator's spectator stream) must be the
same in A and B.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2, text_format

from clients.client import Player, channel
from qipai.v1 import actions_pb2, admin_pb2
from tests.e2e.conftest import Server, server_starter
from tests.e2e.test_game import admin_of

pytestmark = pytest.mark.e2e

OBSERVER, CLAIMANT = 1, 2
MIN_MS, CLAIM_MS = 1_500, 2_500  # short, so that a case takes seconds; the probes fit well inside
PROBES_MS = (0, 100, 300)
EARLY_MS = 600  # a claimant that passes sooner than the minimum
TOLERANCE_MS = 50  # a deadline is compared as its distance from the discard, to the nearest 50 ms
TIMING = {"turn_timeout_ms": 600_000, "claim_timeout_ms": CLAIM_MS, "claim_window_min_ms": MIN_MS}

# Hands nobody claims from, but for seat 2's; seat 0 deals and discards first.
DEALER = "1m 4m 7m 2p 5p 8p 3s 4s 7s E S W N C"
DEALER_6P = "1m 4m 7m 2p 6p 8p 3s 4s 7s E S W N C"
SEAT_1 = "2m 5m 8m 3p 6p 9p 2s 5s 7s E S W F"
SEAT_1_NO_6P = "2m 5m 8m 3p 7p 9p 2s 5s 7s E S W F"
SEAT_3 = "1m 4m 7m 2p 5p 8p 3s 4s 7s E S W C"
SEAT_3_6P_PAIR = "1m 4m 7m 2p 5p 8p 3s 4s 7s E S 6p 6p"
# Seat 2 in A: ready on 3p/6p once it has drawn 2s and let N go; in B on 3p alone.
READY_3P_6P, READY_3P = "1m 2m 3m 4m 5m 6m 7m 8m 9m 4p 5p 2s N", "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 2s N"
# Wuhan wins only with a meld laid out (开口): seat 2 pongs N first, then waits as above.
OPEN_3P_6P, OPEN_3P = "N N 1m 2m 3m 4m 5m 6m 4p 5p 2s 2s 6p", "N N 1m 2m 3m 4m 5m 6m 1p 2p 2s 2s 6p"

RULES = {"koudian": {"tail": "6s 6s"}, "wuhan": {"indicator": "9s", "tail": "6s 6s"}, "jj": {"tail": "6s 6s"}}
OPTIONS = {"koudian": {}, "wuhan": {"min_win": 0}, "jj": {"wild": "none", "min_fan": 0}}


@dataclass(frozen=True)
class Case:
    """Two deals (seat 2's hand in A and in B, the others' hands and the wall alike) and the
    public moves, (seat, action, tile); the last opens the window observed, in which seat 2 may
    claim `kind` in A and nothing in B. Every window before it closes at once: each seat but
    the discarder passes, unless the next move claims."""

    ruleset: str
    kind: str
    hands_a: list[str]
    seat_2_in_b: str
    wall: str
    moves: list[tuple[int, str, str]] = field(default_factory=list)

    def deals(self) -> tuple[dict[str, Any], dict[str, Any]]:
        a = {"dealer": 0, "hands": self.hands_a, "wall": self.wall, **RULES[self.ruleset]}
        hands_b = [*self.hands_a[:CLAIMANT], self.seat_2_in_b, *self.hands_a[CLAIMANT + 1:]]
        return a, {**a, "hands": hands_b}


def _ready(ruleset: str) -> str:
    return "declare_ready" if ruleset == "koudian" else "discard"  # koudian wins only once ready (报听)


def _cases(ruleset: str) -> list[Case]:
    pair = Case(ruleset, "pong", [DEALER, SEAT_1, "3m 6m 9m 1p 4p 7p 3s 6s 9s N N P P", SEAT_3],
                "3m 6m 9m 1p 4p 7p 3s 6s 9s N P 2m 8m", "9m 9p 5s 1s P", [(0, "discard", "N")])
    if ruleset == "wuhan":
        win = Case(ruleset, "win", [DEALER_6P, SEAT_1_NO_6P, "N N 1m 2m 3m 4m 5m 6m 4p 5p 2s 2s E", SEAT_3],
                   "N N 1m 2m 3m 4m 5m 6m 1p 2p 2s 2s E", "9m 3p 5s 1s",
                   [(0, "discard", "N"), (2, "pong", "N"), (2, "discard", "E"), (3, "discard", "9m"),
                    (0, "discard", "6p")])
        rob = Case(ruleset, "rob", [DEALER, SEAT_1_NO_6P, OPEN_3P_6P, SEAT_3_6P_PAIR], OPEN_3P,
                   "9m 3s 9p 6p", [(0, "discard", "N"), (2, "pong", "N"), (2, "discard", "6p"),
                                   (3, "pong", "6p"), (3, "discard", "E"), (0, "discard", "9m"),
                                   (1, "discard", "3s"), (2, "discard", "9p"), (3, "kong", "6p")])
    else:
        win = Case(ruleset, "win", [DEALER_6P, SEAT_1, READY_3P_6P, SEAT_3], READY_3P, "9m 2s 5s 1s",
                   [(0, "discard", "N"), (1, "discard", "9m"), (2, _ready(ruleset), "N"), (3, "discard", "5s"),
                    (0, "discard", "6p")])
        rob = Case(ruleset, "rob", [DEALER_6P, SEAT_1_NO_6P, READY_3P_6P, SEAT_3_6P_PAIR], READY_3P,
                   "9m 3s 2s 6p", [(0, "discard", "6p"), (3, "pong", "6p"), (3, "discard", "E"), (0, "discard", "9m"),
                                   (1, "discard", "3s"), (2, _ready(ruleset), "N"), (3, "kong", "6p")])
    return [pair, win, rob]


CASES = [c for ruleset in ("koudian", "wuhan", "jj") for c in _cases(ruleset)]
HEX = re.compile(r"\b[0-9a-f]{32,}\b")  # commitments: hashes over a random salt per run
INSTANT = re.compile(r"deadline_at_ms: (\d+)")


def action(ruleset: str, kind: str, tile: str = "") -> actions_pb2.Action:
    """A mahjong action from its name in the scenario notation."""
    move = actions_pb2.MahjongAction()
    part = getattr(move, kind)
    if tile:
        part.tile = tile
    else:
        part.SetInParent()
    return actions_pb2.Action(mahjong=move)


class Record:
    """What each observer received, as text, with the run's ids named and each deadline of the
    window as its distance from the observed discard (`relative`)."""

    def __init__(self) -> None:
        self.seen: dict[str, list[str]] = defaultdict(list)
        self.names: dict[str, str] = {}
        self.discard_ms: int | None = None  # when the observed window opened (the server's clock)

    def add(self, observer: str, what: str, reply: Any) -> None:
        if isinstance(reply, grpc.aio.AioRpcError):
            text = f"{reply.code().name} {reply.details()}"
        else:
            text = text_format.MessageToString(reply, as_one_line=True)
        for own, name in self.names.items():
            text = text.replace(own, name)
        self.seen[observer].append(f"{what}: {HEX.sub('<hash>', text)}")

    def relative(self) -> None:
        """The window's deadlines as `+ms` from the discard; the others, before it or after the
        window, masked (the runs play at their own times); called once the run knows when the
        window opened."""
        assert self.discard_ms is not None
        opened = self.discard_ms

        def shown(m: re.Match[str]) -> str:
            at = int(m.group(1)) - opened
            if at <= 0:
                return "deadline_at_ms: <before the discard>"
            if at > CLAIM_MS + TOLERANCE_MS:
                # The next decision's, counted from the window's close: when that came is the
                # tell that remains (docs/hidden-information.md).
                return "deadline_at_ms: <after the window>"
            return f"deadline_at_ms: +{at}"

        for items in self.seen.values():
            items[:] = [INSTANT.sub(shown, text) for text in items]


async def _answer(call: Any) -> Any:
    try:
        return await call
    except grpc.aio.AioRpcError as err:
        return err


async def _watch(record: Record, observer: str, player: Player, table_id: str, started: asyncio.Event) -> None:
    async for update in player.watch(table_id, with_views=True):
        record.add(observer, "update", update)
        started.set()


async def _last_version(admin: Player, table_id: str) -> int:
    """The table's own version (the log's), from an operator's replay."""
    last = 0
    async for step in admin.admin.Replay(admin_pb2.ReplayRequest(table_id=table_id), metadata=admin.metadata):
        last = step.version
    return last


async def play(address: str, case: Case, deal: dict[str, Any], claimant_passes_after_ms: int | None) -> Record:
    """One run: the moves, then the probes; what every observer got (seat 2 too)."""
    record = Record()
    options = {**TIMING, **OPTIONS[case.ruleset]}
    async with channel(address) as chan:
        admin = admin_of(chan)
        players = [await Player.guest(chan, f"p{s}") for s in range(4)]
        opts = struct_pb2.Struct()
        opts.update(options)
        created = await admin.admin.CreateFixedTable(admin_pb2.CreateFixedTableRequest(
            ruleset=case.ruleset, options=opts, deal_json=json.dumps(deal), request_id=uuid.uuid4().hex),
            metadata=admin.metadata)
        table_id = created.table_id
        record.names = {table_id: "TABLE", **{p.player_id: f"PLAYER{s}" for s, p in enumerate(players)}}
        for s, p in enumerate(players):
            await p.join(table_id, s)
        observers = {f"seat{s}": p for s, p in enumerate(players)} | {"operator": admin}
        watchers = []
        for name, p in observers.items():
            started = asyncio.Event()
            watchers.append(asyncio.create_task(_watch(record, name, p, table_id, started)))
            await asyncio.wait_for(started.wait(), 10)
        try:
            for p in players:
                await p.ready(table_id)
            *before, (seat, kind, tile) = case.moves
            for n, (mover, move, what) in enumerate(before):
                await players[mover].act(table_id, action(case.ruleset, move, what))
                follows = case.moves[n + 1]
                claims_next = follows[0] != mover and (follows[1] == "pong" or follows[1:] == ("kong", what))
                if move in ("discard", "kong") and not claims_next:  # everyone passes: it closes at once
                    for other in range(4):
                        if other != mover:  # (a table closing windows at once has nothing to pass on)
                            await _answer(players[other].act(table_id, action(case.ruleset, "pass")))
            before_window = await _last_version(admin, table_id)
            await players[seat].act(table_id, action(case.ruleset, kind, tile))
            opened = time.monotonic()

            async def probes() -> None:
                observer = players[OBSERVER]
                cannot = action(case.ruleset, "win") if kind == "kong" else action(case.ruleset, "pong", tile)
                for at in PROBES_MS:
                    await asyncio.sleep(max(0.0, opened + at / 1000 - time.monotonic()))
                    record.add("seat1", f"view at {at} ms", await _answer(observer.view(table_id)))
                    record.add("seat1", f"claim at {at} ms", await _answer(observer.act(table_id, cannot)))
                    record.add("seat1", f"pass at {at} ms", await _answer(observer.act(table_id, action(case.ruleset, "pass"))))

            async def claimant() -> None:
                if claimant_passes_after_ms is not None:
                    await asyncio.sleep(max(0.0, opened + claimant_passes_after_ms / 1000 - time.monotonic()))
                    record.add("seat2", "pass", await _answer(players[CLAIMANT].act(
                        table_id, action(case.ruleset, "pass"))))

            await asyncio.gather(probes(), claimant())
            for _ in range(200):  # until the window closed (at its minimum, or when seat 2 timed out)
                if getattr((await admin.view(table_id)).view, case.ruleset).phase not in ("claims", "robbing"):
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # the close's batch reaches every stream
            async for step in admin.admin.Replay(admin_pb2.ReplayRequest(
                    table_id=table_id, from_version=before_window + 1, to_version=before_window + 1),
                    metadata=admin.metadata):
                stored = datetime.fromisoformat(json.loads(step.metadata_json)["time"])
                record.discard_ms = int(stored.timestamp() * 1000)
        finally:
            for task in watchers:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                    await task
    record.relative()
    return record


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with server_starter(tmp_path_factory.mktemp("claim-windows")) as start:
        yield start()


# What an observer gets, by kind: its Watch updates, and (seat 1) its views, its answers to a
# claim it cannot make and to its own pass at 0, 100 and 300 ms; then all of it, in order.
PARTS = {"Watch updates": "update:", "GetView": "view at", "a claim it cannot make": "claim at", "its pass": "pass at",
         "all of it, in order": ""}
RELATIVE = re.compile(r"deadline_at_ms: \+(\d+)")
# What a window's resolution shows (the next draw, a claim taken, the hand's end).
RESOLVED = ("TileDrawn", "HandEnded", "Won", "Ponged", "Konged", "Chowed")


def until_resolved(items: list[str]) -> list[str]:
    """An observer's items up to the window's resolution: when a silent claimant's timeout
    claims for it (托管 wins), that is its answer, which may differ."""
    opened = max(n for n, text in enumerate(items) if "ClaimWindowOpened" in text)
    end = next((n for n in range(opened + 1, len(items))
                if items[n].startswith("update:") and any(kind in items[n] for kind in RESOLVED)), len(items))
    return items[:end]


def assert_same(name: str, seen: list[str], other: list[str]) -> None:
    """The same items, each deadline of the window to within TOLERANCE_MS."""
    first = next((n for n, (x, y) in enumerate(zip(seen, other, strict=False))
                  if RELATIVE.sub("+", x) != RELATIVE.sub("+", y)), min(len(seen), len(other)))
    assert len(seen) == len(other) == first, (
        f"{name} can tell seat {CLAIMANT}'s tiles apart at its item {first}:\n"
        f"A: {seen[first] if first < len(seen) else '(nothing)'}\n"
        f"B: {other[first] if first < len(other) else '(nothing)'}")
    for x, y in zip(seen, other, strict=True):
        for at_a, at_b in zip(RELATIVE.findall(x), RELATIVE.findall(y), strict=True):
            assert abs(int(at_a) - int(at_b)) <= TOLERANCE_MS, f"{name}'s deadline: +{at_a} / +{at_b} ms\n{x}"


@pytest.mark.parametrize("case", CASES, ids=[f"{c.ruleset}-{c.kind}" for c in CASES])
@pytest.mark.parametrize("claimant_passes_after_ms", [None, EARLY_MS], ids=["silent_until_timeout", "passes_early"])
async def test_no_other_seat_can_tell_from_a_claim_window_whether_a_seat_could_claim(
        embedded, case: Case, claimant_passes_after_ms: int | None) -> None:
    deal_a, deal_b = case.deals()
    a, b = await asyncio.gather(play(embedded.address, case, deal_a, claimant_passes_after_ms),
                                play(embedded.address, case, deal_b, claimant_passes_after_ms))
    # Seat 2 was asked in A (its own copy of the window lists its claim), and not in B.
    asked = case.kind if case.kind != "rob" else "win"
    assert any(f'\\"{asked}\\"' in item for item in a.seen["seat2"] if "ClaimWindowOpened" in item)
    assert not any(f'\\"{asked}\\"' in item for item in b.seen["seat2"] if "ClaimWindowOpened" in item)
    if claimant_passes_after_ms is None:  # it missed the window: told so, alone
        assert any("table.ClaimTimedOut" in item for item in a.seen["seat2"])
    # A silent claimant that may win is won for when it times out (托管): its answer, which
    # resolves the window; everything else is compared to the end.
    won_for = claimant_passes_after_ms is None and asked == "win"
    differ = []
    for name in ("seat0", "seat1", "seat3", "operator"):
        seen, other = a.seen[name], b.seen[name]
        if won_for:
            seen, other = until_resolved(seen), until_resolved(other)
        for part, prefix in PARTS.items():  # each on its own, so that a failure names every leak
            try:
                assert_same(name, [x for x in seen if x.startswith(prefix)], [y for y in other if y.startswith(prefix)])
            except AssertionError as exc:
                differ.append(f"{part}: {exc}")
    assert not differ, "\n".join(differ)
