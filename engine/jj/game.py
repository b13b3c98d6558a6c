"""decide and evolve: the jj table as an event-sourced state machine.

`decide` validates a command and returns the events it causes, playing on through everything that
follows without a choice (补花, the next draw, a locked hand's automatic discard, the end of the
hand), folding its own events as it goes so decide and evolve never disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core import errors, payments
from engine.core.contract import HandResult, StartHand
from engine.core.errors import RuleViolation
from engine.core.frozen import replace
from engine.core.log import Log
from engine.core.shuffle import commitment, derived_rng, seeded_shuffle
from engine.jj import claiming, hun, scoring, situation
from engine.jj.commands import Command, FixedDeal
from engine.jj.events import (
    ChowClaimed,
    Chowed,
    ClaimWindowOpened,
    DealFinished,
    Event,
    FlowerShown,
    HandEnded,
    HandStarted,
    MatchEnded,
    ReadyDeclared,
    TableCreated,
    Won,
)
from engine.jj.options import Options
from engine.jj.state import (
    CLAIMED,
    DEAL,
    FLOWER,
    PHASES,
    REPLACEMENT,
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
from engine.jj.winning import Scored
from engine.mahjong import claims
from engine.mahjong.actions import (
    Chow,
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
from engine.mahjong.melds import KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, PONG, Meld
from engine.mahjong.phases import turn_of
from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import FLOWERS, FULL_SET, Tile, from_counts, is_flower, parse_tile, tile
from engine.mahjong.wall import Wall, deal, dealt_count, roll_for_dealer

DECK = FULL_SET + FLOWERS

# ---------------------------------------------------------------------------------------- evolve


def evolve(state: State, ev: Event) -> State:
    """Apply one event (total: events come from decide, or a log decide wrote)."""
    return _EVOLVE[type(ev)](state, ev)


def _hand(state: Playing, **changes: Any) -> Playing:
    return Playing(state.table, state.hand.but(**changes))


def _seat(hand: Hand, s: int, sh: SeatTiles) -> tuple[SeatTiles, ...]:
    return hand.seats[:s] + (sh,) + hand.seats[s + 1 :]


def _bump(values: tuple[Any, ...], s: int, value: Any) -> tuple[Any, ...]:
    return values[:s] + (value,) + values[s + 1 :]


def _on_created(state: State, ev: TableCreated) -> State:
    return BetweenHands(Table(ev.table_id, ev.options))


def _on_started(state: BetweenHands, ev: HandStarted) -> State:
    assert ev.order is not None and ev.salt is not None
    wall = Wall(ev.order, front=dealt_count(SEATS), back=len(ev.turned))
    seats = tuple(SeatTiles.dealt(d) for d in ev.dealt)
    hand = Hand(ev.number, ev.dealer, wall, seats, Turn(ev.dealer, None, DEAL), ev.salt, ev.wild, ev.indicator, ev.seed,
                turned=ev.turned)
    return Playing(replace(state.table, dealer=ev.dealer), hand)


def _on_flower(state: Playing, ev: FlowerShown) -> State:
    hand = state.hand
    return _hand(state, flowers=_bump(hand.flowers, ev.seat, (*hand.flowers[ev.seat], ev.flower)), flower_shown=True)


def _on_drawn(state: Playing, ev: TileDrawn) -> State:
    hand = state.hand
    assert ev.tile is not None
    wall = hand.wall.drawn(ev.from_tail)
    if is_flower(ev.tile):  # laid out by the FlowerShown that follows
        return _hand(state, wall=wall)
    seats = _seat(hand, ev.seat, hand.seats[ev.seat].drew(ev.tile))
    if hand.dealing:
        return _hand(state, wall=wall, seats=seats, flower_shown=False)
    source = (FLOWER if hand.flower_shown else REPLACEMENT) if ev.from_tail else WALL
    return _hand(state, wall=wall, seats=seats, phase=Turn(ev.seat, ev.tile, source, wall.live <= 0), flower_shown=False)


def _on_deal_finished(state: Playing, ev: DealFinished) -> State:
    return _hand(state, dealing=False)


def _on_discarded(state: Playing, ev: TileDiscarded) -> State:
    hand = state.hand
    return _hand(
        state,
        seats=_seat(hand, ev.seat, hand.seats[ev.seat].discarded(ev.tile)),
        discards=_bump(hand.discards, ev.seat, hand.discards[ev.seat] + 1),
    )


def _on_ready(state: Playing, ev: ReadyDeclared) -> State:
    hand = state.hand
    return _hand(
        state,
        seats=_seat(hand, ev.seat, hand.seats[ev.seat].discarded(ev.tile)),
        discards=_bump(hand.discards, ev.seat, hand.discards[ev.seat] + 1),
        ready=_bump(hand.ready, ev.seat, True),
        heavenly_ready=_bump(hand.heavenly_ready, ev.seat, ev.heavenly),
    )


def _on_window(state: Playing, ev: ClaimWindowOpened) -> State:
    window = claims.ClaimWindow(ev.tile, ev.source, SEATS, ev.options)
    return _hand(state, phase=Robbing(window) if ev.robbing else Claims(window))


def _on_answered(state: Playing, ev: ClaimAnswered | ChowClaimed) -> State:
    phase = state.hand.phase
    assert isinstance(phase, Claims | Robbing)
    if isinstance(ev, ChowClaimed):
        return _hand(state, phase=type(phase)(phase.window.answered(ev.seat, claims.CHOW), ev.low))
    return _hand(state, phase=type(phase)(phase.window.answered(ev.seat, ev.claim), phase.chow_low))


def _taken(hand: Hand, source: int) -> tuple[SeatTiles, ...]:
    return _seat(hand, source, hand.seats[source].lost_last_discard())


def _claimed(state: Playing, source: int) -> Hand:
    """The hand once a pong or chow took `source`'s latest discard: off its river, unless the
    table was recorded before that rule (options.claimed_tile_leaves_river 0), where it stayed."""
    hand = state.hand
    if not state.table.options.claimed_tile_leaves_river:
        return hand
    return replace(hand, seats=_taken(hand, source))


def _on_ponged(state: Playing, ev: Ponged) -> State:
    hand = _claimed(state, ev.source)
    seats = _seat(hand, ev.seat, hand.seats[ev.seat].ponged(ev.tile, ev.source))
    return _hand(state, seats=seats, phase=Turn(ev.seat, None, CLAIMED), claimed=True)


def _on_chowed(state: Playing, ev: Chowed) -> State:
    hand = _claimed(state, ev.source)
    sh = hand.seats[ev.seat].chowed(ev.low, ev.tile, ev.source)
    return _hand(state, seats=_seat(hand, ev.seat, sh), phase=Turn(ev.seat, None, CLAIMED), claimed=True)


def _on_konged(state: Playing, ev: Konged) -> State:
    hand = state.hand
    assert ev.tile is not None
    seats = hand.seats
    if ev.kind == KONG_EXPOSED:
        assert ev.source is not None
        seats = _taken(hand, ev.source)
    seats = _seat(replace(hand, seats=seats), ev.seat, seats[ev.seat].konged(ev.tile, ev.kind, ev.source))
    return _hand(
        state,
        seats=seats,
        claimed=True,
        dealer_konged=hand.dealer_konged or situation.dealer_konged(ev.kind, ev.seat, hand),
        phase=Turn(ev.seat, None, CLAIMED),
    )


def _on_won(state: Playing, ev: Won) -> State:
    hand = state.hand
    seats = hand.seats
    if ev.how == situation.DISCARD and ev.source is not None:
        seats = _taken(hand, ev.source)
        seats = _seat(replace(hand, seats=seats), ev.seat, seats[ev.seat].drew(ev.tile))
    elif ev.how == situation.ROBBED_KONG and ev.source is not None:
        robbed = seats[ev.source]
        melds = tuple(Meld(PONG, m.tile, m.source) if m.kind == KONG_ADDED and m.tile == ev.tile else m for m in robbed.melds)
        seats = _seat(hand, ev.source, SeatTiles(robbed.concealed, melds, robbed.river, robbed.ready_at, robbed.waits))
        seats = _seat(replace(hand, seats=seats), ev.seat, seats[ev.seat].drew(ev.tile))
    return _hand(
        state,
        seats=seats,
        won=(*hand.won, ev.seat),
        deltas=tuple(a + b for a, b in zip(hand.deltas, ev.deltas, strict=True)),
        payments=hand.payments + ev.payments,
        first_winner=ev.seat if hand.first_winner is None else hand.first_winner,
        fans=hand.fans + ev.scored.total,
    )


def _on_ended(state: Playing, ev: HandEnded) -> State:
    t = state.table
    table = replace(
        t,
        scores=tuple(a + b for a, b in zip(t.scores, ev.deltas, strict=True)),
        dealer=ev.next_dealer,
        passes=ev.passes,
        hands_played=t.hands_played + 1,
        result=HandResult(ev.outcome, ev.points, ev.deltas, payments=tuple(
            payments.Payment(p.payer, p.payee, p.points, p.reason) for p in state.hand.payments)),
    )
    return BetweenHands(table)


def _on_match_ended(state: BetweenHands, ev: MatchEnded) -> State:
    return MatchOver(state.table)


_EVOLVE: dict[type, Callable[[Any, Any], State]] = {
    TableCreated: _on_created,
    HandStarted: _on_started,
    FlowerShown: _on_flower,
    TileDrawn: _on_drawn,
    DealFinished: _on_deal_finished,
    TileDiscarded: _on_discarded,
    ReadyDeclared: _on_ready,
    ClaimWindowOpened: _on_window,
    ClaimAnswered: _on_answered,
    ChowClaimed: _on_answered,
    Ponged: _on_ponged,
    Chowed: _on_chowed,
    Konged: _on_konged,
    Won: _on_won,
    HandEnded: _on_ended,
    MatchEnded: _on_match_ended,
}


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


def round_wind(table: Table) -> int:
    """东风圈 for the first four dealerships, then 南, 西, 北."""
    return table.passes // SEATS % 4


def deck_order(options: Options, seed: bytes) -> tuple[str, ...]:
    """The wall's order a StartHand with `seed` builds, as notation tokens."""
    return tuple(str(t) for t in seeded_shuffle(DECK, seed))


def create(table_id: str, options: Options) -> list[Event]:
    """The creation event, recording the options."""
    return [TableCreated(table_id, options)]


def decide(state: State, cmd: Command) -> list[Event]:
    """The events `cmd` causes, or RuleViolation with a stable code and a player's sentence."""
    if isinstance(cmd, StartHand | FixedDeal):
        return _deal(state, cmd)
    playing = PHASES.to_move(state)
    if isinstance(cmd, CloseClaims):
        log = _Log(playing)
        _close_claims(log)
        return log.events
    handler = _COMMANDS.get(type(cmd))
    if handler is None:
        raise RuleViolation(errors.UNKNOWN_COMMAND, f"jj has no {type(cmd).__name__} move.")
    errors.check_seat(cmd.seat, SEATS)
    if not claiming.in_hand(playing.hand, cmd.seat):
        raise RuleViolation("already_won", "You have won this hand; the others play on.")
    log = _Log(playing)
    handler(log, cmd)
    return log.events


def wild_of(options: Options, indicator: Tile | None) -> Tile | None:
    if options.wild == "none":
        return None
    if options.wild.startswith("fixed:"):
        return parse_tile(options.wild[6:])
    assert indicator is not None
    return hun.wild_after(indicator)


def _deal(state: State, cmd: StartHand | FixedDeal) -> list[Event]:
    between = PHASES.to_deal(state)
    log = _Log(between)
    table = between.table
    options = table.options
    dealer = table.dealer
    if isinstance(cmd, FixedDeal):
        if dealer is not None and dealer != cmd.dealer:
            raise RuleViolation("wrong_dealer", f"Seat {table.dealer} deals this hand, not seat {cmd.dealer}.")
        if sorted(cmd.order) != sorted(DECK):
            raise RuleViolation(errors.BAD_DEAL, "A fixed deal must stack all 136 tiles and 4 flowers exactly once.")
        dealer, order, seed = cmd.dealer, tuple(cmd.order), None
    else:
        if dealer is None:
            dealer = roll_for_dealer(derived_rng(cmd.seed, "dealer"), SEATS)[1]
        order, seed = seeded_shuffle(DECK, cmd.seed), cmd.seed
    turned: tuple[Tile, ...] = ()
    indicator = None
    if options.wild == "indicator":
        # Turned over at the tail; a flower met first goes out of play with the indicator.
        i = len(order) - 1
        while is_flower(order[i]):
            i -= 1
        indicator = order[i]
        turned = tuple(reversed(order[i:]))
    log.add(
        HandStarted(
            number=table.hands_played + 1,
            dealer=dealer,
            commitment=commitment([str(t) for t in order], cmd.salt),
            dealt=deal(order, dealer, SEATS),
            indicator=indicator,
            wild=wild_of(options, indicator),
            turned=turned,
            order=order,
            seed=seed,
            salt=cmd.salt,
        )
    )
    dealt = deal(order, dealer, SEATS)
    for i in range(SEATS):
        seat = (dealer + i) % SEATS
        for f in (t for t in dealt[seat] if is_flower(t)):
            log.add(FlowerShown(seat, f))
            _replace_flower(log, seat)
    log.add(DealFinished())
    return log.events


def _replace_flower(log: _Log, seat: int) -> None:
    """Draw from the tail until the tile is not a flower (each flower laid out in turn)."""
    while True:
        t = log.hand.wall.next_replacement()
        log.add(TileDrawn(seat, t, from_tail=True))
        if not is_flower(t):
            return
        log.add(FlowerShown(seat, t))


def _turn_of(log: _Log, seat: int) -> Turn:
    return turn_of(log.hand.phase, seat, Turn)


def _discardable(log: _Log, seat: int, tile: Tile, turn: Turn) -> None:
    hand = log.hand
    if not hand.seats[seat].concealed[tile]:
        raise RuleViolation("tile_not_held", f"You do not hold {tile}.")
    if tile == hand.wild:
        raise RuleViolation("wild_not_discardable", f"{tile} is 混 this hand: it cannot be discarded.")
    if hand.ready[seat] and tile not in locked_discards(hand, seat, turn):
        raise RuleViolation("hand_locked", f"Your hand is locked after declaring ready: you can only discard {turn.drawn}.")


def _discard(log: _Log, cmd: Discard) -> None:
    turn = _turn_of(log, cmd.seat)
    _discardable(log, cmd.seat, cmd.tile, turn)
    log.add(TileDiscarded(cmd.seat, cmd.tile))
    _after_discard(log, cmd.seat, cmd.tile)


def locked_discards(hand: Hand, seat: int, turn: Turn) -> tuple[Tile, ...]:
    """What a locked (报听) hand may discard: the tile it drew; but a drawn 混 cannot be
    discarded, so then any tile that keeps the hand ready (any natural tile if none does)."""
    if turn.drawn is not None and turn.drawn != hand.wild:
        return (turn.drawn,)
    held = [tile(t) for t, n in enumerate(hand.seats[seat].concealed) if n and t != hand.wild]
    return tuple(t for t in held if ready_after(hand, seat, t)) or tuple(held)


def ready_after(hand: Hand, seat: int, tile: int) -> bool:
    """Whether discarding `tile` leaves the hand one tile from a winning shape."""
    sh = hand.seats[seat]
    c = list(sh.concealed)
    c[tile] -= 1
    naturals, wilds = hun.split(c, hand.wild)
    return wilds < 4 and hun.shape_wins(naturals, wilds + 1, len(sh.melds))


def _declare_ready(log: _Log, cmd: DeclareReady) -> None:
    turn = _turn_of(log, cmd.seat)
    hand = log.hand
    if not log.options.allow_declare_ready:
        raise RuleViolation("no_declare_ready", "This table plays without 报听.")
    if hand.ready[cmd.seat]:
        raise RuleViolation("already_ready", "You have already declared ready.")
    _discardable(log, cmd.seat, cmd.tile, turn)
    if not ready_after(hand, cmd.seat, cmd.tile):
        raise RuleViolation("not_ready_after_discard", f"Without {cmd.tile} your hand would not be one tile from winning.")
    heavenly = hand.discards[cmd.seat] == 0 and not hand.claimed
    log.add(ReadyDeclared(cmd.seat, cmd.tile, heavenly))
    _after_discard(log, cmd.seat, cmd.tile)


def _win(log: _Log, cmd: Win) -> None:
    phase = log.hand.phase
    if isinstance(phase, Claims | Robbing):
        if claims.WIN not in phase.window.options_of(cmd.seat):
            raise RuleViolation("cannot_win", f"{phase.window.tile} does not win for you (a winning hand of {log.options.min_fan}+ fans).")
        _answer(log, cmd.seat, claims.WIN)
        return
    turn = _turn_of(log, cmd.seat)
    scored = situation.self_win(log.hand, turn, log.options, round_wind(log.playing.table))
    if scored is None:
        raise RuleViolation("not_a_winning_hand", f"Your hand does not win with {log.options.min_fan}+ fans.")
    tile = turn.drawn if turn.drawn is not None else scored.win_as
    _settle(log, cmd.seat, situation.SELF_DRAW, tile, None, scored)


def _kong(log: _Log, cmd: Kong) -> None:
    phase = log.hand.phase
    if isinstance(phase, Claims | Robbing):
        if phase.window.tile != cmd.tile:
            raise RuleViolation("wrong_tile", f"The tile to claim is {phase.window.tile}, not {cmd.tile}.")
        _answer(log, cmd.seat, claims.KONG)
        return
    _turn_of(log, cmd.seat)
    kinds = dict(claiming.turn_kongs(log.hand, cmd.seat))
    kind = kinds.get(cmd.tile)
    if kind is None:
        raise RuleViolation("no_kong", f"You cannot kong {cmd.tile} now.")
    log.add(Konged(cmd.seat, cmd.tile, kind, None))
    if kind == KONG_ADDED:
        robbers = _winners_on(log, cmd.tile, cmd.seat, robbing=True)
        if robbers or _always(log):
            options = tuple(sorted((s, (claims.WIN,)) for s in robbers))
            log.add(ClaimWindowOpened(cmd.tile, cmd.seat, options, robbing=True))
            return
    _draw_on(log, cmd.seat, from_tail=True)


def _pong(log: _Log, cmd: Pong) -> None:
    phase = log.hand.phase
    if not isinstance(phase, Claims) or phase.window.tile != cmd.tile:
        raise RuleViolation("nothing_to_claim", f"There is no discard of {cmd.tile} to pong now.")
    _answer(log, cmd.seat, claims.PONG)


def _chow(log: _Log, cmd: Chow) -> None:
    phase = log.hand.phase
    if not isinstance(phase, Claims):
        raise RuleViolation("nothing_to_claim", "There is no discard to chow now.")
    if claims.CHOW not in phase.window.options_of(cmd.seat):
        raise RuleViolation("cannot_chow", f"You cannot chow {phase.window.tile}.")
    if cmd.low not in claiming.chows(log.hand.seats[cmd.seat], phase.window.tile, log.hand.wild):
        raise RuleViolation("cannot_chow", f"{phase.window.tile} does not make a run from {cmd.low} with your tiles (混 cannot be used).")
    log.add(ChowClaimed(cmd.seat, cmd.low))
    if not _always(log):  # else the table's own step resolves the window (follow_up)
        _resolve_if_decided(log)


def _pass(log: _Log, cmd: Pass) -> None:
    _answer(log, cmd.seat, claims.PASS)


def _always(log: _Log) -> bool:
    """Whether this table opens a window after every discard (engine.mahjong.claims)."""
    return log.options.claim_window == claims.WINDOW_ALWAYS


def _close_claims(log: _Log) -> None:
    phase = log.hand.phase
    if not isinstance(phase, Claims | Robbing) or not phase.window.decided():
        raise RuleViolation("nothing_to_close", "No claim window is waiting to be closed.")
    _resolve_if_decided(log)


def _answer(log: _Log, seat: int, claim: str) -> None:
    phase = log.hand.phase
    if not isinstance(phase, Claims | Robbing):
        raise RuleViolation("nothing_to_claim", "There is nothing to claim or pass on now.")
    window = phase.window
    if not claims.to_record(window, seat, claim, _always(log), _refused, unasked=" (or you already answered)",
                            paced=claims.minimum_ms(log.options) > 0):
        return
    log.add(ClaimAnswered(seat, claim))
    if not _always(log):  # else the table's own step resolves the window (follow_up)
        _resolve_if_decided(log)


def _refused(claim: str, tile: Tile) -> RuleViolation:
    return RuleViolation(f"cannot_{claim}", f"You cannot {claim} {tile}.")


def _resolve_if_decided(log: _Log) -> None:
    phase = log.hand.phase
    assert isinstance(phase, Claims | Robbing)
    window = phase.window
    if not window.decided():
        return
    taken = window.winners()
    robbing = isinstance(phase, Robbing)
    if not taken:
        if robbing:
            _draw_on(log, window.source, from_tail=True)
        else:
            _play_on(log, window.source)
        return
    seat, claim = taken[0]
    if claim == claims.WIN:
        scored = _discard_scored(log, seat, window.tile, window.source, robbing)
        assert scored is not None
        how = situation.ROBBED_KONG if robbing else situation.DISCARD
        _settle(log, seat, how, window.tile, window.source, scored)
    elif claim == claims.PONG:
        log.add(Ponged(seat, window.tile, window.source))
    elif claim == claims.CHOW:
        assert phase.chow_low is not None
        log.add(Chowed(seat, phase.chow_low, window.tile, window.source))
    else:
        log.add(Konged(seat, window.tile, KONG_EXPOSED, window.source))
        _draw_on(log, seat, from_tail=True)


def _discard_scored(log: _Log, seat: int, tile: Tile, source: int, robbing: bool) -> Scored | None:
    return situation.discard_win(log.hand, seat, tile, source, log.options, round_wind(log.playing.table), robbing)


def _winners_on(log: _Log, tile: Tile, source: int, robbing: bool = False) -> list[int]:
    wind = round_wind(log.playing.table)
    return [
        s for s in range(SEATS)
        if s != source
        and claiming.in_hand(log.hand, s)
        and situation.can_discard_win(log.hand, s, tile, source, log.options, wind, robbing)
    ]


def _after_discard(log: _Log, seat: int, tile: Tile) -> None:
    """Open the claim window on a discard, or play on."""
    can_win = {s: True for s in _winners_on(log, tile, seat)}
    options = claiming.discard_claims(log.hand, tile, seat, can_win)
    if options or _always(log):
        log.add(ClaimWindowOpened(tile, seat, tuple(sorted(options.items()))))
        return
    _play_on(log, seat)


def _play_on(log: _Log, after: int) -> None:
    """The next seat still in the hand draws; 荒庄 when the wall is out."""
    if log.hand.wall.live <= 0:
        _end(log)
        return
    _draw_on(log, claiming.next_in_hand(log.hand, after), from_tail=False)


def _draw_on(log: _Log, seat: int, from_tail: bool) -> None:
    """`seat` draws (补花 as needed); a locked hand that cannot win discards the tile by itself."""
    while True:
        wall = log.hand.wall
        if wall.live <= 0:
            _end(log)
            return
        t = wall.next_replacement() if from_tail else wall.next_live()
        log.add(TileDrawn(seat, t, from_tail))
        if is_flower(t):
            log.add(FlowerShown(seat, t))
            from_tail = True
            continue
        turn = log.hand.phase
        assert isinstance(turn, Turn)
        if not log.hand.ready[seat] or t == log.hand.wild:
            return
        if situation.can_self_win(log.hand, turn, log.options, round_wind(log.playing.table)):
            return
        log.add(TileDiscarded(seat, t, auto=True))
        can_win = {s: True for s in _winners_on(log, t, seat)}
        options = claiming.discard_claims(log.hand, t, seat, can_win)
        if options or _always(log):
            log.add(ClaimWindowOpened(t, seat, tuple(sorted(options.items()))))
            return
        if log.hand.wall.live <= 0:
            _end(log)
            return
        seat, from_tail = claiming.next_in_hand(log.hand, seat), False


def _settle(log: _Log, seat: int, how: str, tile: Tile, source: int | None, scored: Scored) -> None:
    hand = log.hand
    options = log.options
    exact = scoring.score(scored.total, options.base, how == situation.SELF_DRAW, options.mode)
    fed_by = tuple(m.source for m in hand.seats[seat].melds if m.kind != KONG_CONCEALED and m.source is not None)
    payers = []
    s = seat
    for _ in range(SEATS - 1):
        s = (s + 1) % SEATS
        if claiming.in_hand(hand, s):
            payers.append(s)
    discarder = None if how == situation.SELF_DRAW else source
    pays = scoring.payments(exact, seat, discarder, fed_by, payers, options.mode, bool(options.each_payment_rounded))
    concealed = list(hand.seats[seat].concealed)
    if how != situation.SELF_DRAW:
        concealed[tile] += 1
    log.add(Won(seat, how, tile, source, scored, pays, scoring.deltas(pays, SEATS), from_counts(concealed)))
    hand = log.hand
    if not options.xuezhan or len(hand.won) == SEATS - 1:
        _end(log)
    else:  # 血战: the others play on from the seat after the winner
        _play_on(log, seat)


def _end(log: _Log) -> None:
    state = log.playing
    table, hand = state.table, state.hand
    dealer, passes = hand.dealer, table.passes
    if hand.first_winner is not None and hand.first_winner != hand.dealer:
        dealer, passes = (dealer + 1) % SEATS, passes + 1
    outcome = "draw"
    if hand.won:
        outcome = "xuezhan" if table.options.xuezhan else _how_of(log)
    log.add(
        HandEnded(
            outcome=outcome,
            deltas=hand.deltas,
            next_dealer=dealer,
            passes=passes,
            order=hand.wall.order,
            salt=hand.salt,
            hands=tuple(from_counts(sh.concealed) for sh in hand.seats),
            seed=hand.seed,
            points=hand.fans,
        )
    )
    if passes >= SEATS * table.options.rounds_per_match:
        log.add(MatchEnded(log.state.table.scores))  # type: ignore[union-attr]


def _how_of(log: _Log) -> str:
    for ev in reversed(log.events):
        if isinstance(ev, Won):
            return ev.how
    return situation.SELF_DRAW


_COMMANDS: dict[type, Callable[[_Log, Any], None]] = {
    Discard: _discard,
    DeclareReady: _declare_ready,
    Win: _win,
    Kong: _kong,
    Pong: _pong,
    Chow: _chow,
    Pass: _pass,
}
