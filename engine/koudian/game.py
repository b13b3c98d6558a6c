"""create, decide and evolve: the koudian table as an event-sourced state machine.

`decide` validates a command and returns the events it causes, playing on through everything that
follows without a choice: the next draw, a locked hand's automatic discard, the end of the hand.
It does so by folding its own events as it goes, so decide and evolve can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core import errors
from engine.core.contract import HandResult, StartHand
from engine.core.errors import RuleViolation
from engine.core.frozen import replace
from engine.core.log import Log
from engine.core.payments import deltas as owed
from engine.core.shuffle import derived_rng
from engine.koudian import claiming, kongs, scoring, winning
from engine.koudian.commands import Command, FixedDeal
from engine.koudian.events import (
    ClaimWindowOpened,
    DealerChosen,
    Event,
    HandEnded,
    HandStarted,
    MatchEnded,
    ReadyDeclared,
    TableCreated,
)
from engine.koudian.options import Options
from engine.koudian.state import (
    ADDED_KONG,
    CONCEALED_KONG,
    DEAL,
    EXPOSED_KONG,
    PHASES,
    PONGED,
    RESERVE,
    RESERVE_PER_KONG,
    SEATS,
    WALL,
    BetweenHands,
    Claims,
    Hand,
    MatchOver,
    Playing,
    Robbing,
    State,
    Table,
    Turn,
)
from engine.mahjong import claims, dealing
from engine.mahjong.actions import (
    ClaimAnswered,
    CloseClaims,
    DeclareReady,
    Discard,
    Kong,
    Konged,
    Pass,
    Pong,
    Ponged,
    TileDiscarded,
    TileDrawn,
    Win,
)
from engine.mahjong.phases import turn_of
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile, face_value, from_counts
from engine.mahjong.wall import Wall, dealt_count

# ---------------------------------------------------------------------------------------- evolve


def evolve(state: State, ev: Event) -> State:
    """Apply one event (total: events come from decide, or a log decide wrote)."""
    return _EVOLVE[type(ev)](state, ev)


def _on_created(state: State, ev: TableCreated) -> State:
    return BetweenHands(Table(ev.table_id, ev.options))


def _on_dealer(state: BetweenHands, ev: DealerChosen) -> State:
    return BetweenHands(replace(state.table, dealer=ev.dealer))


def _on_started(state: BetweenHands, ev: HandStarted) -> State:
    assert ev.order is not None and ev.salt is not None
    wall = Wall(ev.order, front=dealt_count(SEATS), reserve=RESERVE)
    seats = tuple(SeatTiles.dealt(d) for d in ev.dealt)
    hand = Hand(ev.number, ev.dealer, wall, seats, Turn(ev.dealer, None, DEAL), ev.salt, ev.seed)
    return Playing(state.table, hand)


def _on_drawn(state: Playing, ev: TileDrawn) -> State:
    hand = state.hand
    assert ev.tile is not None
    wall = hand.wall.drawn(ev.from_tail)
    source = WALL
    if ev.from_tail:
        phase = hand.phase
        source = ADDED_KONG if isinstance(phase, Robbing) else phase.source  # type: ignore[union-attr]
    sh = hand.seats[ev.seat].drew(ev.tile)
    return Playing(state.table, hand.with_seat(ev.seat, sh, wall, Turn(ev.seat, ev.tile, source, wall.live == 0)))


def _on_discarded(state: Playing, ev: TileDiscarded) -> State:
    hand = state.hand
    sh = hand.seats[ev.seat]
    return Playing(state.table, hand.with_seat(ev.seat, sh.discarded(ev.tile), last_discard=ev.tile))


def _on_ready(state: Playing, ev: ReadyDeclared) -> State:
    hand = state.hand
    assert ev.tile is not None
    sh = hand.seats[ev.seat].declared_ready(ev.tile, ev.waits)
    return Playing(state.table, hand.with_seat(ev.seat, sh, last_discard=None))


def _on_window(state: Playing, ev: ClaimWindowOpened) -> State:
    window = claims.ClaimWindow(ev.tile, ev.source, SEATS, ev.options)
    phase = Robbing(window) if ev.robbing else Claims(window)
    return Playing(state.table, replace(state.hand, phase=phase))


def _on_answered(state: Playing, ev: ClaimAnswered) -> State:
    phase = state.hand.phase
    assert isinstance(phase, Claims | Robbing)
    phase = type(phase)(phase.window.answered(ev.seat, ev.claim))
    return Playing(state.table, replace(state.hand, phase=phase))


def _taken_from_river(hand: Hand, source: int) -> Hand:
    return hand.with_seat(source, hand.seats[source].lost_last_discard(), last_discard=None)


def _on_ponged(state: Playing, ev: Ponged) -> State:
    hand = _taken_from_river(state.hand, ev.source)
    sh = hand.seats[ev.seat].ponged(ev.tile, ev.source)
    hand = hand.with_seat(ev.seat, sh, phase=Turn(ev.seat, None, PONGED))
    return Playing(state.table, hand)


def _on_konged(state: Playing, ev: Konged) -> State:
    hand = state.hand
    assert ev.tile is not None
    if ev.kind == EXPOSED_KONG:
        assert ev.source is not None
        hand = _taken_from_river(hand, ev.source)
    sh = hand.seats[ev.seat].konged(ev.tile, ev.kind, ev.source)
    hand = replace(
        hand.with_seat(ev.seat, sh),
        kongs=hand.kongs + 1,
        wall=hand.wall.reserving(RESERVE_PER_KONG),
        phase=Turn(ev.seat, None, ev.kind),
    )
    return Playing(state.table, hand)


def _on_ended(state: Playing, ev: HandEnded) -> State:
    t = state.table
    table = replace(
        t,
        scores=tuple(a + b for a, b in zip(t.scores, ev.deltas, strict=True)),
        dealer=ev.next_dealer,
        passes=ev.passes,
        hands_played=t.hands_played + 1,
        result=HandResult(ev.outcome, ev.points, ev.deltas, payments=scoring.payments(
            SEATS, ev.winner, ev.points, ev.payer, t.options.base_score, ev.outcome)),
    )
    return BetweenHands(table)


def _on_match_ended(state: BetweenHands, ev: MatchEnded) -> State:
    return MatchOver(state.table)


_EVOLVE: dict[type, Callable[[Any, Any], State]] = {
    TableCreated: _on_created,
    DealerChosen: _on_dealer,
    HandStarted: _on_started,
    TileDrawn: _on_drawn,
    TileDiscarded: _on_discarded,
    ReadyDeclared: _on_ready,
    ClaimWindowOpened: _on_window,
    ClaimAnswered: _on_answered,
    Ponged: _on_ponged,
    Konged: _on_konged,
    HandEnded: _on_ended,
    MatchEnded: _on_match_ended,
}


# ---------------------------------------------------------------------------------------- decide


class _Log(Log[State, Event]):
    """The events of one decision, folded as they are written; with the hand and options at hand."""

    def __init__(self, state: State) -> None:
        super().__init__(state, evolve)

    @property
    def hand(self) -> Hand:
        assert isinstance(self.state, Playing)
        return self.state.hand

    @property
    def options(self) -> Options:
        assert isinstance(self.state, Playing)
        return self.state.table.options


deck_order = dealing.deck_order  # the contract's: the wall a StartHand with a seed builds


def create(table_id: str, options: Options) -> list[Event]:
    """The creation event, recording the options."""
    return [TableCreated(table_id, options)]


def decide(state: State, cmd: Command) -> list[Event]:
    """The events `cmd` causes, or RuleViolation with a stable code and a player's sentence."""
    if isinstance(cmd, StartHand | FixedDeal):
        return _deal(state, cmd)
    playing = PHASES.to_move(state)
    handler = _COMMANDS.get(type(cmd))
    if handler is None:
        raise RuleViolation(errors.UNKNOWN_COMMAND, f"Koudian has no {type(cmd).__name__} move.")
    if not isinstance(cmd, CloseClaims):
        errors.check_seat(cmd.seat, SEATS)
    log = _Log(playing)
    handler(log, cmd)
    return log.events


def _deal(state: State, cmd: StartHand | FixedDeal) -> list[Event]:
    table = PHASES.to_deal(state).table
    return dealing.started(cmd, table.dealer, table.hands_played + 1, SEATS, DealerChosen, HandStarted)


def _turn_of(log: _Log, seat: int) -> Turn:
    return turn_of(log.hand.phase, seat, Turn)


def _holds(sh: SeatTiles, tile: Tile) -> None:
    if not sh.concealed[tile]:
        raise RuleViolation("tile_not_held", f"You do not hold {tile}.")


def _discard(log: _Log, cmd: Discard) -> None:
    turn = _turn_of(log, cmd.seat)
    sh = log.hand.seats[cmd.seat]
    _holds(sh, cmd.tile)
    if turn.last:
        raise RuleViolation("last_tile", "The last tile of the wall is yours alone: win with it or the hand is drawn.")
    if sh.ready and cmd.tile != turn.drawn:
        raise RuleViolation("hand_locked", f"Your hand is locked after declaring ready: you can only discard {turn.drawn}.")
    log.add(TileDiscarded(cmd.seat, cmd.tile))
    _after_discard(log, cmd.seat, cmd.tile)


def _declare_ready(log: _Log, cmd: DeclareReady) -> None:
    turn = _turn_of(log, cmd.seat)
    sh = log.hand.seats[cmd.seat]
    if sh.ready:
        raise RuleViolation("already_ready", "You have already declared ready.")
    _holds(sh, cmd.tile)
    if turn.last:
        raise RuleViolation("last_tile", "The last tile of the wall is yours alone: win with it or the hand is drawn.")
    waits = winning.can_declare_ready(sh, cmd.tile, log.options)
    if not waits:
        raise RuleViolation("not_ready_after_discard", f"Without {cmd.tile} your hand would not be one tile from winning.")
    log.add(ReadyDeclared(cmd.seat, cmd.tile, waits))
    # Nobody may see, pong or win on the face-down tile: play passes straight on.
    _draw_on(log, (cmd.seat + 1) % SEATS, from_tail=False)


def _win(log: _Log, cmd: Win) -> None:
    phase = log.hand.phase
    sh = log.hand.seats[cmd.seat]
    if isinstance(phase, Claims | Robbing):
        if claims.WIN not in phase.window.options_of(cmd.seat):
            _refuse_win(sh, phase.window.tile)
        _answer(log, cmd.seat, claims.WIN)
        return
    if phase.seat != cmd.seat and log.hand.last_discard is not None:
        # A win called on a discard that opened no window: say why it cannot be won on.
        _refuse_win(sh, log.hand.last_discard)
    turn = _turn_of(log, cmd.seat)
    if not sh.ready:
        raise RuleViolation("not_ready", "You can only win after declaring ready (报听).")
    if turn.drawn is None or turn.source in (DEAL, PONGED):
        raise RuleViolation("nothing_to_win_on", "You have not drawn a tile to win with.")
    if turn.drawn not in sh.waits:
        raise RuleViolation("not_a_winning_hand", f"{turn.drawn} does not complete your hand.")
    won = winning.self_win(log.hand, turn)
    if won is None:
        need = scoring.SELF_DRAW_MIN if turn.source in (WALL, CONCEALED_KONG) else scoring.DISCARD_MIN
        raise RuleViolation(
            "below_threshold",
            f"{turn.drawn} is worth {face_value(turn.drawn)}; winning this way needs a tile worth {need} or more.",
        )
    how, points = won
    _end(log, how, winner=cmd.seat, tile=turn.drawn, points=points)


def _refuse_win(sh: SeatTiles, tile: Tile) -> None:
    """Raise the reason a seat may not win on the discard `tile` (when no other reason applies,
    the seat is just not being asked: it already answered or is not eligible)."""
    if not sh.ready:
        raise RuleViolation("not_ready", "You can only win after declaring ready (报听).")
    if tile not in sh.waits:
        raise RuleViolation("not_a_winning_hand", f"{tile} does not complete your hand.")
    if face_value(tile) < scoring.DISCARD_MIN:
        raise RuleViolation(
            "below_threshold",
            f"{tile} is worth {face_value(tile)}; a discard must be worth {scoring.DISCARD_MIN} or more to win on.",
        )


def _kong(log: _Log, cmd: Kong) -> None:
    phase = log.hand.phase
    if isinstance(phase, Claims | Robbing):
        if phase.window.tile != cmd.tile and claims.KONG in phase.window.options_of(cmd.seat):
            raise RuleViolation("wrong_tile", f"The tile to claim is {phase.window.tile}, not {cmd.tile}.")
        _answer(log, cmd.seat, claims.KONG)
        return
    turn = _turn_of(log, cmd.seat)
    sh = log.hand.seats[cmd.seat]
    _holds(sh, cmd.tile)
    kinds = dict(kongs.turn_kongs(log.hand, turn, log.options))
    kind = kinds.get(cmd.tile)
    if kind is None:
        if turn.source == PONGED:
            raise RuleViolation("no_kong", "A kong is declared after drawing, not right after a pong.")
        if turn.last or log.hand.wall.live < kongs.KONG_ROOM:
            raise RuleViolation("wall_too_short", "Too few tiles are left in the wall for a kong.")
        if sh.ready:
            raise RuleViolation("kong_changes_waits", f"A kong of {cmd.tile} would change your locked hand.")
        raise RuleViolation("no_kong", f"You hold no four {cmd.tile} and no pong of it to add to.")
    log.add(Konged(cmd.seat, cmd.tile, kind, None))
    if kind == ADDED_KONG:
        if kongs.kong_draw(log.hand, cmd.tile, cmd.seat):
            _end(log, scoring.KONG_DRAW)
            return
        options = kongs.robbers(log.hand, cmd.tile, cmd.seat)
        if options or _always(log):
            log.add(ClaimWindowOpened(cmd.tile, cmd.seat, tuple(sorted(options.items())), robbing=True))
            return
    _draw_on(log, cmd.seat, from_tail=True)


def _pong(log: _Log, cmd: Pong) -> None:
    phase = log.hand.phase
    if log.hand.seats[cmd.seat].ready:
        raise RuleViolation("no_pong_when_ready", "After declaring ready you may not pong.")
    if not isinstance(phase, Claims):
        raise RuleViolation("nothing_to_claim", "There is no discard to pong now.")
    if phase.window.tile != cmd.tile:
        raise RuleViolation("wrong_tile", f"The tile to claim is {phase.window.tile}, not {cmd.tile}.")
    _answer(log, cmd.seat, claims.PONG)


def _pass(log: _Log, cmd: Pass) -> None:
    _answer(log, cmd.seat, claims.PASS)


def _always(log: _Log) -> bool:
    """Whether this table opens a window after every discard (engine.mahjong.claims)."""
    return log.options.claim_window == claims.WINDOW_ALWAYS


def _close_claims(log: _Log, cmd: CloseClaims) -> None:
    phase = log.hand.phase
    if not isinstance(phase, Claims | Robbing) or not phase.window.decided():
        raise RuleViolation("nothing_to_close", "No claim window is waiting to be closed.")
    _resolve(log, phase.window, robbing=isinstance(phase, Robbing))


def _answer(log: _Log, seat: int, claim: str) -> None:
    phase = log.hand.phase
    if not isinstance(phase, Claims | Robbing):
        raise RuleViolation("nothing_to_claim", "There is nothing to claim or pass on now.")
    window = phase.window
    if any(s == seat for s, _ in window.answers):
        raise RuleViolation("already_answered", "You have already answered this discard.")
    if not claims.to_record(window, seat, claim, _always(log), _refused,
                            paced=claims.minimum_ms(log.options) > 0):
        return
    log.add(ClaimAnswered(seat, claim))
    window = log.hand.phase.window  # type: ignore[union-attr]
    if window.decided() and not _always(log):  # else the table's own step resolves it (follow_up)
        _resolve(log, window, robbing=isinstance(phase, Robbing))


_REFUSAL = {
    claims.WIN: ("cannot_win", "{tile} does not win for you here (a discard must complete your declared hand and be worth 6 or more)."),
    claims.PONG: ("cannot_pong", "You cannot pong {tile}."),
    claims.KONG: ("cannot_kong", "You cannot kong {tile}."),
}


def _refused(claim: str, tile: Tile) -> RuleViolation:
    code, text = _REFUSAL[claim]
    return RuleViolation(code, text.format(tile=tile))


def _resolve(log: _Log, window: claims.ClaimWindow, robbing: bool) -> None:
    taken = window.winners()
    if not taken:
        if robbing:
            _draw_on(log, window.source, from_tail=True)
        else:
            _draw_on(log, (window.source + 1) % SEATS, from_tail=False)
        return
    seat, claim = taken[0]
    if claim == claims.WIN:
        how = scoring.ROBBED_KONG if robbing else scoring.DISCARD
        points = scoring.win_points(window.tile, how)
        assert points is not None
        _end(log, how, winner=seat, tile=window.tile, points=points, source=window.source)
    elif claim == claims.PONG:
        log.add(Ponged(seat, window.tile, window.source))
    else:
        log.add(Konged(seat, window.tile, EXPOSED_KONG, window.source))
        _draw_on(log, seat, from_tail=True)


def _after_discard(log: _Log, seat: int, tile: Tile) -> bool:
    """Open the claim window on a face-up discard, or play on with the next draw. True when a
    window opened."""
    options = claiming.discard_claims(log.hand, tile, seat, log.options)
    if options or _always(log):
        log.add(ClaimWindowOpened(tile, seat, tuple(sorted(options.items()))))
        return True
    _draw_on(log, (seat + 1) % SEATS, from_tail=False)
    return False


def _draw_on(log: _Log, seat: int, from_tail: bool) -> None:
    """`seat` draws; a locked hand that can neither win nor kong discards the tile by itself, and
    play goes on until someone has a choice or the hand ends."""
    while True:
        wall = log.hand.wall
        tile = wall.next_replacement() if from_tail else wall.next_live()
        log.add(TileDrawn(seat, tile, from_tail))
        turn = log.hand.phase
        assert isinstance(turn, Turn)
        sh = log.hand.seats[seat]
        can_win = sh.ready and winning.self_win(log.hand, turn) is not None
        if turn.last:
            if not can_win:
                _end(log, scoring.WALL_DRAW)
            return
        if not sh.ready or can_win or kongs.turn_kongs(log.hand, turn, log.options):
            return
        log.add(TileDiscarded(seat, tile, auto=True))
        options = claiming.discard_claims(log.hand, tile, seat, log.options)
        if options or _always(log):
            log.add(ClaimWindowOpened(tile, seat, tuple(sorted(options.items()))))
            return
        seat, from_tail = (seat + 1) % SEATS, False


def _end(
    log: _Log,
    outcome: str,
    winner: int | None = None,
    tile: Tile | None = None,
    points: int = 0,
    source: int | None = None,
) -> None:
    state = log.state
    assert isinstance(state, Playing)
    table, hand = state.table, state.hand
    options = table.options
    payer = None
    deltas = (0,) * SEATS
    if winner is not None and tile is not None:
        source_ready = source is not None and hand.seats[source].ready
        payer = scoring.liable(outcome, source, source_ready, tile)
        deltas = owed(scoring.payments(SEATS, winner, points, payer, options.base_score, outcome), SEATS)
    dealer, passes = hand.dealer, table.passes
    if (winner is not None and winner != hand.dealer) or (winner is None and not options.dealer_stays_on_draw):
        dealer, passes = (dealer + 1) % SEATS, passes + 1
    log.add(
        HandEnded(
            outcome=outcome,
            deltas=deltas,
            next_dealer=dealer,
            passes=passes,
            order=hand.wall.order,
            salt=hand.salt,
            hands=tuple(from_counts(sh.concealed) for sh in hand.seats),
            concealed_kongs=tuple(
                tuple(m.tile for m in sh.melds if m.kind == CONCEALED_KONG and m.tile is not None) for sh in hand.seats
            ),
            face_down=tuple(sh.face_down for sh in hand.seats),
            seed=hand.seed,
            winner=winner,
            tile=tile,
            source=source,
            points=points,
            payer=payer,
        )
    )
    if passes >= SEATS * options.rounds_per_match:
        seating = list(range(SEATS))
        derived_rng(hand.seed or hand.salt, "seating").shuffle(seating)
        log.add(MatchEnded(log.state.table.scores, tuple(seating)))  # type: ignore[union-attr]


_COMMANDS: dict[type, Callable[[_Log, Any], None]] = {
    Discard: _discard,
    DeclareReady: _declare_ready,
    Win: _win,
    Kong: _kong,
    Pong: _pong,
    Pass: _pass,
    CloseClaims: _close_claims,
}
