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
import os
import sys
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import grpc
from grpc_status import rpc_status

from clients import chinese, rooms, sessions
from clients.client import Player, _persisting, channel, engine_view, play_seat
from clients.deals import DealFollower
from clients.screen import TAKE_BACK_HINT, TAKE_BACK_HINT_ZH, Screen, action
from clients.selfplay import parse_options
from engine import rulesets
from engine.chips import split_options
from protocol import wire
from qipai.v1 import admin_pb2, common_pb2, matchmaking_pb2

SEATS_NAMES = ("you", "bot1", "bot2", "bot3", "bot4")
WARN_S = 5  # seconds before a deadline when the player is reminded of it
TAKE_BACK = "t"  # typed: take the seat back from auto-play
QUIT = "quit"
LEFT = -1  # _session's answer when the player left (the match goes on without them)
# A dropped connection or a server going down or restarting: the client tries again.
RECONNECT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN,
             grpc.StatusCode.INTERNAL, grpc.StatusCode.DEADLINE_EXCEEDED)
RECONNECT_S = 1.0
T = TypeVar("T")


def parse_typed(rs: Any, seat: int, text: str) -> Any:
    """A typed action (`discard 5m`) through the ruleset's human command form."""
    word, _, rest = chinese.typed(text.strip()).partition(" ")
    spec: dict[str, Any] = {"seat": seat, "action": word}
    if rest:
        key = "cards" if rs.name == "daqi" else "tile"
        spec[key] = rest.strip()
    return rs.parse_command(spec)


def _tr(lang: str, en: str, zh: str) -> str:
    """The message in the player's language."""
    return zh if lang == "zh" else en


class _Lines:
    """Lines typed at the terminal, read by a thread of their own so the table keeps moving
    while the player thinks; None once the input ends. At a terminal (`interactive`) a line
    is taken as soon as it is typed: `quit` and Ctrl-D leave at any moment. Piped input (a
    script) answers decisions in turn: each line waits for the next decision."""

    def __init__(self, loop: asyncio.AbstractEventLoop, interactive: bool | None = None) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.interactive = sys.stdin.isatty() if interactive is None else interactive
        self._loop = loop
        threading.Thread(target=self._read, name="qipai-play-input", daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            self._loop.call_soon_threadsafe(self.queue.put_nowait, line.rstrip("\n"))
        self._loop.call_soon_threadsafe(self.queue.put_nowait, None)

    async def leave_requested(self) -> None:
        """Returns once the player typed `quit` or Ctrl-D (at a terminal; never for a script,
        whose lines wait for decisions); other lines typed meanwhile say there is nothing to
        answer yet."""
        if not self.interactive:
            await asyncio.Event().wait()
        while True:
            text = await self.queue.get()
            if text is None or text.strip() == QUIT:
                return
            print("  nothing to decide yet (quit or Ctrl-D leaves)", flush=True)


class PlayerLeft(Exception):
    """The player typed `quit` or Ctrl-D while waiting (for a room, a match)."""


async def _until_quit(lines: _Lines, work: Awaitable[T]) -> T:
    """`work`'s result; PlayerLeft if the player left (`quit`, Ctrl-D) first."""
    job = asyncio.ensure_future(work)
    leave = asyncio.ensure_future(lines.leave_requested())
    try:
        await asyncio.wait({job, leave}, return_when=asyncio.FIRST_COMPLETED)
        if job.done():
            return job.result()
        raise PlayerLeft
    finally:
        for task in (job, leave):
            task.cancel()


async def _bot(player: Player, table_id: str, bot: str, seed: int) -> None:
    """A bot of this process plays its seat until the match is over, through server restarts."""
    while True:
        try:
            await play_seat(player, table_id, bot, seed=seed, hands=10**6)
            return
        except grpc.aio.AioRpcError as err:
            if err.code() not in RECONNECT:
                raise
        await asyncio.sleep(RECONNECT_S)


async def _at_table(me: Player, table_id: str, rs: Any, screen: Screen, bot: str,
                    bots: Sequence[tuple[int, Player]], lines: _Lines, say: Callable[[str], None],
                    resumed: bool = False) -> int:
    """Play `me`'s seat (with this process's `bots` on theirs) until the match is over or the
    player leaves; what it takes to come back is kept (`clients.sessions`)."""
    try:
        sessions.save(sessions.Session(table_id, me.player_id, me.token, bot, tuple(
            sessions.BotSeat(seat, b.player_id, b.token) for seat, b in bots)))
    except OSError as exc:  # a read-only directory: play on, without a way back
        say(screen.t(f"  (cannot keep this seat for `qipai play --table`: {exc})",
                     f"  （无法保存座位，`qipai play --table` 将不可用：{exc}）"))
    tasks = [asyncio.create_task(_bot(b, table_id, bot, seat)) for seat, b in bots]
    try:
        code = await _session(me, table_id, rs, screen, lines, say, resumed)
    finally:
        for t in tasks:
            t.cancel()
    if code == LEFT:
        say(screen.t(f"you left table {table_id}: `qipai play --table {table_id}` takes your seat "
                     "back (the server plays it meanwhile)",
                     f"你离开了牌桌 {table_id}：`qipai play --table {table_id}` 可回到座位（期间由服务器托管）"))
        return 0
    sessions.forget(table_id)
    return code


async def _play(address: str, ruleset: str, bot: str, options: dict[str, Any], token: str,
                lines: _Lines, say: Callable[[str], None], lang: str = "en") -> int:
    rs = rulesets.get(ruleset)
    seats = rs.seats(rs.options(split_options(options)[1]))  # stake, buy_in: the table's, not the game's
    async with channel(address) as chan:
        me = Player(chan, token, sessions.player_of(token)) if token else await Player.guest(chan, "you")
        table_id = (await me.create_table(ruleset, options)).table_id
        bots = [await Player.guest(chan, f"bot{i}") for i in range(1, seats)]
        await me.join(table_id, 0)
        for i, b in enumerate(bots, start=1):
            await b.join(table_id, i)
        for b in bots:
            await b.ready(table_id, commit=True)
        await me.ready(table_id, commit=True)
        others = [f"bot{i}" for i in range(1, seats)]
        say(_tr(lang, f"table {table_id}: you are seat 0; {', '.join(others)} ({bot} bots) take the "
                "other seats", f"牌桌 {table_id}：你坐 0 号位；{'、'.join(others)}（{bot} 机器人）坐其余座位"))
        return await _at_table(me, table_id, rs, Screen(ruleset, 0, SEATS_NAMES[:seats], lang), bot,
                               list(enumerate(bots, start=1)), lines, say)


async def _play_room(address: str, code: str | None, ruleset: str, bot: str, options: dict[str, Any],
                     stake: int, rounds: int, bots: int, token: str, lines: _Lines,
                     say: Callable[[str], None], lang: str = "en") -> int:
    """Create a room (`code` None) or join the room with `code`, fill `bots` seats with bots of
    this process, be ready, and play at the room's table once it starts."""
    async with channel(address) as chan:
        me = Player(chan, token, sessions.player_of(token)) if token else await Player.guest(chan, "you")
        if code is None:
            room = await rooms.create_room(me, ruleset, options, stake, rounds)
            say(_tr(lang, f"room {room.code} created: give your friends the code or {room.share}",
                    f"房间 {room.code} 已创建：把房号或 {room.share} 发给朋友"))
            say(_tr(lang, f"  they join with: qipai play --room {room.code}",
                    f"  朋友这样加入：qipai play --room {room.code}"))
        else:
            room = await rooms.join_room(me, code)
        code = room.code
        helpers = [await Player.guest(chan, f"bot{i}") for i in range(1, bots + 1)]
        for b in helpers:
            await rooms.join_room(b, code)
            await rooms.set_ready(b, code)
        started = False

        async def until_started() -> matchmaking_pb2.Room | None:
            async for room in rooms.watch_room(me, code):
                say(rooms.describe(room, lang))
                if room.state == matchmaking_pb2.ROOM_STATE_STARTED:
                    return room
                if room.state == matchmaking_pb2.ROOM_STATE_CLOSED:
                    say(_tr(lang, f"the room closed ({room.closed_reason})", f"房间已关闭（{room.closed_reason}）"))
                    return None
                if not any(m.player_id == me.player_id for m in room.members):
                    say(_tr(lang, "you were removed from the room", "你被移出了房间"))
                    return None
            return None

        try:
            await rooms.set_ready(me, code)
            say(_tr(lang, f"you are ready; the room starts when all {room.seats} seats are taken and "
                    "ready (quit, Ctrl-D or Ctrl-C leaves)",
                    f"你已准备；{room.seats} 个座位都坐满并准备后开局（quit、Ctrl-D 或 Ctrl-C 离开）"))
            try:
                begun = await _until_quit(lines, until_started())
            except PlayerLeft:
                say(_tr(lang, f"you left room {code}", f"你离开了房间 {code}"))
                return 0
            if begun is None:
                return 1
            room, started = begun, True
        finally:
            if not started:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await rooms.leave_room(me, code)
        table_id = room.table_id
        rs = rulesets.get(room.ruleset)
        names = {m.seat: m.player_id for m in room.members}
        seat = next(m.seat for m in room.members if m.player_id == me.player_id)
        names[seat] = "you"
        bot_names = {b.player_id: f"bot{i}" for i, b in enumerate(helpers, start=1)}
        names = {s: bot_names.get(p, p) for s, p in names.items()}
        seated = [(next(m.seat for m in room.members if m.player_id == b.player_id), b) for b in helpers]
        for _, b in seated:
            await b.ready(table_id, commit=True)
        await me.ready(table_id, commit=True)
        say(_tr(lang, f"table {table_id}: you are seat {seat}", f"牌桌 {table_id}：你坐 {seat} 号位"))
        screen = Screen(room.ruleset, seat, tuple(names.get(i, "?") for i in range(room.seats)), lang)
        return await _at_table(me, table_id, rs, screen, bot, seated, lines, say)


async def _queued(address: str, ruleset: str, preset: str, tier: str, token: str, lines: _Lines,
                  say: Callable[[str], None], lang: str = "en") -> int:
    """Queue for a public table (README "Matchmaking"); once matched, play your seat there.
    The queue fills the seats nobody takes with the server's bots after its bot-fill wait."""
    from qipai.v1 import matchmaking_pb2 as mm
    from qipai.v1 import matchmaking_pb2_grpc

    rs = rulesets.get(ruleset)
    async with channel(address) as chan:
        me = Player(chan, token, sessions.player_of(token)) if token else await Player.guest(chan, "you")
        stub = matchmaking_pb2_grpc.MatchmakingStub(chan)

        async def matched() -> Any:
            ticket = None
            async for ticket in stub.Queue(mm.QueueRequest(ruleset=ruleset, preset=preset, tier=tier),
                                           metadata=me.metadata):
                if ticket.state == mm.TICKET_STATE_SEARCHING:
                    wait_s = f"{ticket.estimated_wait_ms / 1000:.0f}"
                    say(_tr(lang, f"queue {ticket.queue}: searching, position {ticket.position}, about "
                            f"{wait_s} s (quit or Ctrl-D leaves the queue)",
                            f"队列 {ticket.queue}：匹配中，第 {ticket.position} 位，约 {wait_s} 秒"
                            "（quit 或 Ctrl-D 退出队列）"))
            return ticket

        try:
            ticket = await _until_quit(lines, matched())
        except PlayerLeft:
            say(_tr(lang, "you left the queue", "你退出了队列"))  # the ticket ends with its stream
            return 0
        if ticket is None or ticket.state != mm.TICKET_STATE_MATCHED:
            why = ticket.cancel_reason if ticket is not None else "no answer"
            say(f"not matched: {why} {ticket.cancel_detail if ticket is not None else ''}".rstrip())
            return 1
        table_id, seat = ticket.table_id, ticket.seat
        view = await me.view(table_id)
        names = ["bot" if p.startswith("bot-") else ("you" if p == me.player_id else p[:12])
                 for p in view.players]
        await me.ready(table_id, commit=True)
        others = ', '.join(n for i, n in enumerate(names) if i != seat)
        say(_tr(lang, f"matched: table {table_id}, you are seat {seat}; the others: {others}",
                f"匹配成功：牌桌 {table_id}，你坐 {seat} 号位；其他人：{others}"))
        return await _at_table(me, table_id, rs, Screen(ruleset, seat, names, lang), "greedy", [], lines, say)


async def _resume(address: str, table_id: str, token: str, secret: str, bot: str, lines: _Lines,
                  say: Callable[[str], None], lang: str = "en") -> int | None:
    """Sit again at `table_id` (or, without it, at the unfinished table `token`'s player sits
    at) with the token it was played with; None when there is none to go back to."""
    kept = sessions.load(table_id) if table_id else None
    token = token or (kept.token if kept else "")
    if not token:
        raise Refused(f"this machine kept no seat at {table_id}: give the token you played it "
                      "with (--token or QIPAI_TOKEN)")
    async with channel(address) as chan:
        me = Player(chan, token, sessions.player_of(token))
        if not table_id:
            kept = await _unfinished(chan, me, secret)
            if kept is None:
                return None
            table_id = kept.table_id
        view = await me.view(table_id)
        if view.seat < 0:
            raise Refused(f"{me.player_id or 'this token'} does not sit at {table_id}")
        if view.status == "match_over":
            sessions.forget(table_id)
            say(f"the match at {table_id} is over")
            return 0
        mine = kept.bots if kept is not None and kept.player_id == me.player_id else ()
        bots = [(b.seat, Player(chan, b.token, b.player_id)) for b in mine]
        names = {p: f"bot{i}" for i, p in enumerate((b.player_id for b in mine), start=1)}
        names[me.player_id] = "you"
        rs = rulesets.get(view.view.WhichOneof("ruleset") or "")
        screen = Screen(rs.name, view.seat, [names.get(p, "bot" if p.startswith("bot-") else p[:12])
                                             for p in view.players], lang)
        say(_tr(lang, f"table {table_id}: back at seat {view.seat}", f"牌桌 {table_id}：回到 {view.seat} 号位"))
        return await _at_table(me, table_id, rs, screen, kept.bot if kept else bot, bots, lines, say,
                               resumed=True)


async def _unfinished(chan: grpc.aio.Channel, me: Player, secret: str) -> sessions.Session | None:
    """The table `me` sits at whose match is not over: one this machine played it at, the most
    recent first, else one the server lists (with the operator rights of this machine's token
    key, as `qipai replay` has them)."""
    for kept in sessions.of_player(me.player_id):
        try:
            if (await me.view(kept.table_id)).status != "match_over":
                return kept
        except grpc.aio.AioRpcError as err:
            if err.code() in RECONNECT:
                raise
        sessions.forget(kept.table_id)
    from clients.operator import admin_player

    operator = admin_player(chan, secret)
    try:
        listed = await operator.admin.ListTables(admin_pb2.ListTablesRequest(), metadata=operator.metadata)
    except grpc.aio.AioRpcError as err:
        if err.code() in RECONNECT:
            raise
        raise Refused(f"cannot ask the server for {me.player_id}'s tables ({err.code().name}: it "
                      "takes the server's token key): give --table TABLE_ID") from None
    for table in listed.tables:
        if me.player_id in table.players and table.status != "match_over":
            return sessions.Session(table.table_id, me.player_id, me.token)
    return None


class Refused(Exception):
    """`qipai play` cannot do what was asked; the message says why."""


async def _session(me: Player, table_id: str, rs: Any, screen: Screen, lines: _Lines,
                   say: Callable[[str], None], resumed: bool = False) -> int:
    """Play until the match is over (0) or the player leaves (LEFT). The table's stream resumes
    where it broke when the connection drops or the server restarts; a resumed seat's first
    update (the table's whole history) only brings the screen up to date."""
    updates: asyncio.Queue[Any] = asyncio.Queue()
    quiet = resumed
    checks = DealFollower(screen.seat, me.nonces, lambda n: me.reveal(table_id, n),
                          lambda check: None if quiet else say(f"  {'✓' if check.ok else '✗'} {check}"))

    async def pump() -> None:
        # Every hand's deal is checked at its end from your own Watch events (docs/fairness.md).
        seen, lost = 0, False
        while True:
            stream = me.watch(table_id, seen, with_views=True)
            try:
                if lost:
                    await me.view(table_id)  # answers once the server is back
                    say(screen.t("  reconnected: back at the table", "  已重连：回到牌桌"))
                    lost = False
                async for update in stream:
                    seen = update.version
                    checks.update(update)
                    await updates.put(update)
            except grpc.aio.AioRpcError as err:
                if err.code() not in RECONNECT:
                    raise
                if not lost:
                    say(screen.t(f"  connection lost ({err.code().name}): reconnecting… (quit or Ctrl-D leaves)",
                                 f"  连接断开（{err.code().name}）：正在重连…（quit 或 Ctrl-D 离开）"))
                lost = True
            finally:
                stream.cancel()
            await asyncio.sleep(RECONNECT_S)

    pumping = asyncio.create_task(pump())
    decision: Any = None  # the view whose legal actions are on screen
    shown: list[str] = []
    due: float | None = None  # when that decision times out (monotonic seconds)
    warned = False  # the countdown's last seconds were announced
    auto = False  # the server plays this seat (auto-play): `t` takes it back
    try:
        while True:
            waits: set[asyncio.Future[Any]] = {asyncio.ensure_future(updates.get()), pumping}
            # A script's lines answer the next decision, not this wait; on auto-play a `t` may
            # come at any time, and at a terminal anything typed is taken at once.
            if decision is not None or auto or lines.interactive:
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
                say(screen.t(f"  ⏱ {WARN_S} s left before the server plays for you",
                             f"  ⏱ 还剩 {WARN_S} 秒，之后服务器替你出牌"))
                say(_prompt(due, screen.lang))
                continue
            if pumping in done:
                pumping.result()  # the stream failed for good: let its error out
            for task in done:
                result = task.result()
                if result is None or isinstance(result, str):
                    text = result
                    if text is None or text.strip() == QUIT:
                        return LEFT
                    if text.strip() == TAKE_BACK:
                        try:
                            await me.take_back(table_id)  # its AutoPlaySet event says it is done
                        except grpc.aio.AioRpcError as err:
                            say(f"  ✗ {_reason(err)}")
                        if not auto:
                            say(screen.t("  your seat is not on auto-play: it is yours", "  你的座位没有托管，由你自己出牌"))
                        if decision is not None:
                            say(_prompt(due, screen.lang))
                        continue
                    if decision is None:
                        say(screen.t(f"  nothing to decide right now; {TAKE_BACK_HINT}; quit or Ctrl-D leaves",
                                     f"  现在没有要你决定的；{TAKE_BACK_HINT_ZH}；quit 或 Ctrl-D 离开"))
                        continue
                    if await _answer(me, table_id, rs, decision, text, say):
                        decision, shown = None, []
                    else:
                        say(_prompt(due, screen.lang))
                    continue
                update = result
                for ev in update.events:
                    data = json.loads(ev.data_json)
                    if ev.type == "table.AutoPlaySet" and data.get("seat") == screen.seat:
                        auto = bool(data.get("on"))
                    lines_of_event = screen.event(ev.type, data)
                    if not quiet:
                        for line in lines_of_event:
                            say(line)
                quiet = False
                if not update.HasField("view"):
                    continue
                reply = update.view
                auto = reply.seat in reply.auto_play
                if reply.status == "match_over":
                    say(screen.t("the match is over", "整场结束"))
                    return 0
                if reply.status == "waiting_for_hand":
                    decision, shown = None, []
                    if reply.seat not in reply.ready:
                        try:
                            await _persisting(me.ready, table_id, uuid.uuid4().hex, commit=True)
                        except grpc.aio.AioRpcError as err:
                            say(f"  ✗ {_reason(err)}")
                    say(screen.t("ready for the next hand (quit or Ctrl-D to leave)",
                                 "已准备下一局（quit 或 Ctrl-D 离开）"))
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
                        say(f"  [{n}] {screen.move(text)}")
                    say(_prompt(due, screen.lang))
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


def _prompt(due: float | None, lang: str = "en") -> str:
    if due is None:
        return _tr(lang, "your move>", "请出牌>")
    left = max(0, round(due - time.monotonic()))
    return _tr(lang, f"your move ({left} s left, then the server plays for you)>",
               f"请出牌（剩 {left} 秒，超时由服务器代打）>")


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
                # One id per attempt: a retry across a dropped connection is the same move.
                await _persisting(me.act, table_id, wire.command_to_action(cmd),
                                  action_id=uuid.uuid4().hex, expected_version=version)
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
            rulesets.get(args.ruleset).options(split_options(options)[1])
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
    table = getattr(args, "table", None) or ""
    if problem is None and table and (getattr(args, "queue", False) or room is not None
                                      or getattr(args, "create_room", False)):
        problem = "--table takes your seat back at a table: --queue, --room and --create-room find a new one"
    if problem:
        print(f"qipai play: {problem}", file=sys.stderr)
        return 2

    def say(line: str) -> None:
        print(line, flush=True)

    token = getattr(args, "token", None) or os.environ.get("QIPAI_TOKEN", "")
    lang = getattr(args, "lang", "zh")

    async def play() -> int:
        lines = _Lines(asyncio.get_running_loop())
        if getattr(args, "queue", False):
            return await _queued(args.grpc_addr, args.ruleset, args.preset, args.tier, token, lines,
                                 say, lang)
        if room is not None or getattr(args, "create_room", False):
            return await _play_room(args.grpc_addr, room, args.ruleset, args.bot, options, args.stake,
                                    args.rounds, args.bots, token, lines, say, lang)
        if table or token:
            code = await _resume(args.grpc_addr, table, token, getattr(args, "token_secret", ""),
                                 args.bot, lines, say, lang)
            if code is not None:
                return code
            say(f"{sessions.player_of(token) or 'this token'} sits at no unfinished table: a new one")
        return await _play(args.grpc_addr, args.ruleset, args.bot, options, token, lines, say, lang)

    try:
        return asyncio.run(play())
    except KeyboardInterrupt:
        return 130
    except Refused as exc:
        print(f"qipai play: {exc}", file=sys.stderr)
        return 2
    except grpc.aio.AioRpcError as err:
        # Only an unreachable server is worth the hint: the server's own refusals say why.
        hint = (f" (is `make run` serving {args.grpc_addr}?)"
                if err.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) else "")
        print(f"qipai play: {err.code().name}: {err.details()}{hint}", file=sys.stderr)
        return 1
