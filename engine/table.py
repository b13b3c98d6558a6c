"""The table aggregate: who sits where, readiness and auto-play, around one ruleset's game.

Pure like the engine (`decide`/`evolve`, no I/O): anything random a command needs (a hand's seed
and salt) travels inside the command, so re-running a recorded command gives the same events.
The table's stream holds its own `table.*` events and the ruleset's events, in one order.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from engine import rulesets
from engine.core.contract import AnyRuleset, StartHand, Status
from engine.core.errors import RuleViolation
from engine.core.messages import command, event, to_json, type_name

# Consecutive timeouts after which a seat is put on auto-play (托管) until its player acts.
TIMEOUTS_BEFORE_AUTO_PLAY = 2


# --- commands --------------------------------------------------------------------------------


@command("table.Create")
class CreateTable:
    table_id: str
    ruleset: str
    options: dict[str, Any]
    created_by: str
    private: bool = True
    fixed_deal: str = ""  # a scenario deal (JSON) for the first hand: operators reproducing a dispute


@command("table.Sit")
class Sit:
    player_id: str
    seat: int | None = None


@command("table.Leave")
class Leave:
    player_id: str


@command("table.Ready")
class Ready:
    player_id: str
    seed: bytes
    salt: bytes


@command("table.Act")
class Act:
    player_id: str
    action: object  # the ruleset's command


@command("table.Close")
class Close:
    """End the table for good (the server's abandon policy: nobody has acted for too long)."""

    reason: str


@command("table.Timeout")
class Timeout:
    """The deadline of the table at `version` passed: act for whoever owes a decision."""

    version: int
    seed: bytes
    salt: bytes


# --- events ----------------------------------------------------------------------------------


@event("table.Created")
class TableCreated:
    table_id: str
    ruleset: str
    options: dict[str, Any]
    created_by: str
    private: bool
    fixed_deal: str


@event("table.PlayerSeated")
class PlayerSeated:
    seat: int
    player_id: str


@event("table.PlayerLeft")
class PlayerLeft:
    seat: int
    player_id: str


@event("table.PlayerReady")
class PlayerReady:
    seat: int


@event("table.SeatTimedOut")
class SeatTimedOut:
    seat: int
    streak: int


@event("table.Closed")
class TableClosed:
    reason: str


@event("table.AutoPlaySet")
class AutoPlaySet:
    seat: int
    on: bool


# --- state -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Table:
    table_id: str = ""
    ruleset: str = ""
    options: object = None  # the ruleset's frozen options (which ruleset: `ruleset`)
    created_by: str = ""
    private: bool = True
    fixed_deal: str = ""
    seats: tuple[str | None, ...] = ()
    ready: frozenset[int] = frozenset()
    auto: frozenset[int] = frozenset()
    streaks: tuple[int, ...] = ()
    hands_started: int = 0
    game: object = None  # the ruleset's state
    version: int = 0
    closed: str = ""  # why the service ended the table before its match was over ("": open)

    @property
    def exists(self) -> bool:
        return bool(self.ruleset)

    @property
    def rules(self) -> AnyRuleset:
        return _ruleset(self.ruleset)

    @property
    def status(self) -> Status:
        return Status.MATCH_OVER if self.closed else self.rules.status(self.game)

    def seat_of(self, player_id: str) -> int | None:
        for seat, occupant in enumerate(self.seats):
            if occupant == player_id:
                return seat
        return None

    def is_auto(self, seat: int) -> bool:
        """Whether the server plays for `seat` right away (auto-play on, or nobody sits there)."""
        return seat in self.auto or self.seats[seat] is None


_RULESETS: dict[str, AnyRuleset] = {}


def _ruleset(name: str) -> AnyRuleset:
    rs = _RULESETS.get(name)
    if rs is None:
        rs = _RULESETS[name] = rulesets.get(name)
    return rs


# --- decide ----------------------------------------------------------------------------------


def decide(table: Table, cmd: Any) -> list[Any]:
    """The events `cmd` causes at `table` (empty: nothing to do); raises RuleViolation."""
    if isinstance(cmd, CreateTable):
        return _create(table, cmd)
    if not table.exists:
        raise RuleViolation("no_such_table", "there is no such table")
    if isinstance(cmd, Sit):
        return _sit(table, cmd)
    if isinstance(cmd, Leave):
        return _leave(table, cmd)
    if isinstance(cmd, Ready):
        return _ready(table, cmd)
    if isinstance(cmd, Act):
        return _act(table, cmd)
    if isinstance(cmd, Timeout):
        return _timeout(table, cmd)
    if isinstance(cmd, Close):
        return [] if table.status is Status.MATCH_OVER else [TableClosed(cmd.reason)]
    raise TypeError(f"not a table command: {cmd!r}")


def _create(table: Table, cmd: CreateTable) -> list[Any]:
    if table.exists:
        raise RuleViolation("table_exists", "a table with this id already exists")
    try:
        rs = _ruleset(cmd.ruleset)
    except rulesets.UnknownRuleset as exc:
        raise RuleViolation("unknown_ruleset", str(exc)) from None
    try:
        options = rs.options(cmd.options)
    except (ValueError, TypeError) as exc:
        raise RuleViolation("bad_options", str(exc)) from None
    if cmd.fixed_deal:
        try:
            rs.fixed_deal(json.loads(cmd.fixed_deal), b"check")
        except (ValueError, TypeError, KeyError) as exc:
            raise RuleViolation("bad_deal", f"the fixed deal is not valid: {exc}") from None
    created = TableCreated(cmd.table_id, cmd.ruleset, to_json(options), cmd.created_by,
                           cmd.private, cmd.fixed_deal)
    return [created, *rs.create(cmd.table_id, options)]


def _sit(table: Table, cmd: Sit) -> list[Any]:
    if table.closed:
        raise RuleViolation("match_over", "this table has been closed")
    current = table.seat_of(cmd.player_id)
    if current is not None:
        if cmd.seat is None or cmd.seat == current:
            return []
        raise RuleViolation("already_seated", f"you already sit in seat {current}")
    free = [s for s, p in enumerate(table.seats) if p is None]
    if cmd.seat is None:
        if not free:
            raise RuleViolation("table_full", "every seat at this table is taken")
        return [PlayerSeated(free[0], cmd.player_id)]
    if not 0 <= cmd.seat < len(table.seats):
        raise RuleViolation("no_such_seat", f"seats are numbered 0 to {len(table.seats) - 1}")
    if table.seats[cmd.seat] is not None:
        raise RuleViolation("seat_taken", f"seat {cmd.seat} is taken")
    return [PlayerSeated(cmd.seat, cmd.player_id)]


def _leave(table: Table, cmd: Leave) -> list[Any]:
    seat = table.seat_of(cmd.player_id)
    if seat is None:
        return []
    # Mid-hand the seat stays in the game and the server plays it; between hands it simply frees.
    return [PlayerLeft(seat, cmd.player_id)]


def _ready(table: Table, cmd: Ready) -> list[Any]:
    seat = table.seat_of(cmd.player_id)
    if seat is None:
        raise RuleViolation("not_seated", "sit down at the table first")
    status = table.status
    if status is Status.MATCH_OVER:
        raise RuleViolation("match_over", "this table's match is over")
    if status is Status.IN_HAND or seat in table.ready:
        return []
    events: list[Any] = [PlayerReady(seat)]
    ready = table.ready | {seat}
    if all(p is not None for p in table.seats) and len(ready) == len(table.seats):
        events += _start_hand(table, cmd.seed, cmd.salt)
    return events


def _start_hand(table: Table, seed: bytes, salt: bytes) -> list[Any]:
    rs = table.rules
    if table.fixed_deal and table.hands_started == 0:
        start = rs.fixed_deal(json.loads(table.fixed_deal), salt)
    else:
        start = StartHand(seed, salt)
    return list(rs.decide(table.game, start))


def _act(table: Table, cmd: Act) -> list[Any]:
    seat = table.seat_of(cmd.player_id)
    if seat is None:
        raise RuleViolation("not_seated", "only players seated at this table can act")
    rs = table.rules
    if rs.command_seat(cmd.action) != seat:
        raise RuleViolation("not_your_seat", f"you sit in seat {seat} and can act only for it")
    if table.status is not Status.IN_HAND:
        raise RuleViolation("no_hand_in_progress", "no hand is being played at this table")
    events = list(rs.decide(table.game, cmd.action))
    if seat in table.auto:
        events.insert(0, AutoPlaySet(seat, False))
    elif table.streaks[seat]:
        events.insert(0, SeatTimedOut(seat, 0))
    return events


def _timeout(table: Table, cmd: Timeout) -> list[Any]:
    if cmd.version != table.version:
        return []  # the table moved on: that deadline no longer exists
    status = table.status
    if status is Status.WAITING_FOR_HAND:
        # Between hands the next one starts on time; the very first waits for everyone's Ready.
        if table.hands_started == 0 or any(p is None for p in table.seats):
            return []
        return _start_hand(table, cmd.seed, cmd.salt)
    if status is not Status.IN_HAND:
        return []
    rs = table.rules
    deadline = rs.deadline(table.game)
    if deadline is None:
        return []
    events: list[Any] = []
    streaks = list(table.streaks)
    game = table.game
    for seat in list(deadline.defaults):
        if seat is not None and not table.is_auto(seat):
            streaks[seat] += 1
            events.append(SeatTimedOut(seat, streaks[seat]))
            if streaks[seat] >= TIMEOUTS_BEFORE_AUTO_PLAY:
                events.append(AutoPlaySet(seat, True))
        current = rs.deadline(game)
        # An earlier default may have closed this seat's decision (a claim resolved by a win).
        if current is None or seat not in current.defaults:
            continue
        produced = rs.decide(game, current.defaults[seat])
        for ev in produced:
            game = rs.evolve(game, ev)
        events += produced
        if rs.status(game) is not Status.IN_HAND:
            break
    return events


# --- evolve ----------------------------------------------------------------------------------


def evolve(table: Table, ev: Any) -> Table:
    """Apply one event of the table's stream."""
    version = table.version + 1
    if isinstance(ev, TableCreated):
        rs = _ruleset(ev.ruleset)
        options = rs.options(ev.options)
        n = rs.seats(options)
        return Table(ev.table_id, ev.ruleset, options, ev.created_by, ev.private, ev.fixed_deal,
                     seats=(None,) * n, streaks=(0,) * n, game=rs.initial(), version=version)
    if isinstance(ev, PlayerSeated):
        return dataclasses.replace(table, seats=_put(table.seats, ev.seat, ev.player_id),
                                   auto=table.auto - {ev.seat}, version=version)
    if isinstance(ev, PlayerLeft):
        return dataclasses.replace(table, seats=_put(table.seats, ev.seat, None),
                                   ready=table.ready - {ev.seat}, version=version)
    if isinstance(ev, PlayerReady):
        return dataclasses.replace(table, ready=table.ready | {ev.seat}, version=version)
    if isinstance(ev, SeatTimedOut):
        return dataclasses.replace(table, streaks=_put(table.streaks, ev.seat, ev.streak),
                                   version=version)
    if isinstance(ev, TableClosed):
        return dataclasses.replace(table, closed=ev.reason, version=version)
    if isinstance(ev, AutoPlaySet):
        auto = table.auto | {ev.seat} if ev.on else table.auto - {ev.seat}
        return dataclasses.replace(table, auto=auto, streaks=_put(table.streaks, ev.seat, 0),
                                   version=version)
    rs = table.rules
    before = rs.status(table.game)
    game = rs.evolve(table.game, ev)
    if before is not Status.IN_HAND and rs.status(game) is Status.IN_HAND:
        return dataclasses.replace(table, game=game, ready=frozenset(),
                                   hands_started=table.hands_started + 1, version=version)
    return dataclasses.replace(table, game=game, version=version)


def _put(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1:])


def is_table_event(ev: Any) -> bool:
    """Whether `ev` is one of the table's own events (seats, readiness), visible to every seat."""
    return type_name(ev).startswith("table.")
