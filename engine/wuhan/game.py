"""decide and evolve: the wuhan table as an event-sourced state machine.

`decide` validates a command and returns the events it causes, playing on through everything that
follows without a choice: the next draw, a kong's replacement, a last-four draw nobody can win
on, the end of the hand. It folds its own events as it goes, so decide and evolve never disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core import errors
from engine.core.contract import HandResult, StartHand
from engine.core.errors import RuleViolation
from engine.core.frozen import replace
from engine.core.log import Log
from engine.core.payments import Payment
from engine.mahjong import claims, dealing
from engine.mahjong.actions import (
    Chow,
    ClaimAnswered,
    CloseClaims,
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
from engine.mahjong.melds import KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED
from engine.mahjong.phases import turn_of
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile, format_tiles, from_counts
from engine.mahjong.wall import Wall, dealt_count
from engine.wuhan import claiming, kongs
from engine.wuhan.big_wins import DISCARD, ROBBED_KONG, SELF_DRAW, Way
from engine.wuhan.commands import Command, FixedDeal
from engine.wuhan.events import (
    ChowClaimed,
    Chowed,
    ClaimWindowOpened,
    DealerChosen,
    Event,
    HandEnded,
    HandStarted,
    IndicatorTurned,
    KongRobbed,
    LaidOut,
    MatchEnded,
    TableCreated,
)
from engine.wuhan.options import Options
from engine.wuhan.roles import Roles
from engine.wuhan.scoring import Settlement
from engine.wuhan.state import (
    CLAIMED,
    DEAL,
    LAST_DRAWS,
    PHASES,
    REPLACEMENT,
    RESERVE,
    SEATS,
    WALL,
    BetweenHands,
    Claims,
    Hand,
    LastFour,
    MatchOver,
    Playing,
    Robbing,
    State,
    Table,
    Turn,
)
from engine.wuhan.winning import Refusal, judge_in

# How a hand ended: HandEnded.outcome.
OUTCOME = {SELF_DRAW: "self_draw", DISCARD: "discard_win", ROBBED_KONG: "robbed_kong"}
DRAW = "draw"

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
    # The roles are set by IndicatorTurned, the hand's next event; until then the indicator is
    # the tile after the deal, which is what that event turns.
    roles = Roles(wall.next_live())
    hand = Hand(ev.number, ev.dealer, wall, seats, ((),) * SEATS, roles, Turn(ev.dealer, None, DEAL), ev.salt, ev.seed)
    return Playing(state.table, hand)


def _on_indicator(state: Playing, ev: IndicatorTurned) -> State:
    hand = state.hand
    return Playing(state.table, replace(hand, wall=hand.wall.drawn(from_tail=False), roles=Roles(ev.indicator)))


def _on_drawn(state: Playing, ev: TileDrawn) -> State:
    hand = state.hand
    assert ev.tile is not None
    last = hand.wall.live <= LAST_DRAWS
    source = REPLACEMENT if ev.from_tail else WALL
    phase: Turn | LastFour = LastFour(ev.seat, ev.tile, source) if last else Turn(ev.seat, ev.tile, source)
    sh = hand.seats[ev.seat].drew(ev.tile)
    return Playing(state.table, hand.with_seat(ev.seat, sh, hand.wall.drawn(ev.from_tail), phase))


def _on_discarded(state: Playing, ev: TileDiscarded) -> State:
    hand = state.hand
    return Playing(state.table, hand.with_seat(ev.seat, hand.seats[ev.seat].discarded(ev.tile), last_discard=(ev.seat, ev.tile)))


def _on_laid_out(state: Playing, ev: LaidOut) -> State:
    hand = state.hand
    laid = hand.laid[: ev.seat] + ((*hand.laid[ev.seat], ev.tile),) + hand.laid[ev.seat + 1 :]
    # The latest tile a seat let go of: a win called now is called on it, not on an older discard.
    hand = replace(hand.with_seat(ev.seat, hand.seats[ev.seat].laid_out(ev.tile), last_discard=(ev.seat, ev.tile)), laid=laid)
    return Playing(state.table, hand)


def _on_window(state: Playing, ev: ClaimWindowOpened) -> State:
    hand = state.hand
    window = claims.ClaimWindow(ev.tile, ev.source, SEATS, ev.options, order_from=claiming.order_from(hand, state.table.options))
    phase = Robbing(window) if ev.robbing else Claims(window)
    return Playing(state.table, replace(hand, phase=phase))


def _on_answered(state: Playing, ev: ClaimAnswered) -> State:
    phase = state.hand.phase
    assert isinstance(phase, Claims | Robbing)
    answered = replace(phase, window=phase.window.answered(ev.seat, ev.claim))
    return Playing(state.table, replace(state.hand, phase=answered))


def _on_chow_claimed(state: Playing, ev: ChowClaimed) -> State:
    phase = state.hand.phase
    assert isinstance(phase, Claims)
    answered = Claims(phase.window.answered(ev.seat, claims.CHOW), ev.low)
    return Playing(state.table, replace(state.hand, phase=answered))


def _taken_from_river(hand: Hand, source: int) -> Hand:
    return hand.with_seat(source, hand.seats[source].lost_last_discard(), last_discard=None)


def _on_chowed(state: Playing, ev: Chowed) -> State:
    hand = _taken_from_river(state.hand, ev.source)
    sh = hand.seats[ev.seat].chowed(ev.low, ev.tile, ev.source)
    return Playing(state.table, hand.with_seat(ev.seat, sh, phase=Turn(ev.seat, None, CLAIMED)))


def _on_ponged(state: Playing, ev: Ponged) -> State:
    hand = _taken_from_river(state.hand, ev.source)
    sh = hand.seats[ev.seat].ponged(ev.tile, ev.source)
    return Playing(state.table, hand.with_seat(ev.seat, sh, phase=Turn(ev.seat, None, CLAIMED)))


def _on_konged(state: Playing, ev: Konged) -> State:
    hand = state.hand
    assert ev.tile is not None
    if ev.kind == KONG_EXPOSED:
        assert ev.source is not None
        hand = _taken_from_river(hand, ev.source)
    sh = hand.seats[ev.seat].konged(ev.tile, ev.kind, ev.source)
    return Playing(state.table, hand.with_seat(ev.seat, sh))


def _on_robbed(state: Playing, ev: KongRobbed) -> State:
    hand = state.hand
    hand = hand.with_seat(ev.seat, hand.seats[ev.seat].unkonged(ev.tile))
    hand = hand.with_seat(ev.winner, hand.seats[ev.winner].drew(ev.tile))
    return Playing(state.table, hand)


def _on_ended(state: Playing, ev: HandEnded) -> State:
    t = state.table
    s = ev.settlement
    table = replace(
        t,
        scores=tuple(a + b for a, b in zip(t.scores, ev.deltas, strict=True)),
        dealer=ev.next_dealer,
        passes=ev.passes,
        hands_played=t.hands_played + 1,
        result=HandResult(ev.outcome, 0 if s is None else s.total, ev.deltas, () if s is None else explain(s),
                          payments=() if s is None else tuple(
                              Payment(payer, payee, points, "win") for payer, payee, points in s.payments())),
    )
    return BetweenHands(table)


def _on_match_ended(state: BetweenHands, ev: MatchEnded) -> State:
    return MatchOver(state.table)


_EVOLVE: dict[type, Callable[[Any, Any], State]] = {
    TableCreated: _on_created,
    DealerChosen: _on_dealer,
    HandStarted: _on_started,
    IndicatorTurned: _on_indicator,
    TileDrawn: _on_drawn,
    TileDiscarded: _on_discarded,
    LaidOut: _on_laid_out,
    ClaimWindowOpened: _on_window,
    ClaimAnswered: _on_answered,
    ChowClaimed: _on_chow_claimed,
    Chowed: _on_chowed,
    Ponged: _on_ponged,
    Konged: _on_konged,
    KongRobbed: _on_robbed,
    HandEnded: _on_ended,
    MatchEnded: _on_match_ended,
}


def explain(s: Settlement) -> tuple[str, ...]:
    """A settlement in lines a person reads: the hand, the winner's multiplier, each loser's
    amount as a formula, and who pays when one seat pays for all."""
    lines = [f"seat {s.winner} wins {s.hand_name()}, base {s.base}; winner's multiplier {s.winner_formula()}"]
    for line in s.lines:
        paid = "" if line.payer == line.seat else f" (paid by seat {line.payer}, 承包 {s.liable_for})"
        lines.append(f"seat {line.seat} pays {s.formula(line)}{paid}")
    return tuple(lines)


# ---------------------------------------------------------------------------------------- decide


class _Log(Log[State, Event]):
    """The events of one decision, folded as they are written; with the hand and options at hand."""

    def __init__(self, state: State) -> None:
        super().__init__(state, evolve)

    @property
    def playing(self) -> Playing:
        assert isinstance(self.state, Playing)
        return self.state

    @property
    def hand(self) -> Hand:
        return self.playing.hand

    @property
    def options(self) -> Options:
        return self.playing.table.options


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
        raise RuleViolation(errors.UNKNOWN_COMMAND, f"Wuhan mahjong has no {type(cmd).__name__} move.")
    if not isinstance(cmd, CloseClaims):
        errors.check_seat(cmd.seat, SEATS)
    log = _Log(playing)
    handler(log, cmd)
    return log.events


def _deal(state: State, cmd: StartHand | FixedDeal) -> list[Event]:
    table = PHASES.to_deal(state).table
    log = _Log(state)
    started: list[Event] = dealing.started(cmd, table.dealer, table.hands_played + 1, SEATS, DealerChosen, HandStarted)
    for ev in started:
        log.add(ev)
    roles = Roles(log.hand.wall.next_live())
    log.add(IndicatorTurned(roles.indicator, roles.laizi, roles.skins))
    return log.events


def _turn_of(log: _Log, seat: int) -> Turn | LastFour:
    turn = turn_of(log.hand.phase, seat, (Turn, LastFour), waiting="a tile")
    assert isinstance(turn, Turn | LastFour)  # what turn_of checked (mypy joins the tuple's types)
    return turn


def _normal_turn_of(log: _Log, seat: int, move: str) -> Turn:
    phase = _turn_of(log, seat)
    if isinstance(phase, LastFour):
        raise RuleViolation("last_four", f"On the last four draws you may only win by self-draw: no {move}.")
    return phase


def _holds(sh: SeatTiles, t: Tile) -> None:
    if not sh.concealed[t]:
        raise RuleViolation("tile_not_held", f"You do not hold {t}.")


def _discard(log: _Log, cmd: Discard) -> None:
    _normal_turn_of(log, cmd.seat, "discard")
    _holds(log.hand.seats[cmd.seat], cmd.tile)
    kong = kongs.laid_kong(cmd.tile, log.hand.roles)
    if kong is not None:
        _lay_out(log, cmd.seat, cmd.tile, kong, discarded=True)
        return
    log.add(TileDiscarded(cmd.seat, cmd.tile))
    options = claiming.discard_claims(log.hand, cmd.tile, cmd.seat, log.options)
    if options or _always(log):
        log.add(ClaimWindowOpened(cmd.tile, cmd.seat, tuple(sorted(options.items()))))
        return
    _draw_on(log, (cmd.seat + 1) % SEATS, from_tail=False)


def _lay_out(log: _Log, seat: int, t: Tile, kong: str, discarded: bool) -> None:
    log.add(LaidOut(seat, t, kong, discarded))
    _draw_on(log, seat, from_tail=True)


def _kong(log: _Log, cmd: Kong) -> None:
    phase = log.hand.phase
    if isinstance(phase, Claims | Robbing):
        if phase.window.tile != cmd.tile and claims.KONG in phase.window.options_of(cmd.seat):
            raise RuleViolation("wrong_tile", f"The tile to claim is {phase.window.tile}, not {cmd.tile}.")
        _answer(log, cmd.seat, claims.KONG)
        return
    _normal_turn_of(log, cmd.seat, "kong")
    sh = log.hand.seats[cmd.seat]
    _holds(sh, cmd.tile)
    kind = dict(kongs.turn_kongs(sh, log.hand.roles)).get(cmd.tile)
    if kind is None:
        raise RuleViolation("no_kong", f"You hold no four {cmd.tile} and no pong of it to add to.")
    if kind in (kongs.LAIZI_KONG, kongs.SKIN_KONG):
        _lay_out(log, cmd.seat, cmd.tile, kind, discarded=False)
        return
    log.add(Konged(cmd.seat, cmd.tile, kind, None))
    if kind == KONG_ADDED:
        robbers = claiming.robbers(log.hand, cmd.tile, cmd.seat, log.options)
        if robbers or _always(log):
            log.add(ClaimWindowOpened(cmd.tile, cmd.seat, tuple(sorted(robbers.items())), robbing=True))
            return
    _draw_on(log, cmd.seat, from_tail=True)


def _win(log: _Log, cmd: Win) -> None:
    phase = log.hand.phase
    if isinstance(phase, Claims | Robbing):
        if claims.WIN not in phase.window.options_of(cmd.seat):
            _refuse_claimed_win(log, cmd.seat, phase)
        _answer(log, cmd.seat, claims.WIN)
        return
    last = log.hand.last_discard
    if phase.seat != cmd.seat and last is not None and last[0] != cmd.seat:
        # A win called on a discard that opened no window: say why it cannot be won on.
        laid = kongs.laid_kong(last[1], log.hand.roles)
        if laid is not None:  # never a discard: laying it out is a kong of its own
            shown = "赖子" if laid == kongs.LAIZI_KONG else "skin"
            raise RuleViolation("cannot_win", f"You cannot win on {last[1]}: a laid-out {shown} is no discard, nobody may claim it.")
        won = judge_in(log.hand, cmd.seat, Way(DISCARD), log.options, tile=last[1], source=last[0])
        if isinstance(won, Refusal):
            raise RuleViolation(won.code, f"You cannot win on {last[1]}: {won.message}")
    turn = _turn_of(log, cmd.seat)
    if turn.source in (DEAL, CLAIMED) or turn.drawn is None:
        raise RuleViolation("nothing_to_win_on", "You have not drawn a tile to win with.")
    won = judge_in(log.hand, cmd.seat, _self_draw_way(turn), log.options)
    if isinstance(won, Refusal):
        raise RuleViolation(won.code, won.message)
    _end(log, SELF_DRAW, won, tile=turn.drawn)


def _self_draw_way(turn: Turn | LastFour) -> Way:
    return Way(SELF_DRAW, kong_replacement=turn.source == REPLACEMENT, last_four=isinstance(turn, LastFour))


def _refuse_claimed_win(log: _Log, seat: int, phase: Claims | Robbing) -> None:
    """Raise the reason `seat` may not win on the tile of the open window."""
    window = phase.window
    if any(s == seat for s, _ in window.answers):
        raise RuleViolation("already_answered", "You have already answered this tile.")
    if seat == window.source:
        raise RuleViolation("own_tile", "You cannot win on your own tile.")
    way = Way(ROBBED_KONG if isinstance(phase, Robbing) else DISCARD)
    won = judge_in(log.hand, seat, way, log.options, tile=window.tile, source=window.source)
    if isinstance(won, Refusal):
        raise RuleViolation(won.code, won.message)
    raise RuleViolation("cannot_win", f"You cannot win on {window.tile} now.")


def _pong(log: _Log, cmd: Pong) -> None:
    phase = log.hand.phase
    if not isinstance(phase, Claims):
        raise RuleViolation("nothing_to_claim", "There is no discard to pong now.")
    if phase.window.tile != cmd.tile:
        raise RuleViolation("wrong_tile", f"The tile to claim is {phase.window.tile}, not {cmd.tile}.")
    _answer(log, cmd.seat, claims.PONG)


def _chow(log: _Log, cmd: Chow) -> None:
    phase = log.hand.phase
    if not isinstance(phase, Claims):
        raise RuleViolation("nothing_to_claim", "There is no discard to chow now.")
    window = phase.window
    if claims.CHOW in window.options_of(cmd.seat):
        lows = claiming.chow_lows(log.hand.seats[cmd.seat], window.tile, log.hand.roles)
        if cmd.low not in lows:
            runs = ", ".join(format_tiles((t, t + 1, t + 2)) for t in lows)
            raise RuleViolation("bad_chow", f"You cannot chow {window.tile} into the run from {cmd.low}; you can make {runs}.")
    elif cmd.seat != (window.source + 1) % SEATS and not any(s == cmd.seat for s, _ in window.answers):
        raise RuleViolation("cannot_chow", "Only the next player may chow a discard.")
    _answer(log, cmd.seat, claims.CHOW, chow_low=cmd.low)


def _pass(log: _Log, cmd: Pass) -> None:
    phase = log.hand.phase
    if isinstance(phase, LastFour):
        _turn_of(log, cmd.seat)
        _next_last_draw(log, cmd.seat)
        return
    _answer(log, cmd.seat, claims.PASS)


_REFUSAL = {
    claims.PONG: ("cannot_pong", "You cannot pong {tile}: it takes two of it in your hand."),
    claims.KONG: ("cannot_kong", "You cannot kong {tile}: it takes three of it in your hand."),
    claims.CHOW: ("cannot_chow", "You cannot chow {tile}: it takes two tiles of a run with it (no 赖子, no skin)."),
}


def _refused(claim: str, tile: Tile) -> RuleViolation:
    code, text = _REFUSAL.get(claim, ("cannot_claim", "You cannot claim {tile} that way."))
    return RuleViolation(code, text.format(tile=tile))


def _always(log: _Log) -> bool:
    """Whether this table opens a window after every discard (engine.mahjong.claims)."""
    return log.options.claim_window == claims.WINDOW_ALWAYS


def _close_claims(log: _Log, cmd: CloseClaims) -> None:
    phase = log.hand.phase
    if not isinstance(phase, Claims | Robbing) or not phase.window.decided(claiming.PRIORITY):
        raise RuleViolation("nothing_to_close", "No claim window is waiting to be closed.")
    _resolve(log, phase)


def _answer(log: _Log, seat: int, claim: str, chow_low: Tile | None = None) -> None:
    phase = log.hand.phase
    if not isinstance(phase, Claims | Robbing):
        raise RuleViolation("nothing_to_claim", "There is nothing to claim or pass on now.")
    window = phase.window
    if any(s == seat for s, _ in window.answers):
        raise RuleViolation("already_answered", "You have already answered this tile.")
    if not claims.to_record(window, seat, claim, _always(log), _refused,
                            paced=claims.minimum_ms(log.options) > 0):
        return
    log.add(ClaimAnswered(seat, claim) if chow_low is None else ChowClaimed(seat, chow_low))
    window = log.hand.phase.window  # type: ignore[union-attr]
    if window.decided(claiming.PRIORITY) and not _always(log):  # else the table's own step (follow_up)
        _resolve(log, log.hand.phase)  # type: ignore[arg-type]


def _resolve(log: _Log, phase: Claims | Robbing) -> None:
    window = phase.window
    robbing = isinstance(phase, Robbing)
    taken = window.winners(claiming.PRIORITY)
    if not taken:
        if robbing:
            _draw_on(log, window.source, from_tail=True)
        else:
            _draw_on(log, (window.source + 1) % SEATS, from_tail=False)
        return
    seat, claim = taken[0]
    if claim == claims.WIN:
        if robbing:
            log.add(KongRobbed(window.source, window.tile, seat))
            won = judge_in(log.hand, seat, Way(ROBBED_KONG), log.options, source=window.source)
        else:
            won = judge_in(log.hand, seat, Way(DISCARD), log.options, tile=window.tile, source=window.source)
        assert isinstance(won, Settlement), "the window offered a win the rules refuse"
        _end(log, ROBBED_KONG if robbing else DISCARD, won, tile=window.tile, source=window.source)
    elif claim == claims.PONG:
        log.add(Ponged(seat, window.tile, window.source))
    elif claim == claims.KONG:
        log.add(Konged(seat, window.tile, KONG_EXPOSED, window.source))
        _draw_on(log, seat, from_tail=True)
    else:
        assert isinstance(phase, Claims) and phase.chow_low is not None
        log.add(Chowed(seat, phase.chow_low, window.tile, window.source))


def _draw_on(log: _Log, seat: int, from_tail: bool) -> None:
    """`seat` draws (a replacement from the tail, or the next live tile). A last-four draw that
    cannot win passes on to the next seat by itself; when no live tile is left the hand is drawn."""
    wall = log.hand.wall
    if wall.live <= 0:
        _end(log, None, None)
        return
    t = wall.next_replacement() if from_tail else wall.next_live()
    log.add(TileDrawn(seat, t, from_tail))
    phase = log.hand.phase
    if isinstance(phase, LastFour) and isinstance(judge_in(log.hand, seat, _self_draw_way(phase), log.options), Refusal):
        _next_last_draw(log, seat)


def _next_last_draw(log: _Log, seat: int) -> None:
    _draw_on(log, (seat + 1) % SEATS, from_tail=False)


def _end(log: _Log, how: str | None, won: Settlement | None, tile: Tile | None = None, source: int | None = None) -> None:
    state = log.playing
    table, hand = state.table, state.hand
    options = table.options
    winner = None if won is None else won.winner
    dealer, passes = hand.dealer, table.passes
    if winner is not None and winner != hand.dealer:
        dealer, passes = (dealer + 1) % SEATS, passes + 1
    log.add(
        HandEnded(
            outcome=DRAW if how is None else OUTCOME[how],
            deltas=(0,) * SEATS if won is None else won.deltas,
            next_dealer=dealer,
            passes=passes,
            order=hand.wall.order,
            salt=hand.salt,
            hands=tuple(from_counts(sh.concealed) for sh in hand.seats),
            concealed_kongs=tuple(
                tuple(m.tile for m in sh.melds if m.kind == KONG_CONCEALED and m.tile is not None) for sh in hand.seats
            ),
            seed=hand.seed,
            winner=winner,
            tile=tile,
            source=source,
            settlement=won,
        )
    )
    if passes >= SEATS * options.rounds_per_match:
        assert isinstance(log.state, BetweenHands)
        log.add(MatchEnded(log.state.table.scores))


_COMMANDS: dict[type, Callable[[_Log, Any], None]] = {
    Discard: _discard,
    Chow: _chow,
    Pong: _pong,
    Kong: _kong,
    Win: _win,
    Pass: _pass,
    CloseClaims: _close_claims,
}
