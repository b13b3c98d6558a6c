"""`qipai play`: sit at a table in the terminal against bots.

You take seat 0 of a new table; bots take the other seats in this process. The table's events
scroll by as they happen (who discarded what, who played which cards, each hand's result with
its score's factors); at each of your decisions you see your hand, what is public, your legal
actions numbered and the time left before the server plays for you (托管). Answer with a number,
or type an action in the scenario form (`discard 5m`, `pong 7p`, `play ♠A ♠A`, `bid ♥7`). A
rejected action prints the rule's reason; Ctrl-D or `quit` leaves. After two timeouts in a row the
server plays your seat (auto-play): `t` takes it back, and so does answering a decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import grpc
from grpc_status import rpc_status

from clients import rooms
from clients.client import Player, channel, engine_view, play_seat
from clients.deals import follow_deals
from clients.screen import TAKE_BACK_HINT, Screen, action
from clients.selfplay import parse_options
from engine import rulesets
from protocol import wire
from qipai.v1 import common_pb2, matchmaking_pb2

SEATS_NAMES = ("you", "bot1", "bot2", "bot3", "bot4")
WARN_S = 5  # seconds before a deadline when the player is reminded of it
TAKE_BACK = "t"  # typed: take the seat back from auto-play


def parse_typed(rs: Any, seat: int, text: str) -> Any:
    """A typed action (`discard 5m`) through the ruleset's human command form."""
    word, _, rest = text.strip().partition(" ")
    spec: dict[str, Any] = {"seat": seat, "action": word}
    if rest:
        key = "cards" if rs.name == "daqi" else "tile"
        spec[key] = rest.strip()
    return rs.parse_command(spec)


class _Lines:
    """Lines typed at the terminal, read by a thread of their own so the table keeps moving
    while the player thinks; None once the input ends."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = loop
        threading.Thread(target=self._read, name="qipai-play-input", daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            self._loop.call_soon_threadsafe(self.queue.put_nowait, line.rstrip("\n"))
        self._loop.call_soon_threadsafe(self.queue.put_nowait, None)


async def _play(address: str, ruleset: str, bot: str, options: dict[str, Any],
                say: Callable[[str], None]) -> int:
    rs = rulesets.get(ruleset)
    seats = rs.seats(rs.options(options))
    async with channel(address) as chan:
        me = await Player.guest(chan, "you")
        table_id = (await me.create_table(ruleset, options)).table_id
        bots = [await Player.guest(chan, f"bot{i}") for i in range(1, seats)]
        await me.join(table_id, 0)
        for i, b in enumerate(bots, start=1):
            await b.join(table_id, i)
        tasks: list[asyncio.Task[Any]] = [asyncio.create_task(play_seat(b, table_id, bot, seed=i, hands=10**6))
                 for i, b in enumerate(bots)]
        for b in bots:
            await b.ready(table_id, commit=True)
        # Every hand's deal is checked at its end from your own Watch events (docs/fairness.md).
        tasks.append(asyncio.create_task(follow_deals(
            me, table_id, 0, lambda check: say(f"  {'✓' if check.ok else '✗'} {check}"))))
        await me.ready(table_id, commit=True)
        say(f"table {table_id}: you are seat 0; {', '.join(f'bot{i}' for i in range(1, seats))} "
            f"({bot} bots) take the other seats")
        try:
            return await _session(me, table_id, rs, Screen(ruleset, 0, SEATS_NAMES[:seats]), say)
        finally:
            for t in tasks:
                t.cancel()


async def _play_room(address: str, code: str | None, ruleset: str, bot: str, options: dict[str, Any],
                     stake: int, rounds: int, bots: int, say: Callable[[str], None]) -> int:
    """Create a room (`code` None) or join the room with `code`, fill `bots` seats with bots of
    this process, be ready, and play at the room's table once it starts."""
    async with channel(address) as chan:
        me = await Player.guest(chan, "you")
        if code is None:
            room = await rooms.create_room(me, ruleset, options, stake, rounds)
            say(f"room {room.code} created: give your friends the code or {room.share}")
            say(f"  they join with: qipai play --room {room.code}")
        else:
            room = await rooms.join_room(me, code)
        code = room.code
        helpers = [await Player.guest(chan, f"bot{i}") for i in range(1, bots + 1)]
        for b in helpers:
            await rooms.join_room(b, code)
            await rooms.set_ready(b, code)
        started = False
        try:
            await rooms.set_ready(me, code)
            say(f"you are ready; the room starts when all {room.seats} seats are taken and ready "
                "(Ctrl-C leaves)")
            table_id = ""
            async for room in rooms.watch_room(me, code):
                say(rooms.describe(room))
                if room.state == matchmaking_pb2.ROOM_STATE_STARTED:
                    table_id, started = room.table_id, True
                    break
                if room.state == matchmaking_pb2.ROOM_STATE_CLOSED:
                    say(f"the room closed ({room.closed_reason})")
                    return 1
                if not any(m.player_id == me.player_id for m in room.members):
                    say("you were removed from the room")
                    return 1
            if not started:
                return 1
        finally:
            if not started:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await rooms.leave_room(me, code)
        rs = rulesets.get(room.ruleset)
        names = {m.seat: m.player_id for m in room.members}
        seat = next(m.seat for m in room.members if m.player_id == me.player_id)
        names[seat] = "you"
        bot_names = {b.player_id: f"bot{i}" for i, b in enumerate(helpers, start=1)}
        names = {s: bot_names.get(p, p) for s, p in names.items()}
        tasks: list[asyncio.Task[Any]] = [
            asyncio.create_task(play_seat(b, table_id, bot, seed=i, hands=10**6))
            for i, b in enumerate(helpers)]
        for b in helpers:
            await b.ready(table_id, commit=True)
        tasks.append(asyncio.create_task(follow_deals(
            me, table_id, 0, lambda check: say(f"  {'✓' if check.ok else '✗'} {check}"))))
        await me.ready(table_id, commit=True)
        say(f"table {table_id}: you are seat {seat}")
        try:
            screen = Screen(room.ruleset, seat, tuple(names.get(i, "?") for i in range(room.seats)))
            return await _session(me, table_id, rs, screen, say)
        finally:
            for t in tasks:
                t.cancel()


async def _queued(address: str, ruleset: str, preset: str, tier: str,
                  say: Callable[[str], None]) -> int:
    """Queue for a public table (README "Matchmaking"); once matched, play your seat there.
    The queue fills the seats nobody takes with the server's bots after its bot-fill wait."""
    from qipai.v1 import matchmaking_pb2 as mm
    from qipai.v1 import matchmaking_pb2_grpc

    rs = rulesets.get(ruleset)
    async with channel(address) as chan:
        me = await Player.guest(chan, "you")
        stub = matchmaking_pb2_grpc.MatchmakingStub(chan)
        ticket = None
        async for ticket in stub.Queue(mm.QueueRequest(ruleset=ruleset, preset=preset, tier=tier),
                                       metadata=me.metadata):
            if ticket.state == mm.TICKET_STATE_SEARCHING:
                say(f"queue {ticket.queue}: searching, position {ticket.position}, about "
                    f"{ticket.estimated_wait_ms / 1000:.0f} s")
        if ticket is None or ticket.state != mm.TICKET_STATE_MATCHED:
            why = ticket.cancel_reason if ticket is not None else "no answer"
            say(f"not matched: {why} {ticket.cancel_detail if ticket is not None else ''}".rstrip())
            return 1
        table_id, seat = ticket.table_id, ticket.seat
        view = await me.view(table_id)
        names = ["bot" if p.startswith("bot-") else ("you" if p == me.player_id else p[:12])
                 for p in view.players]
        deals = asyncio.create_task(follow_deals(
            me, table_id, 0, lambda check: say(f"  {'✓' if check.ok else '✗'} {check}")))
        await me.ready(table_id, commit=True)
        say(f"matched: table {table_id}, you are seat {seat}; "
            f"the others: {', '.join(n for i, n in enumerate(names) if i != seat)}")
        try:
            return await _session(me, table_id, rs, Screen(ruleset, seat, names), say)
        finally:
            deals.cancel()


async def _session(me: Player, table_id: str, rs: Any, screen: Screen, say: Callable[[str], None]) -> int:
    loop = asyncio.get_running_loop()
    lines = _Lines(loop)
    updates: asyncio.Queue[Any] = asyncio.Queue()

    async def pump() -> None:
        async for update in me.watch(table_id, 0, with_views=True):
            await updates.put(update)

    pumping = asyncio.create_task(pump())
    decision: Any = None  # the view whose legal actions are on screen
    shown: list[str] = []
    due: float | None = None  # when that decision times out (monotonic seconds)
    warned = False  # the countdown's last seconds were announced
    auto = False  # the server plays this seat (auto-play): `t` takes it back
    try:
        while True:
            waits: set[asyncio.Future[Any]] = {asyncio.ensure_future(updates.get()), pumping}
            # Typed-ahead lines answer the next decision, not this wait; on auto-play a `t` may
            # come at any time.
            if decision is not None or auto:
                waits.add(asyncio.ensure_future(lines.queue.get()))
            warn_in = None
            if decision is not None and due is not None and decision.deadline_ms > WARN_S * 1000 \
                    and not warned:
                warn_in = max(0.0, due - WARN_S - time.monotonic())
            done, pending = await asyncio.wait(waits, timeout=warn_in, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                if task is not pumping:
                    task.cancel()
            if not done:  # the countdown's last seconds: say so once
                warned = True
                say(f"  ⏱ {WARN_S} s left before the server plays for you")
                say(_prompt(due))
                continue
            if pumping in done:
                pumping.result()  # the stream ended with an error: let it out
                say("the table's stream ended")
                return 1
            for task in done:
                result = task.result()
                if result is None or isinstance(result, str):
                    text = result
                    if text is None or text.strip() == "quit":
                        return 0
                    if text.strip() == TAKE_BACK:
                        try:
                            await me.take_back(table_id)  # its AutoPlaySet event says it is done
                        except grpc.aio.AioRpcError as err:
                            say(f"  ✗ {_reason(err)}")
                        if not auto:
                            say("  your seat is not on auto-play: it is yours")
                        if decision is not None:
                            say(_prompt(due))
                        continue
                    if decision is None:
                        say(f"  nothing to decide right now; {TAKE_BACK_HINT}")
                        continue
                    if await _answer(me, table_id, rs, decision, text, say):
                        decision, shown = None, []
                    else:
                        say(_prompt(due))
                    continue
                update = result
                for ev in update.events:
                    data = json.loads(ev.data_json)
                    if ev.type == "table.AutoPlaySet" and data.get("seat") == screen.seat:
                        auto = bool(data.get("on"))
                    for line in screen.event(ev.type, data):
                        say(line)
                if not update.HasField("view"):
                    continue
                reply = update.view
                auto = reply.seat in reply.auto_play
                if reply.status == "match_over":
                    say("the match is over")
                    return 0
                if reply.status == "waiting_for_hand":
                    decision, shown = None, []
                    await me.ready(table_id, commit=True)
                    say("ready for the next hand (quit or Ctrl-D to leave)")
                    continue
                legal = [action(wire.action_to_command(a, reply.seat)) for a in reply.legal_actions]
                if not legal:
                    decision, shown = None, []
                    continue
                decision, due, warned = reply, _due(reply), False
                if legal != shown:  # a new decision (a daqi deal offers the same bids card after card)
                    shown = legal
                    for line in screen.view(reply, engine_view(rs, reply)):
                        say(line)
                    for n, text in enumerate(legal, start=1):
                        say(f"  [{n}] {text}")
                    say(_prompt(due))
    finally:
        pumping.cancel()


def _due(reply: Any) -> float | None:
    """When `reply`'s decision times out, on the monotonic clock: the server's absolute deadline
    (the same after a reconnect), else its full timeout from now (an older server)."""
    if reply.deadline_at_ms:
        return time.monotonic() + reply.deadline_at_ms / 1000 - time.time()
    if reply.deadline_ms:
        return time.monotonic() + reply.deadline_ms / 1000
    return None


def _prompt(due: float | None) -> str:
    if due is None:
        return "your move>"
    left = max(0, round(due - time.monotonic()))
    return f"your move ({left} s left, then the server plays for you)>"


async def _answer(me: Player, table_id: str, rs: Any, reply: Any, text: str,
                  say: Callable[[str], None]) -> bool:
    """Send the typed answer to `reply`'s decision; True when the server took it."""
    legal = [wire.action_to_command(a, reply.seat) for a in reply.legal_actions]
    try:
        if text.strip().isdigit():
            if not 1 <= int(text) <= len(legal):
                raise ValueError(f"no such choice: pick 1 to {len(legal)}")
            cmd = legal[int(text) - 1]
        else:
            cmd = parse_typed(rs, reply.seat, text)
        version = reply.version
        for _ in range(3):
            try:
                await me.act(table_id, wire.command_to_action(cmd), expected_version=version)
                return True
            except grpc.aio.AioRpcError as err:
                if err.code() != grpc.StatusCode.ABORTED:
                    raise
            # Others moved first (every seat answers a bid window at once): the same answer
            # still stands if the decision is still the same.
            fresh = await me.view(table_id)
            if cmd not in [wire.action_to_command(a, fresh.seat) for a in fresh.legal_actions]:
                break
            version = fresh.version
        say("  ✗ the table moved on before your move arrived: look again")
        return True
    except (ValueError, KeyError) as exc:
        # A KeyError's str() is its repr: show the message itself.
        say(f"  ✗ {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}")
    except grpc.aio.AioRpcError as err:
        say(f"  ✗ {_reason(err)}")
    return False


def _reason(err: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(err)
    if status is not None and status.details:
        rule = common_pb2.RuleViolation()
        if status.details[0].Unpack(rule):
            return rule.message
    return err.details() or err.code().name


def ruleset_problem(name: str) -> str | None:
    """Why `qipai play` cannot open a table of `name`, in one line; None when it can."""
    try:
        rulesets.get(name)
    except rulesets.UnknownRuleset as exc:
        return f"{exc}; playable: {', '.join(rulesets.available())}"
    return None


def main(args: Any) -> int:
    """`qipai play [--ruleset R] [--bot B] [--option KEY=VALUE]` against QIPAI_GRPC_ADDR;
    `qipai play --queue [--ruleset R] [--preset P] [--tier T]` for a public table; with
    `--create-room [--stake N] [--rounds N] [--bots N]` in a new private room, with `--room CODE`
    in a friend's."""
    problem = ruleset_problem(args.ruleset)
    if problem is None and args.bot not in rulesets.get(args.ruleset).bots:
        problem = f"unknown bot {args.bot!r}; choose {' or '.join(sorted(rulesets.get(args.ruleset).bots))}"
    options: dict[str, Any] = {}
    if problem is None:
        try:
            options = parse_options(getattr(args, "option", None) or [])
        except ValueError as exc:
            problem = str(exc)
    room = getattr(args, "room", None)
    if problem is None and room is not None and getattr(args, "create_room", False):
        problem = "--room joins a room, --create-room makes one: give one of them"
    if problem is None and getattr(args, "queue", False) and (
            room is not None or getattr(args, "create_room", False)):
        problem = "--queue plays a public table, --room/--create-room a private one: give one"
    if problem is None and getattr(args, "bots", 0) < 0:
        problem = "--bots cannot be negative"
    if problem:
        print(f"qipai play: {problem}", file=sys.stderr)
        return 2

    def say(line: str) -> None:
        print(line, flush=True)

    if getattr(args, "queue", False):
        play = _queued(args.grpc_addr, args.ruleset, args.preset, args.tier, say)
    elif room is not None or getattr(args, "create_room", False):
        play = _play_room(args.grpc_addr, room, args.ruleset, args.bot, options, args.stake,
                          args.rounds, args.bots, say)
    else:
        play = _play(args.grpc_addr, args.ruleset, args.bot, options, say)
    try:
        return asyncio.run(play)
    except KeyboardInterrupt:
        return 130
    except grpc.aio.AioRpcError as err:
        # Only an unreachable server is worth the hint: the server's own refusals say why.
        hint = (f" (is `make run` serving {args.grpc_addr}?)"
                if err.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) else "")
        print(f"qipai play: {err.code().name}: {err.details()}{hint}", file=sys.stderr)
        return 1
