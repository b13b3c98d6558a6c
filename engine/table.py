"""The table aggregate: who sits where, readiness, auto-play and each seat's chips
(engine/chips.py), around one ruleset's game.

Pure like the engine (`decide`/`evolve`, no I/O): anything random a command needs (a hand's seed
and salt) travels inside the command, so re-running a recorded command gives the same events.
The table's stream holds its own `table.*` events and the ruleset's events, in one order.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from engine import numbering, rulesets
from engine.bots import levels
from engine.chips import (
    Chips,
    HandSettled,
    StackBoughtIn,
    StackCashedOut,
    Stakes,
    settle_hand,
    split_options,
)
from engine.core import fairness
from engine.core import options as core_options
from engine.core.contract import AnyRuleset, StartHand, Status
from engine.core.errors import RuleViolation
from engine.core.frozen import replace
from engine.core.messages import command, event, to_json, type_name
from engine.core.steps import step

# Consecutive timeouts after which a seat is put on auto-play (托管) until its player acts or
# takes the seat back (`TakeBack`).
TIMEOUTS_BEFORE_AUTO_PLAY = 2


# The revision of the rules a table is created under today: 1 since claim windows hide who can
# claim (issue 11), 2 since a claimed tile leaves the discarder's river (jj). A CreateTable
# recorded before carries its own (0 when none), and re-deciding it (Verify) must give the
# table.Created it gave then: every option revised later keeps its old meaning.
# 3: jj reads the pair beside a 组合龙, counts 血战 winners' hands as seen and rounds each payment
# (issue 27); no chips stay on a table that is over: a kept seat's winnings are its player's,
# every way a table ends cashes every stack out, and the match's end is recorded (`table.Closed`);
# a claim window lasts at least `claim_window_min_ms` and a missed one is told to that seat alone
# (`claim_timeouts`, issue 24).
RULES = 3
# From this revision on, table.Created records the revision (`TableCreated.rules`): the table's
# own rules (chips, seats) follow it, as a ruleset's revised options follow theirs.
RECORDED_SINCE = 3
# The revision since which no chips stay on a table that is over (see RULES).
CHIPS_NEVER_STRAND = 3
# The reason `table.Closed` records when the match is over.
MATCH_OVER = "match_over"

# --- commands --------------------------------------------------------------------------------


@command("table.Create")
class CreateTable:
    table_id: str
    ruleset: str
    options: dict[str, Any]
    created_by: str
    private: bool = True
    fixed_deal: str = ""  # a scenario deal (JSON) for the first hand: operators reproducing a dispute
    rules: int = 0  # RULES for a table created now: revised options take their current value


@command("table.Sit")
class Sit:
    """Sit down; with `bot` a server-driven bot (ids start with `bot-`) takes the seat: on
    auto-play and ready from the start, with no stack, so it never moves chips."""

    player_id: str
    seat: int | None = None
    bot: bool = False


@command("table.Leave")
class Leave:
    player_id: str


@command("table.Ready")
class Ready:
    """Ready for the next hand; with `nonce_commitment` the seat adds its entropy to the deal, and
    a second Ready with `nonce` reveals it (docs/fairness.md). `fair` is False only in commands
    recorded before the fair-deal protocol: they deal from `seed` directly, as they did then."""

    player_id: str
    seed: bytes
    salt: bytes
    nonce_commitment: str = ""
    nonce: bytes = b""
    fair: bool = False


@command("table.Act")
class Act:
    player_id: str
    action: object  # the ruleset's command


@command("table.TakeBack")
class TakeBack:
    """The seat's player takes it back from auto-play (托管): the server stops playing for it.
    The service also sends it for a seat on auto-play whose action was refused (a stale
    `expected_version`, a move the server already made for it): the player is evidently there."""

    player_id: str


@command("table.Close")
class Close:
    """End the table for good (the server's abandon policy: nobody has acted for too long; an
    operator). Since rules revision 3 every stack at the table goes back to its player first."""

    reason: str


@command("table.Timeout")
class Timeout:
    """The deadline of the table at `version` passed: act for whoever owes a decision."""

    version: int
    seed: bytes
    salt: bytes
    fair: bool = False  # as in Ready


# --- events ----------------------------------------------------------------------------------


@event("table.Created")
class TableCreated:
    table_id: str
    ruleset: str
    options: dict[str, Any]
    created_by: str
    private: bool
    fixed_deal: str
    stakes: Stakes | None = None  # None: a table from before chips (the defaults)
    rules: int = 0  # the rules revision it was created under, from RECORDED_SINCE on (0: before)


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


@event("table.ClaimTimedOut")
class ClaimTimedOut:
    """`seat` let a claim window it was asked in time out (`streak` in a row; 0: it acted
    again): told to that seat alone (`redact`), since who is asked is hidden."""

    seat: int
    streak: int


@event("table.Closed")
class TableClosed:
    reason: str


@event("table.AutoPlaySet")
class AutoPlaySet:
    seat: int
    on: bool


@event("table.ClaimAutoPlaySet")
class ClaimAutoPlaySet:
    """The server starts (or stops) answering `seat`'s claim windows, after missed ones: told to
    that seat alone, like the timeouts that caused it."""

    seat: int
    on: bool


# --- fair deals (docs/fairness.md) ---------------------------------------------------------


@event("table.NonceCommitted")
class NonceCommitted:
    """A seat's commitment to its nonce for the next hand, sent with its Ready."""

    seat: int
    commitment: str


@event("table.DealCommitted")
class DealCommitted:
    """The next hand is due: the server is bound to `server_commitment` = sha256(seed || salt) and
    waits for the nonces behind `commitments` (per seat, "": none). `seed` and `salt` stay on
    the server until the hand ends: every seat gets this event with them emptied (`redact`)."""

    hand: int
    server_commitment: str
    commitments: tuple[str, ...]
    seed: bytes | None
    salt: bytes | None


@event("table.NonceRevealed")
class NonceRevealed:
    seat: int
    nonce: bytes


@event("table.NonceWithheld")
class NonceWithheld:
    """The seat did not reveal its nonce in time: the server's nonce for the seat stands in."""

    seat: int


@event("table.DealRevealed")
class DealRevealed:
    """The hand ended: everything a seat needs to recompute its deck. `server_nonce_seats` are
    the seats whose nonce the server derived (no commitment, or withheld)."""

    hand: int
    seed: bytes
    salt: bytes
    nonces: tuple[bytes, ...]
    server_nonce_seats: tuple[int, ...]


@event("table.DealAbandoned")
class DealAbandoned:
    """A player left while the deal waited for nonces: the hand waits for a full table again,
    and a new commitment. The abandoned seed is never used."""

    hand: int


@dataclasses.dataclass(frozen=True, slots=True)
class AwaitingReveals:
    """Between DealCommitted and the deal: the committed seats' nonces as they come in."""

    hand: int
    seed: bytes
    salt: bytes
    commitments: tuple[str, ...]
    nonces: tuple[bytes | None, ...]
    withheld: frozenset[int] = frozenset()

    def missing(self) -> list[int]:
        return [s for s, c in enumerate(self.commitments)
                if c and self.nonces[s] is None and s not in self.withheld]

    def final_nonces(self) -> tuple[tuple[bytes, ...], tuple[int, ...]]:
        """Each seat's nonce for the deck seed, and the seats whose nonce the server derived."""
        derived = tuple(s for s, n in enumerate(self.nonces) if n is None)
        nonces = tuple(n if n is not None else fairness.server_nonce(self.seed, s)
                       for s, n in enumerate(self.nonces))
        return nonces, derived


def redact(ev: Any, seat: int | None) -> Any:
    """A table event as `seat` may see it (None: nothing): the server's seed and salt only once
    the hand ended, never the scenario deal a table was created with (it holds every seat's
    hand), and a missed claim window and what follows from it only for the seat that missed it
    (who is asked in a window is hidden: docs/hidden-information.md)."""
    if isinstance(ev, ClaimTimedOut | ClaimAutoPlaySet):
        return ev if seat == ev.seat else None
    if isinstance(ev, DealCommitted):
        return replace(ev, seed=None, salt=None)
    if isinstance(ev, TableCreated) and ev.fixed_deal:
        return replace(ev, fixed_deal="")
    return ev


def _hand_due(table: Table, seed: bytes, salt: bytes, fair: bool,
              commitments: tuple[str, ...]) -> list[Any]:
    """The next hand is due: commit to the server's seed, then deal once the nonces are in."""
    if not fair or (table.fixed_deal and table.hands_started == 0):
        return _start_hand(table, seed, salt)
    committed = DealCommitted(table.hands_started + 1, fairness.server_commitment(seed, salt),
                              commitments, seed, salt)
    pending = _awaiting(committed)
    return [committed, *(_deal(table, pending) if not pending.missing() else [])]


def _awaiting(ev: DealCommitted) -> AwaitingReveals:
    assert ev.seed is not None and ev.salt is not None, "the table's stream holds the secrets"
    return AwaitingReveals(ev.hand, ev.seed, ev.salt, ev.commitments, (None,) * len(ev.commitments))


def _deal(table: Table, pending: AwaitingReveals) -> list[Any]:
    nonces, _ = pending.final_nonces()
    return _start_hand(table, fairness.deck_seed(pending.seed, nonces), pending.salt)


def _abandoned(table: Table) -> list[Any]:
    return [DealAbandoned(table.deal.hand)] if isinstance(table.deal, AwaitingReveals) else []


def _reveal(table: Table, seat: int, nonce: bytes) -> list[Any]:
    pending = table.deal
    if not isinstance(pending, AwaitingReveals) or seat in pending.withheld:
        return []  # too late: the deal went on with the server's nonce for this seat
    if not pending.commitments[seat] or pending.nonces[seat] is not None:
        return []
    if fairness.nonce_commitment(nonce) != pending.commitments[seat]:
        raise RuleViolation("wrong_nonce", "this nonce does not match the commitment your seat "
                                           "sent with Ready (sha256 of the nonce)")
    pending = replace(pending, nonces=_put(pending.nonces, seat, nonce))
    return [NonceRevealed(seat, nonce), *(_deal(table, pending) if not pending.missing() else [])]


def _withhold(table: Table, pending: AwaitingReveals) -> list[Any]:
    """The reveal deadline passed: server nonces for the missing seats, and deal."""
    missing = pending.missing()
    pending = replace(pending, withheld=pending.withheld | set(missing))
    return [*(NonceWithheld(s) for s in missing), *_deal(table, pending)]


def _revealed_at_hand_end(table: Table, events: list[Any]) -> list[Any]:
    """DealRevealed after the events that end a fairly dealt hand (whatever command ended it)."""
    reveal = table.deal
    if not isinstance(reveal, DealRevealed) or not events or table.status is not Status.IN_HAND:
        return []
    rs, game = table.rules, table.game
    for ev in events:
        if not is_table_event(ev):
            game = step(rs.evolve, game, ev)
    if rs.status(game) is Status.IN_HAND:
        return []
    return [reveal]


def _evolve_fair(table: Table, ev: Any) -> Table:
    if isinstance(ev, NonceCommitted):
        return replace(table, commitments=_put(table.commitments, ev.seat, ev.commitment))
    if isinstance(ev, DealCommitted):
        return replace(table, deal=_awaiting(ev), commitments=("",) * len(table.seats))
    deal = table.deal
    if isinstance(ev, NonceRevealed) and isinstance(deal, AwaitingReveals):
        return replace(table, deal=replace(
            deal, nonces=_put(deal.nonces, ev.seat, ev.nonce)))
    if isinstance(ev, NonceWithheld) and isinstance(deal, AwaitingReveals):
        return replace(table, deal=replace(deal, withheld=deal.withheld | {ev.seat}))
    if isinstance(ev, DealRevealed | DealAbandoned):
        return replace(table, deal=None)
    return table


_FAIR_EVENTS = (NonceCommitted, DealCommitted, NonceRevealed, NonceWithheld, DealRevealed, DealAbandoned)


def _dealt(deal: AwaitingReveals | DealRevealed | None) -> AwaitingReveals | DealRevealed | None:
    """The deal once the hand started: its awaited nonces become final."""
    if not isinstance(deal, AwaitingReveals):
        return deal
    nonces, derived = deal.final_nonces()
    return DealRevealed(deal.hand, deal.seed, deal.salt, nonces, derived)


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
    commitments: tuple[str, ...] = ()  # each seat's nonce commitment for the next hand ("": none)
    # The fair deal under way (docs/fairness.md): its nonces coming in, then, once dealt, the
    # reveal the hand's end will publish.
    deal: AwaitingReveals | DealRevealed | None = None
    ready: frozenset[int] = frozenset()
    auto: frozenset[int] = frozenset()
    streaks: tuple[int, ...] = ()
    # Missed claim windows, apart from the public `auto`/`streaks` and known to each seat alone
    # (ClaimTimedOut/ClaimAutoPlaySet): the seats whose windows the server answers, and
    # each seat's claim windows missed in a row.
    claim_auto: frozenset[int] = frozenset()
    claim_streaks: tuple[int, ...] = ()
    hands_started: int = 0
    game: object = None  # the ruleset's state
    version: int = 0
    chips: Chips = Chips()
    closed: str = ""  # why the service ended the table before its match was over ("": open)
    # Everyone who has sat at the table (its members: who may watch a private table).
    members: frozenset[str] = frozenset()
    # Per seat, the player a seat is kept for after they left it during the match ("": none):
    # nobody else may take it (they would read its concealed hand), the server plays it.
    held: tuple[str, ...] = ()
    # Per observer (each seat, then a spectator), how many events it may see: its own version
    # numbers (engine/numbering.py), which never count another seat's hidden events.
    seen: tuple[int, ...] = ()
    revision: int = 0  # the rules revision recorded at creation (TableCreated.rules)

    @property
    def exists(self) -> bool:
        return bool(self.ruleset)

    @property
    def rules(self) -> AnyRuleset:
        return _RULESETS.get(self.ruleset) or _ruleset(self.ruleset)

    @property
    def status(self) -> Status:
        if self.closed:
            return Status.MATCH_OVER
        return (_RULESETS.get(self.ruleset) or _ruleset(self.ruleset)).status(self.game)

    def seat_of(self, player_id: str) -> int | None:
        for seat, occupant in enumerate(self.seats):
            if occupant == player_id:
                return seat
        return None

    def owner(self, seat: int) -> str:
        """Who `seat` belongs to ("": nobody): its player, or the one who left it during the
        hand under way or during the match (it is kept for them)."""
        player = self.seats[seat]
        if player is not None:
            return player
        return dict(self.chips.leaving).get(seat) or (self.held[seat] if self.held else "")

    def seen_by(self, seat: int | None) -> int:
        """The table's version in `seat`'s numbering (None: a spectator's)."""
        return self.seen[len(self.seats) if seat is None else seat]  # numbering.observer: asked per observer per batch

    def is_member(self, player_id: str) -> bool:
        """Whether `player_id` created the table or has sat at it."""
        return player_id == self.created_by or player_id in self.members

    def may_sit(self, seat: int, player_id: str) -> bool:
        """Whether `seat` is free for `player_id`: empty, and not kept for someone else."""
        return self.seats[seat] is None and self.held[seat] in ("", player_id)

    def short_of_players(self) -> bool:
        """Whether the next hand must wait for players: a free seat nobody keeps, or nobody
        seated at all (kept seats are played by the server)."""
        held = self.held or ("",) * len(self.seats)
        return (not any(p is not None for p in self.seats)
                or any(p is None and not kept for p, kept in zip(self.seats, held, strict=True)))

    def is_auto(self, seat: int) -> bool:
        """Whether the server plays for `seat` right away (auto-play on, or nobody sits there)."""
        return seat in self.auto or self.seats[seat] is None

    def answers_claims_for(self, seat: int) -> bool:
        """Whether the server answers `seat`'s claim windows right away (`is_auto`, or auto-play
        after missed claim windows)."""
        return seat in self.claim_auto or self.is_auto(seat)


_RULESETS: dict[str, AnyRuleset] = {}


def _ruleset(name: str) -> AnyRuleset:
    rs = _RULESETS.get(name)
    if rs is None:
        rs = _RULESETS[name] = rulesets.get(name)
    return rs


# --- decide ----------------------------------------------------------------------------------


def decide(table: Table, cmd: Any) -> list[Any]:
    """The events `cmd` causes at `table` (empty: nothing to do); raises RuleViolation."""
    events = _decide(table, cmd)
    return events + _revealed_at_hand_end(table, events)


def _decide(table: Table, cmd: Any) -> list[Any]:
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
    if isinstance(cmd, TakeBack):
        return _take_back(table, cmd)
    if isinstance(cmd, Close):
        return _close(table, cmd)
    raise TypeError(f"not a table command: {cmd!r}")


def _create(table: Table, cmd: CreateTable) -> list[Any]:
    if table.exists:
        raise RuleViolation("table_exists", "a table with this id already exists")
    try:
        rs = _ruleset(cmd.ruleset)
    except rulesets.UnknownRuleset as exc:
        raise RuleViolation("unknown_ruleset", str(exc)) from None
    try:
        stakes, ruleset_options = split_options(cmd.options)
        options = rs.options(core_options.for_new_table(type(rs.options()), ruleset_options, cmd.rules))
    except (ValueError, TypeError) as exc:
        raise RuleViolation("bad_options", str(exc)) from None
    if cmd.fixed_deal:
        try:
            rs.fixed_deal(json.loads(cmd.fixed_deal), b"check")
        except (ValueError, TypeError, KeyError) as exc:
            raise RuleViolation("bad_deal", f"the fixed deal is not valid: {exc}") from None
    recorded = to_json(options)
    if cmd.rules < RULES:  # as recorded then, so that Verify re-decides it alike
        recorded = core_options.as_recorded_before(type(options), recorded, cmd.rules)
    created = TableCreated(cmd.table_id, cmd.ruleset, recorded, cmd.created_by,
                           cmd.private, cmd.fixed_deal, stakes,
                           cmd.rules if cmd.rules >= RECORDED_SINCE else 0)
    return [created, *rs.create(cmd.table_id, options)]


def _sit(table: Table, cmd: Sit) -> list[Any]:
    if table.closed:
        raise RuleViolation("match_over", "this table has been closed")
    current = table.seat_of(cmd.player_id)
    if current is not None:
        if cmd.seat is None or cmd.seat == current:
            return []
        raise RuleViolation("already_seated", f"you already sit in seat {current}")
    # A seat whose player left mid-hand keeps its stack until the hand ends; one left during the
    # match is kept for that player until the match ends.
    leaving = {seat for seat, _ in table.chips.leaving}
    free = [s for s in range(len(table.seats)) if table.may_sit(s, cmd.player_id) and s not in leaving]
    own = [s for s in free if table.held[s] == cmd.player_id]
    if own and cmd.seat in (None, own[0]):
        seat = own[0]
    elif own or cmd.player_id in table.held:
        mine = table.held.index(cmd.player_id)
        raise RuleViolation("seat_held", f"your seat {mine} is kept for you until the match ends: "
                                         f"you may sit only there" + (
                                             ", once the hand you left ends" if not own else ""))
    elif cmd.seat is None:
        if not free:
            raise RuleViolation("table_full", "every seat at this table is taken")
        seat = free[0]
    elif not 0 <= cmd.seat < len(table.seats):
        raise RuleViolation("no_such_seat", f"seats are numbered 0 to {len(table.seats) - 1}")
    elif table.held[cmd.seat] and table.seats[cmd.seat] is None:
        raise RuleViolation("seat_held", f"seat {cmd.seat} is kept for the player who left it "
                                         f"until the match ends")
    elif cmd.seat not in free:
        raise RuleViolation("seat_taken", f"seat {cmd.seat} is taken")
    else:
        seat = cmd.seat
    if cmd.bot:
        return _seat_bot(table, seat, cmd.player_id)
    # Back at a kept seat: what it won while they were away is theirs, paid before the buy-in
    # that starts their new stack.
    kept = [table.chips.cash_out(seat, cmd.player_id, kept=True)] if (
        table.revision >= CHIPS_NEVER_STRAND and table.held[seat] == cmd.player_id
        and table.chips.stacks[seat] > 0) else []
    return [*kept, PlayerSeated(seat, cmd.player_id), table.chips.buy_in(seat, cmd.player_id)]


BOT_PREFIX = "bot-"


def _seat_bot(table: Table, seat: int, player_id: str) -> list[Any]:
    """A bot's seat: no buy-in (a zero stack caps every payment to and from it at nothing under
    积分最小化, so bots never touch the ledger), auto-play on so the server plays it, and ready."""
    if not player_id.startswith(BOT_PREFIX):
        raise RuleViolation("not_a_bot", f"a bot's id starts with {BOT_PREFIX!r}")
    if not table.chips.stakes.score_minimisation:
        raise RuleViolation("bots_need_score_minimisation",
                            "bots sit only at tables with score_minimisation: their stack is empty")
    if table.status is not Status.WAITING_FOR_HAND or table.deal is not None:
        raise RuleViolation("hand_in_progress", "a bot sits down only between hands")
    return [PlayerSeated(seat, player_id), AutoPlaySet(seat, True), PlayerReady(seat)]


def _leave(table: Table, cmd: Leave) -> list[Any]:
    seat = table.seat_of(cmd.player_id)
    if seat is None:
        raise RuleViolation("not_seated", "you are not seated at this table: there is nothing to leave")
    # Mid-hand the seat stays in the game and the server plays it; its stack goes back when the
    # hand ends. Between hands the stack goes back at once and the seat frees.
    if table.status is Status.IN_HAND:
        return [PlayerLeft(seat, cmd.player_id)]
    return [table.chips.cash_out(seat, cmd.player_id), PlayerLeft(seat, cmd.player_id),
            *_abandoned(table)]


def _close(table: Table, cmd: Close) -> list[Any]:
    if table.status is Status.MATCH_OVER:
        return []
    if table.revision < CHIPS_NEVER_STRAND:
        return [TableClosed(cmd.reason)]  # as recorded then: the stacks stayed on the table
    # Cash-outs first: the ledger, told of the close, finds every stack of the table gone.
    return [*_cash_out_everyone(table, table.chips), TableClosed(cmd.reason)]


def _cash_out_everyone(table: Table, chips: Chips) -> list[Any]:
    """Every stack left at the table (`chips`) back to the player its seat belongs to (seated,
    left during the hand under way, or kept for them)."""
    out = []
    leaving = dict(chips.leaving)
    for seat, stack in enumerate(chips.stacks):
        player = table.owner(seat)
        if stack > 0 and player:
            out.append(chips.cash_out(seat, player, kept=table.seats[seat] is None and seat not in leaving))
    return out


def _ready(table: Table, cmd: Ready) -> list[Any]:
    seat = table.seat_of(cmd.player_id)
    if seat is None:
        raise RuleViolation("not_seated", "sit down at the table first")
    if cmd.nonce:
        return _reveal(table, seat, cmd.nonce)
    if cmd.nonce_commitment and not fairness.is_commitment(cmd.nonce_commitment):
        raise RuleViolation("bad_nonce_commitment",
                            "a nonce commitment is the sha256 of the nonce as 64 lowercase hex digits")
    status = table.status
    if status is Status.MATCH_OVER:
        raise RuleViolation("match_over", "this table's match is over")
    if status is Status.IN_HAND or seat in table.ready or table.deal is not None:
        return []
    events: list[Any] = [PlayerReady(seat)]
    commitments = table.commitments
    if cmd.nonce_commitment:
        events.append(NonceCommitted(seat, cmd.nonce_commitment))
        commitments = _put(commitments, seat, cmd.nonce_commitment)
    if not table.short_of_players() and table.ready | {seat} >= _seated(table):
        events += _hand_due(table, cmd.seed, cmd.salt, cmd.fair, commitments)
    return events


def _seated(table: Table) -> frozenset[int]:
    return frozenset(s for s, p in enumerate(table.seats) if p is not None)


def _start_hand(table: Table, seed: bytes, salt: bytes) -> list[Any]:
    rs = table.rules
    if table.fixed_deal and table.hands_started == 0:
        start = rs.fixed_deal(json.loads(table.fixed_deal), salt)
    else:
        start = StartHand(seed, salt)
    return list(rs.decide(table.game, start))


def follow_up(table: Table) -> Timeout | None:
    """The clock step due right after the command that made `table` what it is (the ruleset's
    `follow_up`: a claim window nobody may answer closes), or None. The driver stores it as a
    command of its own, never chained into the command before: what the other seats see must
    not depend on whether it was due (docs/hidden-information.md)."""
    if table.status is not Status.IN_HAND or table.rules.follow_up(table.game) is None:
        return None
    return Timeout(table.version, b"", b"", fair=True)


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
    # The player is back for its claim windows too: told to that seat alone, as they were.
    if seat in table.claim_auto:
        events.insert(0, ClaimAutoPlaySet(seat, False))
    elif _claim_streaks(table)[seat]:
        events.insert(0, ClaimTimedOut(seat, 0))
    return events + _settlement(table, events)


def _take_back(table: Table, cmd: TakeBack) -> list[Any]:
    seat = table.seat_of(cmd.player_id)
    if seat is None:
        raise RuleViolation("not_seated", "you are not seated at this table: there is no seat to take back")
    # Idempotent: a seat the server is not playing for is already its player's.
    return ([AutoPlaySet(seat, False)] if seat in table.auto else []) + (
        [ClaimAutoPlaySet(seat, False)] if seat in table.claim_auto else [])


def _timeout(table: Table, cmd: Timeout) -> list[Any]:
    if cmd.version != table.version:
        return []  # the table moved on: that deadline no longer exists
    status = table.status
    if status is Status.WAITING_FOR_HAND:
        if isinstance(table.deal, AwaitingReveals):
            return _withhold(table, table.deal)
        # Between hands the next one starts on time; the very first waits for everyone's Ready.
        if table.hands_started == 0 or table.short_of_players():
            return []
        return _hand_due(table, cmd.seed, cmd.salt, cmd.fair, table.commitments)
    if status is not Status.IN_HAND:
        return []
    rs = table.rules
    deadline = rs.deadline(table.game)
    if deadline is None:
        return []
    events: list[Any] = []
    # A missed claim window is that seat's own business where the rules hide who is asked:
    # counted apart from the public streak, and auto-play it leads to covers claim windows only
    # (its turns stay the player's, timed as everyone sees).
    private = deadline.private
    streaks = list(_claim_streaks(table) if private else table.streaks)
    game = table.game
    for seat in list(deadline.defaults):
        if seat is not None and not (table.answers_claims_for(seat) if private else table.is_auto(seat)):
            streaks[seat] += 1
            events.append(ClaimTimedOut(seat, streaks[seat]) if private else SeatTimedOut(seat, streaks[seat]))
            if streaks[seat] >= TIMEOUTS_BEFORE_AUTO_PLAY:
                events.append(ClaimAutoPlaySet(seat, True) if private else AutoPlaySet(seat, True))
        current = rs.deadline(game)
        # An earlier default may have closed this seat's decision (a claim resolved by a win).
        if current is None or seat not in current.defaults:
            continue
        produced = rs.decide(game, _auto_command(table, rs, game, seat, current.defaults[seat], cmd.seed))
        for ev in produced:
            game = step(rs.evolve, game, ev)
        events += produced
        if rs.status(game) is not Status.IN_HAND:
            break
    return events + _settlement(table, events)


def _auto_command(table: Table, rs: AnyRuleset, game: Any, seat: int | None, default: Any,
                  seed: bytes) -> Any:
    """What the server sends for `seat` when its time is up: a bot seat plays at the level its id
    names (from its own view only, deterministic given the Timeout's seed, so Verify re-decides
    it alike); a player's seat on 托管, and a bot of the default level, take the ruleset's default."""
    if seat is None:  # the table's own step (a deal), nobody's decision
        return default
    player = table.seats[seat]
    if player is None or not player.startswith(BOT_PREFIX) or levels.level_of(player) == levels.DEFAULT_LEVEL:
        return default
    chosen = levels.command_for(rs, game, seat, levels.level_of(player), seed + bytes([seat]))
    if chosen is None:
        return default
    try:
        rs.decide(game, chosen)
    except RuleViolation:  # a bot's mistake must not stall the table: the default is always legal
        return default
    return chosen


def _settlement(table: Table, events: list[Any]) -> list[Any]:
    """When `events` end the hand: its payments in chips, then the stacks of the players who
    left during it, and every stack when the match is over."""
    rs = table.rules
    game = table.game
    for ev in events:
        if not is_table_event(ev):
            game = step(rs.evolve, game, ev)
    status = rs.status(game)
    result = rs.hand_result(game)
    if status is Status.IN_HAND or result is None:
        return []
    chips = table.chips
    revised = table.revision >= CHIPS_NEVER_STRAND
    # A seat whose player left is still theirs: since revision 3 its payments name them.
    players = tuple(table.owner(s) for s in range(len(table.seats))) if revised else table.seats
    settled = settle_hand(table.hands_started, table.ruleset, result, chips.stacks, players, chips.stakes)
    out: list[Any] = [settled]
    chips = chips.settled(settled)
    if status is Status.MATCH_OVER and revised:
        return [*out, *_cash_out_everyone(table, chips), TableClosed(MATCH_OVER)]
    for seat, player in chips.leaving:
        out.append(chips.cash_out(seat, player))
    if status is Status.MATCH_OVER:
        out += [chips.cash_out(seat, player) for seat, player in enumerate(table.seats)
                if player is not None and chips.stacks[seat] > 0]
    return out


# --- evolve ----------------------------------------------------------------------------------


def evolve(table: Table, ev: Any) -> Table:
    """Apply one event of the table's stream."""
    if isinstance(ev, TableCreated):
        rs = _ruleset(ev.ruleset)
        options = rs.options(ev.options)
        n = rs.seats(options)
        return Table(ev.table_id, ev.ruleset, options, ev.created_by, ev.private, ev.fixed_deal,
                     seats=(None,) * n, commitments=("",) * n, streaks=(0,) * n, claim_streaks=(0,) * n,
                     game=rs.initial(), version=table.version + 1,
                     chips=Chips.for_table(ev.stakes or Stakes(), n), held=("",) * n,
                     seen=numbering.first(n), revision=ev.rules)
    # The new version and counts go into the one copy of the table each event makes.
    if is_table_event(ev):
        if isinstance(ev, ClaimTimedOut | ClaimAutoPlaySet):
            seen = numbering.counted(table.seen, lambda seat: seat == ev.seat)
        else:
            seen = numbering.everyone(table.seen)
        return _evolve(table, ev, seen=seen, version=table.version + 1)
    rs = table.rules
    redact = rs.redact
    seen = numbering.counted(table.seen, lambda seat: redact(ev, seat) is not None)
    return _evolve_game(table, rs, ev, seen=seen, version=table.version + 1)


def shows(table: Table, ev: Any, seat: int | None) -> bool:
    """Whether `seat` (None: a spectator) may see anything of `ev`: what its numbering counts."""
    if is_table_event(ev):
        return redact(ev, seat) is not None
    return table.rules.redact(ev, seat) is not None


def _evolve(table: Table, ev: Any, **numbers: Any) -> Table:
    """`table` after `ev`, with `numbers` (its version and per-observer counts) set too."""
    if isinstance(ev, StackBoughtIn):
        return replace(table, chips=table.chips.bought_in(ev), **numbers)
    if isinstance(ev, HandSettled):
        return replace(table, chips=table.chips.settled(ev), **numbers)
    if isinstance(ev, StackCashedOut):
        return replace(table, chips=table.chips.cashed_out(ev), **numbers)
    if isinstance(ev, PlayerSeated):
        return replace(table, seats=_put(table.seats, ev.seat, ev.player_id),
                       auto=table.auto - {ev.seat}, claim_auto=table.claim_auto - {ev.seat},
                       members=table.members | {ev.player_id},
                       held=_put(table.held, ev.seat, ""), **numbers)
    if isinstance(ev, PlayerLeft):
        status = table.status
        chips = table.chips.left_mid_hand(ev.seat, ev.player_id) \
            if status is Status.IN_HAND else table.chips
        # Once the match has dealt a hand, the seat stays its player's till the match ends.
        kept = ev.player_id if table.hands_started and status is not Status.MATCH_OVER else ""
        return replace(table, seats=_put(table.seats, ev.seat, None),
                       held=_put(table.held, ev.seat, kept),
                       ready=table.ready - {ev.seat},
                       commitments=_put(table.commitments, ev.seat, ""), chips=chips, **numbers)
    if isinstance(ev, PlayerReady):
        return replace(table, ready=table.ready | {ev.seat}, **numbers)
    if isinstance(ev, ClaimTimedOut):
        return replace(table, claim_streaks=_put(_claim_streaks(table), ev.seat, ev.streak), **numbers)
    if isinstance(ev, SeatTimedOut):
        return replace(table, streaks=_put(table.streaks, ev.seat, ev.streak), **numbers)
    if isinstance(ev, ClaimAutoPlaySet):
        claim_auto = table.claim_auto | {ev.seat} if ev.on else table.claim_auto - {ev.seat}
        return replace(table, claim_auto=claim_auto, claim_streaks=_put(_claim_streaks(table), ev.seat, 0),
                       **numbers)
    if isinstance(ev, TableClosed):
        return replace(table, closed=ev.reason, **numbers)
    if isinstance(ev, AutoPlaySet):
        auto = table.auto | {ev.seat} if ev.on else table.auto - {ev.seat}
        return replace(table, auto=auto, streaks=_put(table.streaks, ev.seat, 0), **numbers)
    if isinstance(ev, _FAIR_EVENTS):
        return replace(_evolve_fair(table, ev), **numbers)
    return _evolve_game(table, table.rules, ev, **numbers)


def _evolve_game(table: Table, rs: AnyRuleset, ev: Any, **numbers: Any) -> Table:
    """`table` after its ruleset's event `ev`, with `numbers` set too."""
    before = rs.status(table.game)
    game = step(rs.evolve, table.game, ev)
    if before is not Status.IN_HAND and rs.status(game) is Status.IN_HAND:
        return replace(table, game=game, ready=frozenset(), deal=_dealt(table.deal),
                       hands_started=table.hands_started + 1, **numbers)
    return replace(table, game=game, **numbers)


def _claim_streaks(table: Table) -> tuple[int, ...]:
    """Each seat's missed claim windows in a row (a table restored from an older snapshot has none)."""
    return table.claim_streaks or (0,) * len(table.seats)


def _put(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1:])


def is_table_event(ev: Any) -> bool:
    """Whether `ev` is one of the table's own events (seats, readiness), visible to every seat."""
    cls = type(ev)
    known = _TABLE_EVENT_TYPES.get(cls)
    if known is None:
        known = _TABLE_EVENT_TYPES[cls] = type_name(ev).startswith("table.")
    return known


# Per event class, whether it is a table event: asked for every event and every seat.
_TABLE_EVENT_TYPES: dict[type, bool] = {}
