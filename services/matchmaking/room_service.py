"""Private rooms as a service: what the room RPCs do, on a room store, the rate limits and the
seating of a started room. No protobuf here (rooms.py translates).

Every change reads the room, applies one rule of services/matchmaking/room.py and swaps the
result in (compare-and-set on the version), retrying when another call changed the room first.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from services.errors import Conflict, Refused, TooManyRequests, Unavailable
from services.live.base import LiveState, wall_clock_ms
from services.matchmaking import room as rules
from services.matchmaking.one_table import AlreadySeated, OneTable
from services.matchmaking.room import (
    BadRoomSettings,
    Room,
    RoomFull,
    RoomNotFound,
    RoomNotOpen,
    RoomState,
)
from services.matchmaking.room_codes import new_code, parse
from services.matchmaking.room_config import RoomSettings
from services.matchmaking.room_store import RoomStore
from services.observability import ROOM_JOIN_FAILURES, log

TRANSIENT = (Unavailable, ConnectionError, TimeoutError, asyncio.CancelledError)
"""Failures a start outlives: it is taken over later, not undone."""

SEAT_MEMORY_MS = 7 * 24 * 3600 * 1000
"""How long a member's room table is remembered (for Queue's seated check)."""

MAX_RETRIES = 100
CODE_TRIES = 20
REQUEST_TTL_MS = 24 * 3600 * 1000
MAX_REQUEST_ID = 128


class Seat(Protocol):
    """Makes a started room's table: creates it (idempotently, keyed by `match_id`) and seats and
    buys in `players` in seat order (None: a bot of level `bots` takes that seat); the table id."""

    def __call__(self, match_id: str, ruleset: str, options: Mapping[str, Any], stake: int,
                 players: Sequence[str | None], bots: str) -> Awaitable[str]: ...


class CannotSit(Refused):
    """A member cannot buy in with the room's stake (raised by a `Seat`)."""

    def __init__(self, message: str, player_id: str) -> None:
        super().__init__(message)
        self.player_id = player_id


class RoomService:
    """The rooms of one deployment, through `store`; `live` keeps the shared rate limits."""

    def __init__(self, store: RoomStore, live: LiveState, seat: Seat, settings: RoomSettings,
                 clock_ms: Callable[[], int] = wall_clock_ms,
                 randbelow: Callable[[int], int] = secrets.randbelow) -> None:
        self.store, self.live, self.seat, self.settings = store, live, seat, settings
        self.clock_ms, self.randbelow = clock_ms, randbelow
        self.expiry_ms = settings.expiry_s * 1000
        self.lease_ms = max(1, int(settings.start_lease_s * 1000))
        self.one_table: OneTable | None = None
        """Keeps a player seated at a live table (a public match's, another room's) from
        creating or joining a room; serving.py sets it (the ticket store and game live there)."""

    # -- the RPCs -------------------------------------------------------------------------
    async def create(self, host: str, ruleset: str, options: Mapping[str, Any], stake: int,
                     rounds: int, auto_start: bool = True, request_id: str = "",
                     bots: str = "") -> Room:
        """A new room with `host` in the first seat; the same `request_id` makes one room."""
        if len(request_id) > MAX_REQUEST_ID or not request_id.isprintable():
            raise BadRoomSettings(f"request_id is at most {MAX_REQUEST_ID} printable characters")
        chosen = rules.settings(ruleset, options, stake, rounds, bots)
        key = f"{host}:{request_id}" if request_id else ""
        if key:
            made = await self._made_by(key)
            if made is not None:
                return made
        if self.one_table is not None:
            await self.one_table.refuse_if_seated(host, "creating a room")
        if not await self.live.allow(f"room-create:{host}", self.settings.creates_per_minute, 60_000):
            raise TooManyRequests(f"at most {self.settings.creates_per_minute} rooms a minute: "
                                  f"wait a little, or use one of yours")
        for _ in range(CODE_TRIES):
            now = self.clock_ms()
            code = new_code(self.randbelow)
            room_id = "room-" + hashlib.sha256(f"{code}:{now}:{secrets.token_hex(8)}".encode()).hexdigest()[:20]
            room = rules.new_room(code, room_id, host, chosen, auto_start, now, self.expiry_ms)
            if await self.store.create(room, now):
                break
        else:
            raise Unavailable("no free room code found: try again")
        if key:
            claimed = await self.store.claim_request(key, code, REQUEST_TTL_MS)
            if claimed != code:  # the same request made a room meanwhile: that one is the answer
                await self.store.swap(room, rules.expire(room, room.expires_at_ms))
                made = await self.store.get(claimed)
                if made is not None:
                    return made
        log.info("room_created", code=code, room_id=room.room_id, ruleset=ruleset, host=host)
        return room

    async def join(self, player_id: str, code_text: str, address: str) -> Room:
        """Take a seat in the room with this code (or share string)."""
        code = await self._attempt(player_id, code_text, address)
        if self.one_table is not None:
            room = await self.store.get(code)
            if room is None or not room.live or room.member(player_id) is None:  # else: a no-op
                await self.one_table.refuse_if_seated(player_id, "joining a room")
        try:
            return await self._update(code, lambda r, now: rules.join(r, player_id, now, self.expiry_ms))
        except RoomNotFound:
            ROOM_JOIN_FAILURES.labels("not_found").inc()
            raise
        except RoomFull:
            ROOM_JOIN_FAILURES.labels("full").inc()
            raise
        except RoomNotOpen:
            ROOM_JOIN_FAILURES.labels("started").inc()
            raise

    async def get(self, code_text: str) -> Room:
        """The room as it is now (closed if its expiry passed)."""
        code = _code(code_text)
        room = await self.store.get(code)
        if room is None:
            raise RoomNotFound(f"no room has the code {code}")
        return await self._expired(room)

    async def set_ready(self, player_id: str, code_text: str, ready: bool) -> Room:
        """A member is ready (or not); the last one ready starts an auto-start room."""
        room = await self._update(_code(code_text),
                                  lambda r, now: rules.set_ready(r, player_id, ready, now, self.expiry_ms))
        if room.auto_start and room.ready_to_start:
            return await self._start(room.code, None)
        return room

    async def kick(self, host: str, code_text: str, player_id: str) -> Room:
        return await self._update(_code(code_text),
                                  lambda r, now: rules.kick(r, host, player_id, now, self.expiry_ms))

    async def change(self, host: str, code_text: str, options: Mapping[str, Any] | None,
                     stake: int | None, rounds: int | None, bots: str | None = None) -> Room:
        """The host's new options (replacing the old ones when given), stake, rounds or bots."""
        code = _code(code_text)

        def apply(room: Room, now: int) -> Room:
            old = room.settings
            if options is None:
                new_options = {k: v for k, v in old.options.items() if k != rules.ROUNDS_OPTION}
            else:
                new_options = dict(options)
            if rounds is not None:
                new_rounds = rounds
            elif options is not None and rules.ROUNDS_OPTION in options:
                new_rounds = 0  # the options say it
            else:
                new_rounds = old.rounds
            chosen = rules.settings(old.ruleset, new_options, old.stake if stake is None else stake,
                                    new_rounds, old.bots if bots is None else bots)
            return rules.change(room, host, chosen, now, self.expiry_ms)

        return await self._update(code, apply)

    async def start(self, host: str, code_text: str) -> Room:
        """The host starts the room (every seat taken and ready)."""
        return await self._start(_code(code_text), host)

    async def leave(self, player_id: str, code_text: str) -> Room:
        return await self._update(_code(code_text),
                                  lambda r, now: rules.leave(r, player_id, now, self.expiry_ms))

    async def watch(self, player_id: str, code_text: str, address: str) -> AsyncIterator[Room]:
        """The room now, then every change, until it starts or closes, or the caller is no
        longer in it (kicked: that change is the last one they see)."""
        code = await self._attempt(player_id, code_text, address)
        try:
            room = await self.get(code)
        except RoomNotFound:
            ROOM_JOIN_FAILURES.labels("not_found").inc()
            raise
        if room.member(player_id) is None:
            raise rules.NotInRoom(f"you are not in room {code}: join it first")
        yield room
        while room.live and room.state is not RoomState.STARTED and room.member(player_id):
            timeout = max(0.0, (room.expires_at_ms - self.clock_ms()) / 1000)
            await self.store.wait(code, room.version, timeout)
            changes = await self.store.history(code, room.room_id, room.version)
            if changes is None:  # fell behind what the store keeps: the room as it is now
                current = await self.store.get(code)
                changes = [current] if current is not None and current.room_id == room.room_id else [
                    rules.expire(room, room.expires_at_ms)]
            if not changes and room.expired(self.clock_ms()):
                changes = [await self._expired(room)]
            for change in changes:
                if change.version > room.version:
                    room = change
                    yield room

    # -- the steps ------------------------------------------------------------------------
    async def _attempt(self, player_id: str, code_text: str, address: str) -> str:
        """Count a code lookup against the caller's and their address's (when known) budgets,
        so codes cannot be guessed; the code."""
        allowed = self.settings.joins_per_minute
        by_address = self.settings.joins_per_minute_per_address
        if not (await self.live.allow(f"room-join:p:{player_id}", allowed, 60_000)
                and (not address
                     or await self.live.allow(f"room-join:a:{address}", by_address, 60_000))):
            ROOM_JOIN_FAILURES.labels("rate_limited").inc()
            raise TooManyRequests(f"too many room codes tried: at most {allowed} a minute per "
                                  f"player and {by_address} per address; wait a minute")
        try:
            return _code(code_text)
        except BadRoomSettings:
            ROOM_JOIN_FAILURES.labels("malformed").inc()
            raise

    async def _made_by(self, key: str) -> Room | None:
        code = await self.store.request(key)
        if code is None:
            return None
        return await self.store.get(code)

    async def _expired(self, room: Room) -> Room:
        """`room`, closed (and stored so) if its expiry passed."""
        closed = rules.expire(room, self.clock_ms())
        if closed is not room and await self.store.swap(room, closed):
            log.info("room_expired", code=room.code, room_id=room.room_id)
        return closed

    async def _update(self, code: str, step: Callable[[Room, int], Room]) -> Room:
        for _ in range(MAX_RETRIES):
            room = await self.store.get(code)
            if room is None:
                raise RoomNotFound(f"no room has the code {code}")
            room = await self._expired(room)
            if room.state is RoomState.CLOSED:
                raise RoomNotFound(f"no room has the code {code} (the last one {room.closed_reason})")
            after = step(room, self.clock_ms())
            if await self.store.swap(room, after):
                return after
            await asyncio.sleep(0)
        raise Conflict(f"room {code} is changing too fast: try again")

    async def _start(self, code: str, by: str | None) -> Room:
        """Start the room (`by` its host, or None: by itself): claim the start under a lease and
        make the table; when another process holds a live lease, wait for it to finish (or for
        its lease to run out, and take it over)."""
        await self._refuse_if_members_seated(code)
        while True:
            claimed = False

            def claim(r: Room, now: int) -> Room:
                nonlocal claimed
                after = rules.begin_start(r, by, now, self.expiry_ms, self.lease_ms)
                claimed = after.starting and after.version != r.version
                return after

            # Noted before the claim: if this process dies after it, another finds the start.
            await self.store.track_start(code, self.clock_ms() + self.lease_ms)
            room = await self._update(code, claim)
            if claimed:
                return await self._make_table(room)
            if not room.starting:
                return room  # started already
            room = await self._until_started(room)
            if not room.starting:
                return room

    async def _refuse_if_members_seated(self, code: str) -> None:
        """Before a room ready to start is claimed: a member who sits at another live table
        (they queued, or another room started, after they joined this one) is no longer ready
        and AlreadySeated names them, so nobody is seated at two tables. Once they finish there
        or leave, their ready starts the room. A start taken over is not checked again: its
        members may already sit at its own table."""
        if self.one_table is None:
            return
        room = await self.store.get(code)
        if room is None or not room.ready_to_start or room.starting:
            return
        for member in room.members:
            table_id = await self.one_table.live_table(member.player_id)
            if table_id is not None:
                break
        else:
            return
        seated = member.player_id
        with contextlib.suppress(rules.NotInRoom, RoomNotOpen, RoomNotFound):
            await self._update(code, lambda r, now: rules.set_ready(r, seated, False, now,
                                                                    self.expiry_ms))
        raise AlreadySeated(f"{seated} sits at table {table_id}, whose match is not over: "
                            f"room {code} starts once they finish it or leave it and are "
                            f"ready again")

    async def recover_starts(self, limit: int = 50) -> int:
        """Finish the starts whose process died (their lease ran out); how many were taken over.
        Every matchmaker process runs this now and then (Rooms.run)."""
        taken = 0
        for code in await self.store.stale_starts(self.clock_ms(), limit):
            room = await self.store.get(code)
            if room is None or not room.starting:
                await self.store.untrack_start(code)
                continue
            claimed = False

            def take(r: Room, now: int) -> Room:
                nonlocal claimed
                after = rules.take_over_start(r, now, self.expiry_ms, self.lease_ms)
                claimed = after.version != r.version
                return after

            await self.store.track_start(code, self.clock_ms() + self.lease_ms)
            try:
                room = await self._update(code, take)
                if not claimed:
                    continue
                log.info("room_start_taken_over", code=code, room_id=room.room_id)
                taken += 1
                await self._make_table(room)
            except Exception as exc:  # a member short of chips, a backend away: logged, go on
                log.warning("room_start_not_finished", code=code, error=repr(exc))
        return taken

    async def _until_started(self, room: Room) -> Room:
        """`room` once its start (by another process) finished or its lease ran out."""
        while room.starting and self.clock_ms() < room.start_until_ms:
            await self.store.wait(room.code, room.version,
                                  max(0.0, (room.start_until_ms - self.clock_ms()) / 1000))
            current = await self.store.get(room.code)
            if current is None or current.room_id != room.room_id:
                raise RoomNotFound(f"no room has the code {room.code}")
            room = current
        return room

    async def _make_table(self, room: Room) -> Room:
        """Make the table of a room whose start this process holds (renewing the lease while it
        works): every step is idempotent, keyed by the room's match id, so finishing a start
        another process began makes the same table and buys nobody in twice."""
        code, s = room.code, room.settings
        players = [m.player_id for m in sorted(room.members, key=lambda m: m.seat)]
        # Bots take the seats nobody holds; members keep the seats they joined in.
        by_seat: list[str | None] = [None] * s.seats
        for m in room.members:
            by_seat[m.seat] = m.player_id
        renewing = asyncio.create_task(self._renew(room))
        try:
            table_id = await self.seat(room.match_id, s.ruleset, s.options, s.stake, by_seat, s.bots)
        except CannotSit as exc:
            short = (exc.player_id,)
            await self._update(code, lambda r, now: rules.start_failed(r, short, now, self.expiry_ms))
            await self.store.untrack_start(code)
            raise
        except TRANSIENT:
            # The game or the store away, or this process stopping: the room stays starting,
            # and once the lease runs out a process (this one too) carries on with the same table.
            log.warning("room_start_paused", code=code, room_id=room.room_id)
            raise
        except Exception:  # unexpected: open the room again, the next start goes on at this table
            await self._update(code, lambda r, now: rules.start_failed(r, (), now, self.expiry_ms,
                                                                       new_table=False))
            await self.store.untrack_start(code)
            raise
        finally:
            renewing.cancel()
        log.info("room_started", code=code, room_id=room.room_id, match_id=room.match_id,
                 table_id=table_id)
        # Before the room says started: a member then cannot queue for a public table meanwhile.
        await self.store.seat_players(table_id, players, SEAT_MEMORY_MS)
        started = await self._update(code, lambda r, now: rules.started(r, table_id, now, self.expiry_ms))
        await self.store.untrack_start(code)
        return started

    async def table_of(self, player_id: str) -> str | None:
        """The table of the last room `player_id` started in (they may have left it since)."""
        return await self.store.table_of(player_id)

    def _extend(self, room: Room, _now: int, *, until: int, at: int) -> Room:
        return rules.extend_start(room, until, at, self.lease_ms)

    async def _renew(self, room: Room) -> None:
        """Keep renewing the lease of the start this process holds, every third of it, until
        the start is over (or another process took it over: this one was presumed dead)."""
        until = room.start_until_ms
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            now = self.clock_ms()
            try:
                renewed = await self._update(
                    room.code, functools.partial(self._extend, until=until, at=now))
            except RoomNotFound:
                return
            except Exception as exc:  # the store away: the lease may run out, which is safe
                log.warning("room_start_lease_not_renewed", code=room.code, error=repr(exc))
                continue
            if not renewed.starting or renewed.start_until_ms != now + self.lease_ms:
                return
            until = renewed.start_until_ms


def _code(text: str) -> str:
    code = parse(text)
    if code is None:
        raise BadRoomSettings(f"{text[:40]!r} is not a room code: give its 6 digits or qipai://room/<code>")
    return code
