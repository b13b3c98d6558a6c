"""The hidden-information audit (docs/hidden-information.md): what an observer receives depends
only on what the rules show it. Each ruleset's hand is played twice over gRPC from fixed deals
that differ only in seat 2's concealed cards, with the same scripted moves (legal in both runs):
every other seat's Watch stream (events, versions, views), its GetView and Act answers and
errors, an operator's spectator Watch and views, and a guest's GetView must be the same in both.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import uuid
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2, text_format

from clients.client import Player, channel
from qipai.v1 import actions_pb2, admin_pb2
from tests.e2e.conftest import Server, server_starter
from tests.e2e.test_game import SEATS, admin_of

pytestmark = pytest.mark.e2e

HIDDEN = 2  # the seat whose concealed cards differ between the runs
SLOW = {"turn_timeout_ms": 600_000, "claim_timeout_ms": 600_000}  # nothing moves by itself

# Seat 2 holds pairs of N and P in run A, one of each (and 2m 8m) in run B; the N and P it lacks
# in B stand in the part of the wall the hand never reaches. Seat 0 discards N and seat 1 later
# P: in run A seat 2 could pong both. Everyone else discards what it drew (the named wall).
MAHJONG_HANDS = ["1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C",
                 "2m 5m 8m 3p 6p 9p 2s 5s 8s E S W F",
                 "3m 6m 9m 1p 4p 7p 3s 6s 9s N N P P",
                 "1m 4m 7m 2p 5p 8p 1s 4s 7s E S W C"]
SEAT_2_IN_B = "3m 6m 9m 1p 4p 7p 3s 6s 9s N P 2m 8m"
WALL = "9m 9p 9s 1s P 5m 5p 5s"
DISCARDS = ["N", *WALL.split()]  # the dealer's first discard, then each seat's draw


def _mahjong(ruleset: str, extra: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    a = {"dealer": 0, "hands": MAHJONG_HANDS, "wall": WALL, **extra}
    return a, {**a, "hands": [*MAHJONG_HANDS[:2], SEAT_2_IN_B, MAHJONG_HANDS[3]]}, DISCARDS


def _daqi() -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    # Seat 2 receives the same 20 cards in the opposite order: which card it got when is hidden.
    a = json.loads(DAQI_DEAL)
    b = {**a, "hands": [h if s != HIDDEN else " ".join(reversed(h.split())) for s, h in enumerate(a["hands"])]}
    return a, b, []


DAQI_DEAL = json.dumps({
    "dealer": 2, "flip": {"seat": 4, "card": 2},
    "hands": ["♠2 ♠2 ♠3 ♠3 ♠4 ♠4 ♠5 ♠5 ♠6 ♠6 ♠8 ♠8 ♠9 ♠9 ♠10 ♠10 ♠J ♠J ♠Q ♠Q",
              "♥7 ♠K ♠K ♠A ♠A ♥2 ♥2 ♥3 ♥3 ♥4 ♥4 ♥5 ♥5 ♥6 ♥6 ♥8 ♥8 ♥9 ♥9 ♥10",
              "♥10 ♥J ♥J ♥Q ♥Q ♥K ♥K ♥A ♥A ♣2 ♣2 ♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10 ♣J ♣Q",
              "♠7 ♠7 ♣Q ♣K ♣K ♣A ♣A ♦2 ♦2 ♦3 ♦3 ♦4 ♦4 ♦5 ♦5 ♦6 ♦6 ♦8 ♦8 ♦9",
              "♦9 ♦10 ♦10 ♦J ♦J ♦Q ♦Q ♦K ♦K ♦A ♦A ♥7 ♣7 ♣7 ♦7 ♦7 SJ SJ BJ BJ"],
    "bottom": "♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10 ♣J"})

RUNS = {
    "koudian": (SLOW, *_mahjong("koudian", {"tail": ""})),
    "wuhan": (SLOW, *_mahjong("wuhan", {"indicator": "9p"})),
    "jj": (SLOW, *_mahjong("jj", {"indicator": "", "tail": ""})),
    "daqi": ({"deal_interval_ms": 0, "bid_window_ms": 120_000, "play_timeout_ms": 600_000,
              "bury_timeout_ms": 600_000}, *_daqi()),
}
DAQI_STEPS = 30  # actions into the hand: bids, burying and a few tricks, well before its end
HEX = re.compile(r"\b[0-9a-f]{32,}\b")  # commitments: hashes over a random salt per run
# The instant a deadline falls: the two runs play at different times. What it may tell (a claim
# window's) is held by tests/unit/services/game/test_claim_deadlines.py with a clock moved by hand.
INSTANT = re.compile(r"deadline_at_ms: \d+")


class Record:
    """What each observer received, as text, with the run's own ids (table, players) named: its
    stream apart from its calls' answers (which of the two comes first is a matter of timing)."""

    def __init__(self) -> None:
        self.seen: dict[str, list[str]] = defaultdict(list)
        self.names: dict[str, str] = {}
        self.scripted = False  # the script ran to its end inside the hand

    def add(self, observer: str, what: str, reply: Any) -> None:
        if isinstance(reply, grpc.aio.AioRpcError):
            text = f"{reply.code().name} {reply.details()}"
        else:
            text = text_format.MessageToString(reply, as_one_line=True)
        for own, name in self.names.items():
            text = text.replace(own, name)
        text = INSTANT.sub("deadline_at_ms: <instant>", HEX.sub("<hash>", text))
        self.seen[observer].append(f"{what}: {text}")


async def _answer(call: Any) -> Any:
    try:
        return await call
    except grpc.aio.AioRpcError as err:
        return err


def _kind(action: actions_pb2.Action) -> str:
    family = action.WhichOneof("family")
    return f"{family}.{getattr(action, family).WhichOneof('kind')}" if family else ""


def _pass(ruleset: str) -> actions_pb2.Action:
    action = actions_pb2.Action()
    family = action.daqi if ruleset == "daqi" else action.mahjong
    getattr(family, "pass").SetInParent()
    return action


async def _watch(record: Record, observer: str, player: Player, table_id: str,
                 latest: dict[str, int], started: asyncio.Event) -> None:
    async for update in player.watch(table_id, with_views=True):
        record.add(f"{observer}'s stream", "update", update)
        latest[observer] = update.version
        started.set()


async def play(address: str, ruleset: str, deal: dict[str, Any]) -> Record:
    """One scripted run; what every observer received."""
    options, _, _, discards = RUNS[ruleset]
    discards = list(discards)
    record = Record()
    async with channel(address) as chan:
        admin = admin_of(chan)
        players = [await Player.guest(chan, f"p{s}") for s in range(SEATS[ruleset])]
        guest = await Player.guest(chan, "guest")
        opts = struct_pb2.Struct()
        opts.update(options)
        created = await admin.admin.CreateFixedTable(admin_pb2.CreateFixedTableRequest(
            ruleset=ruleset, options=opts, deal_json=json.dumps(deal), request_id=uuid.uuid4().hex),
            metadata=admin.metadata)
        table_id = created.table_id
        record.names = {table_id: "TABLE", guest.player_id: "GUEST",
                        **{p.player_id: f"PLAYER{s}" for s, p in enumerate(players)}}
        observers = {f"seat{s}": p for s, p in enumerate(players)} | {"operator": admin}
        for s, p in enumerate(players):
            record.add(f"seat{s}", "join", await _answer(p.join(table_id, s)))
        latest: dict[str, int] = {}
        watchers = []
        for name, p in observers.items():
            started = asyncio.Event()
            watchers.append(asyncio.create_task(_watch(record, name, p, table_id, latest, started)))
            await asyncio.wait_for(started.wait(), 10)  # its history came: the rest is live
        try:
            for s, p in enumerate(players):
                record.add(f"seat{s}", "ready", await _answer(p.ready(table_id)))
            record.scripted = await _script(record, ruleset, table_id, players, observers, guest,
                                            discards)
            for name, p in observers.items():
                final = await p.view(table_id)
                for _ in range(500):
                    if latest.get(name, -1) >= final.version:
                        break
                    await asyncio.sleep(0.01)
        finally:
            for task in watchers:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                    await task
    return record


async def _script(record: Record, ruleset: str, table_id: str, players: list[Player],
                  observers: dict[str, Player], guest: Player, discards: list[str]) -> bool:
    """Pass whenever a seat may; discard the scripted tile when a seat must; otherwise (daqi)
    take the seat's first legal action. A seat with nothing to pass tries to, and is told why.
    True when the script ran to its end with the hand still on.

    Seat 2 answers a claim window at once, before anyone looks: how long a window stays open
    shows whether somebody could claim, a leak the rules accept (docs/hidden-information.md,
    "What is still visible"); everything else must be the same.
    """
    for _ in range(DAQI_STEPS if ruleset == "daqi" else 120):
        hidden = await players[HIDDEN].view(table_id)
        record.add(f"seat{HIDDEN}", "view", hidden)
        answer = next((a for a in hidden.legal_actions if _kind(a) == "mahjong.pass"), None)
        if answer is not None:
            record.add(f"seat{HIDDEN}", "act", await _answer(players[HIDDEN].act(table_id, answer)))
            continue
        views = {}
        for name, p in observers.items():
            views[name] = await p.view(table_id)
            record.add(name, "view", views[name])
        record.add("guest", "view", await _answer(guest.view(table_id)))
        if views["operator"].status != "in_hand":
            return False
        for s, p in enumerate(players):
            kinds = {_kind(a) for a in views[f"seat{s}"].legal_actions}
            if not any(k.endswith(".pass") for k in kinds):
                record.add(f"seat{s}", "pass", await _answer(p.act(table_id, _pass(ruleset))))
        mover = next((s for s in range(len(players)) if views[f"seat{s}"].legal_actions), None)
        if mover is None:  # a claim window, which every seat's pass just closed: look again
            continue
        view = views[f"seat{mover}"]
        legal = list(view.legal_actions)
        action = next((a for a in legal if _kind(a).endswith(".pass")), None)
        if action is None and any(_kind(a) == "mahjong.discard" for a in legal):
            if not discards:
                return True
            action = actions_pb2.Action(mahjong=actions_pb2.MahjongAction(
                discard=actions_pb2.MahjongAction.Discard(tile=discards.pop(0))))
        record.add(f"seat{mover}", "act", await _answer(players[mover].act(
            table_id, action or legal[0], expected_version=view.version)))
    return ruleset == "daqi"


def _compared(record: Record) -> dict[str, list[str]]:
    return {name: seen for name, seen in record.seen.items() if not name.startswith(f"seat{HIDDEN}")}


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One `make run`-style server (embedded default) for the module: each run has its table."""
    with server_starter(tmp_path_factory.mktemp("hidden")) as start:
        yield start()


@pytest.mark.parametrize("ruleset", ["koudian", "daqi", "wuhan", "jj"])
async def test_no_observer_can_tell_another_seats_hidden_cards_apart(embedded, ruleset):
    _, deal_a, deal_b, _ = RUNS[ruleset]
    a, b = await asyncio.gather(play(embedded.address, ruleset, deal_a),
                                play(embedded.address, ruleset, deal_b))
    # The runs did differ for the seat itself, and the script played its moves in both.
    assert [a.seen[k] for k in sorted(a.seen) if k.startswith(f"seat{HIDDEN}")] != \
        [b.seen[k] for k in sorted(b.seen) if k.startswith(f"seat{HIDDEN}")]
    assert a.scripted and b.scripted
    for name, seen in _compared(a).items():
        other = _compared(b)[name]
        first = next((i for i, (x, y) in enumerate(zip(seen, other, strict=False)) if x != y),
                     min(len(seen), len(other)))
        assert seen == other, (f"{name} can tell seat {HIDDEN}'s cards apart at its item {first}:\n"
                               f"A: {seen[first] if first < len(seen) else '(nothing)'}\n"
                               f"B: {other[first] if first < len(other) else '(nothing)'}")
