"""A private room (一键建房邀请熟人): who sits where, who is ready, who hosts, and when it starts.

Pure: every transition takes the room and the time and returns the next room (or raises a
domain error naming the rule), so the stores only need to swap one version for the next
atomically. Every change grows `version` and pushes the expiry back: a room nobody acts in
for `expiry_ms` closes, and its code is free again.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engine import rulesets
from engine.bots import levels
from engine.chips import MAX_CHIPS, split_options
from services.errors import Forbidden, Invalid, NotFound, Refused

ROUNDS_OPTION = "rounds_per_match"
"""The ruleset option a room's `rounds` sets (rulesets without it play their own match length)."""


class RoomState(enum.Enum):
    OPEN = "open"
    STARTED = "started"
    CLOSED = "closed"


class RoomNotFound(NotFound):
    """No live room has this code."""


class RoomFull(Refused):
    """Every seat of the room is taken."""


class RoomNotOpen(Refused):
    """The room has started (or is starting) or closed: its members and settings are fixed."""


class NotReadyToStart(Refused):
    """A room starts only with every seat taken and every member ready."""


class NotInRoom(Forbidden):
    """The caller is not a member of the room."""


class NoSuchMember(NotFound):
    """The member named (to kick) is not in the room."""


class NotHost(Forbidden):
    """Only the host may kick, change the settings or start."""


class BadRoomSettings(Invalid):
    """A ruleset, option, stake or rounds a room cannot have; the message names it."""


@dataclass(frozen=True, slots=True)
class Member:
    player_id: str
    seat: int
    ready: bool = False


@dataclass(frozen=True, slots=True)
class Settings:
    """What the host chose: checked once, when made (`settings`)."""

    ruleset: str
    options: Mapping[str, Any]
    stake: int
    rounds: int
    seats: int
    bots: str = ""
    """The level of the bots that take the seats nobody holds at the start; "": players only."""


@dataclass(frozen=True, slots=True)
class Room:
    code: str
    room_id: str
    """This incarnation of the code (a code is reused after a room closes): the match id."""
    host: str
    settings: Settings
    auto_start: bool
    members: tuple[Member, ...]
    """In the order they joined: the host hand-over goes to the earliest."""
    state: RoomState
    version: int
    expires_at_ms: int
    starting: bool = False
    """The table is being made: members and settings are fixed until it is (or it fails)."""
    table_id: str = ""
    closed_reason: str = ""
    created_ms: int = 0
    start_until_ms: int = 0
    """While starting: the lease of the process making the table. When it runs out (that
    process died) another process takes the start over and finishes it."""
    attempt: int = 0
    """Starts that failed for good (a member short of chips): the next start makes a new table
    (`match_id`), with the settings the room has then."""

    @property
    def match_id(self) -> str:
        """What its table is keyed by: one table per start attempt, the same for every process
        that works on that attempt."""
        return self.room_id if not self.attempt else f"{self.room_id}.{self.attempt}"

    def member(self, player_id: str) -> Member | None:
        return next((m for m in self.members if m.player_id == player_id), None)

    @property
    def full(self) -> bool:
        return len(self.members) >= self.settings.seats

    @property
    def ready_to_start(self) -> bool:
        """Every seat taken (or bots to take the free ones) and every member ready."""
        return (self.state is RoomState.OPEN and (self.full or bool(self.settings.bots))
                and all(m.ready for m in self.members))

    def expired(self, now_ms: int) -> bool:
        return self.state is not RoomState.CLOSED and now_ms >= self.expires_at_ms

    @property
    def live(self) -> bool:
        """Whether the room still holds its code."""
        return self.state is not RoomState.CLOSED


def settings(ruleset: str, options: Mapping[str, Any], stake: int, rounds: int,
             bots: str = "") -> Settings:
    """The settings, checked as CreateTable checks a new table's: BadRoomSettings naming the
    option (and its range) that is wrong. `stake` is the chips each seat buys in with; 0 makes
    a free room (练习场): nobody buys in and no hand moves chips. `bots`, a level, fills the
    seats nobody holds at the start with bots of that level."""
    if bots and bots not in levels.LEVELS:
        raise BadRoomSettings(f"bots is '' (players only) or a level: {', '.join(levels.LEVELS)}; "
                              f"not {bots[:32]!r}")
    try:
        rs = rulesets.get(ruleset)
    except rulesets.UnknownRuleset as exc:
        raise BadRoomSettings(str(exc)) from None
    if isinstance(stake, bool) or not 0 <= stake <= MAX_CHIPS:
        raise BadRoomSettings(f"stake must be a whole number of chips from 0 (a free room: no chips "
                              f"move) to {MAX_CHIPS} (what each seat buys in with), not {stake}")
    overrides = dict(options)
    if stake == 0 and {"stake", "buy_in"} & overrides.keys():
        raise BadRoomSettings("a free room (stake 0) moves no chips, so it takes no option 'stake' "
                              "or 'buy_in': leave them out, or give the room a stake")
    if stake and overrides.get("buy_in", stake) != stake:
        raise BadRoomSettings(f"the room's stake ({stake}) is what each seat buys in with: leave "
                              f"out the option 'buy_in'")
    if rounds:
        if ROUNDS_OPTION in overrides and overrides[ROUNDS_OPTION] != rounds:
            raise BadRoomSettings(f"rounds {rounds} and option {ROUNDS_OPTION!r} "
                                  f"{overrides[ROUNDS_OPTION]} disagree: give one")
        overrides[ROUNDS_OPTION] = rounds
    try:
        _, ruleset_options = split_options(overrides)
        if rounds and not hasattr(rs.options({}), ROUNDS_OPTION):
            raise ValueError(f"rounds: a {ruleset} match has no set number of rounds; leave it 0")
        checked = rs.new_options(ruleset_options)  # as a table created now
    except (ValueError, TypeError) as exc:
        raise BadRoomSettings(f"options: {exc}") from None
    return Settings(ruleset, overrides, stake, int(getattr(checked, ROUNDS_OPTION, rounds)),
                    rs.seats(checked), bots)


def new_room(code: str, room_id: str, host: str, chosen: Settings, auto_start: bool,
             now_ms: int, expiry_ms: int) -> Room:
    """A room with its host in the first seat, not ready."""
    return Room(code, room_id, host, chosen, auto_start, (Member(host, 0),), RoomState.OPEN,
                version=1, expires_at_ms=now_ms + expiry_ms, created_ms=now_ms)


def _changed(room: Room, now_ms: int, expiry_ms: int, **changes: Any) -> Room:
    return replace(room, version=room.version + 1, expires_at_ms=now_ms + expiry_ms, **changes)


def _open(room: Room) -> None:
    if room.state is RoomState.CLOSED:
        raise RoomNotFound(f"room {room.code} is closed ({room.closed_reason})")
    if room.state is RoomState.STARTED or room.starting:
        raise RoomNotOpen(f"room {room.code} has started: its seats and settings are fixed")


def _member(room: Room, player_id: str) -> Member:
    member = room.member(player_id)
    if member is None:
        raise NotInRoom(f"you are not in room {room.code}")
    return member


def _host(room: Room, player_id: str, doing: str) -> None:
    _member(room, player_id)
    if room.host != player_id:
        raise NotHost(f"only the host of room {room.code} may {doing}")


def join(room: Room, player_id: str, now_ms: int, expiry_ms: int) -> Room:
    """Take the lowest free seat; a member joining again keeps their seat (the same room)."""
    if room.state is not RoomState.CLOSED and room.member(player_id) is not None:
        return room
    _open(room)
    if room.full:
        raise RoomFull(f"room {room.code} is full ({room.settings.seats} seats)")
    taken = {m.seat for m in room.members}
    seat = min(s for s in range(room.settings.seats) if s not in taken)
    return _changed(room, now_ms, expiry_ms, members=(*room.members, Member(player_id, seat)))


def set_ready(room: Room, player_id: str, ready: bool, now_ms: int, expiry_ms: int) -> Room:
    """A member says they are (or are no longer) ready."""
    member = _member(room, player_id)
    _open(room)
    if member.ready == ready:
        return room
    return _changed(room, now_ms, expiry_ms, members=tuple(
        replace(m, ready=ready) if m.player_id == player_id else m for m in room.members))


def _without(room: Room, player_id: str, now_ms: int, expiry_ms: int) -> Room:
    members = tuple(m for m in room.members if m.player_id != player_id)
    if not members:
        return _changed(room, now_ms, expiry_ms, members=members, state=RoomState.CLOSED,
                        closed_reason="empty")
    host = room.host if room.host != player_id else members[0].player_id
    return _changed(room, now_ms, expiry_ms, members=members, host=host)


def leave(room: Room, player_id: str, now_ms: int, expiry_ms: int) -> Room:
    """A member leaves before the start; a leaving host hands the room to the member who joined
    earliest; the last one out closes it."""
    _member(room, player_id)
    _open(room)
    return _without(room, player_id, now_ms, expiry_ms)


def kick(room: Room, host: str, player_id: str, now_ms: int, expiry_ms: int) -> Room:
    """The host removes a member before the start."""
    _host(room, host, "kick")
    _open(room)
    if player_id == host:
        raise BadRoomSettings("the host cannot kick themselves: leave the room instead")
    if room.member(player_id) is None:
        raise NoSuchMember(f"{player_id} is not in room {room.code}: nobody to kick")
    return _without(room, player_id, now_ms, expiry_ms)


def change(room: Room, host: str, chosen: Settings, now_ms: int, expiry_ms: int) -> Room:
    """The host changes the settings before the start; everyone's ready is reset, so nobody
    plays by rules they did not see."""
    _host(room, host, "change the settings")
    _open(room)
    if len(room.members) > chosen.seats:
        raise BadRoomSettings(f"{len(room.members)} members would not fit {chosen.seats} seats")
    return _changed(room, now_ms, expiry_ms, settings=chosen,
                    members=tuple(replace(m, ready=False) for m in room.members))


def begin_start(room: Room, by: str | None, now_ms: int, expiry_ms: int, lease_ms: int) -> Room:
    """The room starts being made into a table, under a lease until `now_ms + lease_ms`: by its
    host, or by itself (`by` None) when auto_start is on. A room already started, or starting
    under a live lease, is returned as it is; a start whose lease ran out (its process died) is
    taken over, so it carries on with the same match (the same table, no second buy-in)."""
    if by is not None:
        _host(room, by, "start")
    if room.state is RoomState.STARTED:
        return room
    if room.starting:
        if now_ms < room.start_until_ms:
            return room
        return _changed(room, now_ms, expiry_ms, start_until_ms=now_ms + lease_ms)
    _open(room)
    if not room.ready_to_start:
        waiting = 0 if room.settings.bots else room.settings.seats - len(room.members)
        unready = [m.player_id for m in room.members if not m.ready]
        why = (f"{waiting} seat(s) free" if waiting else "") + (
            f"{'; ' if waiting else ''}not ready: {', '.join(unready)}" if unready else "")
        raise NotReadyToStart(f"room {room.code} cannot start yet: {why}")
    return _changed(room, now_ms, expiry_ms, starting=True, start_until_ms=now_ms + lease_ms)


def take_over_start(room: Room, now_ms: int, expiry_ms: int, lease_ms: int) -> Room:
    """A start whose lease ran out, now leased to the caller; any other room as it is."""
    if not room.starting or now_ms < room.start_until_ms:
        return room
    return begin_start(room, None, now_ms, expiry_ms, lease_ms)


def extend_start(room: Room, until_ms: int, now_ms: int, lease_ms: int) -> Room:
    """The lease held until `until_ms`, renewed (the process making the table is alive); a room
    no longer starting under that lease as it is."""
    if not room.starting or room.start_until_ms != until_ms:
        return room
    return replace(room, version=room.version + 1, start_until_ms=now_ms + lease_ms)


def started(room: Room, table_id: str, now_ms: int, expiry_ms: int) -> Room:
    """The table is made and every seat bought in."""
    if room.state is RoomState.STARTED:
        return room
    return _changed(room, now_ms, expiry_ms, state=RoomState.STARTED, starting=False,
                    start_until_ms=0, table_id=table_id)


def start_failed(room: Room, unready: tuple[str, ...], now_ms: int, expiry_ms: int,
                 new_table: bool = True) -> Room:
    """Making the table failed for good: the room is open again and the members it failed for
    (short of chips) are no longer ready. With `new_table` (its seated members stood up again)
    the next start makes a new table, with the settings the room has then; without, it goes on
    with this one (members may still sit there)."""
    if not room.starting:
        return room
    return _changed(room, now_ms, expiry_ms, starting=False, start_until_ms=0,
                    attempt=room.attempt + new_table, members=tuple(
        replace(m, ready=False) if m.player_id in unready else m for m in room.members))


def expire(room: Room, now_ms: int) -> Room:
    """The room closes when nobody acted in it until its expiry; the code is free again."""
    if not room.expired(now_ms):
        return room
    return replace(room, version=room.version + 1, state=RoomState.CLOSED, closed_reason="expired",
                   starting=False)


# -- storage form: JSON, the same in every store --------------------------------------------------


def dumps(room: Room) -> str:
    """The room as JSON (what the stores keep)."""
    s = room.settings
    return json.dumps({
        "code": room.code, "room_id": room.room_id, "host": room.host,
        "settings": {"ruleset": s.ruleset, "options": dict(s.options), "stake": s.stake,
                     "rounds": s.rounds, "seats": s.seats, "bots": s.bots},
        "auto_start": room.auto_start,
        "members": [[m.player_id, m.seat, m.ready] for m in room.members],
        "state": room.state.value, "version": room.version, "expires_at_ms": room.expires_at_ms,
        "starting": room.starting, "table_id": room.table_id, "closed_reason": room.closed_reason,
        "created_ms": room.created_ms, "start_until_ms": room.start_until_ms,
        "attempt": room.attempt
    }, separators=(",", ":"), sort_keys=True)


def loads(text: str | bytes) -> Room:
    """A room from `dumps`."""
    d = json.loads(text)
    s = d["settings"]
    return Room(d["code"], d["room_id"], d["host"],
                Settings(s["ruleset"], s["options"], s["stake"], s["rounds"], s["seats"],
                         s.get("bots", "")),
                d["auto_start"], tuple(Member(p, seat, ready) for p, seat, ready in d["members"]),
                RoomState(d["state"]), d["version"], d["expires_at_ms"], d["starting"],
                d["table_id"], d["closed_reason"], d["created_ms"], d.get("start_until_ms", 0),
                d.get("attempt", 0))
