"""What a seat may do now (legal_actions) and what auto-play does for it on time-out (deadline).

托管 takes every win it may (fans only count what the hand holds, never waiting), passes every
claim, and otherwise discards the tile just drawn (or, after a claim, its highest tile that is
not 混), never declaring ready on the player's behalf.
"""

from __future__ import annotations

from typing import Any

from engine.core.contract import Deadline
from engine.jj import claiming, hun, situation
from engine.jj.game import locked_discards, ready_after, round_wind
from engine.jj.state import Claims, Playing, Robbing, State, Turn
from engine.mahjong import claims
from engine.mahjong.actions import CloseClaims, DeclareReady, Discard, Kong, Pass, Win
from engine.mahjong.tiles import tile


def _can_self_win(state: Playing, phase: Turn) -> bool:
    return situation.can_self_win(state.hand, phase, state.table.options, round_wind(state.table))


def legal_actions(state: State, seat: int) -> list[Any]:
    """Every command `seat` may send now, each once."""
    if not isinstance(state, Playing):
        return []
    hand = state.hand
    phase = hand.phase
    if isinstance(phase, Turn):
        if phase.seat != seat:
            return []
        acts: list[Any] = []
        if _can_self_win(state, phase):
            acts.append(Win(seat))
        sh = hand.seats[seat]
        if hand.ready[seat]:
            acts.extend(Discard(seat, t) for t in locked_discards(hand, seat, phase))
            return acts
        acts.extend(Kong(seat, t) for t, _ in claiming.turn_kongs(hand, seat))
        held = [tile(t) for t, n in enumerate(sh.concealed) if n and t != hand.wild]
        acts.extend(Discard(seat, t) for t in held)
        naturals, wilds = claiming.naturals_of(sh, hand.wild)
        if state.table.options.allow_declare_ready and hun.could_be_ready(naturals, wilds, len(sh.melds)):
            acts.extend(DeclareReady(seat, t) for t in held if ready_after(hand, seat, t))
        return acts
    window = phase.window
    return list(claims.answers(window, seat, lambda: claiming.chows(hand.seats[seat], window.tile, hand.wild)))


def default_action(state: Playing, seat: int) -> Any:
    """What auto-play sends for `seat` (see the module docstring)."""
    hand = state.hand
    phase = hand.phase
    if isinstance(phase, Claims | Robbing):
        return Win(seat) if claims.WIN in phase.window.options_of(seat) else Pass(seat)
    if _can_self_win(state, phase):
        return Win(seat)
    if hand.ready[seat]:
        return Discard(seat, locked_discards(hand, seat, phase)[0])
    if phase.drawn is not None and phase.drawn != hand.wild:
        return Discard(seat, phase.drawn)
    c = hand.seats[seat].concealed
    return Discard(seat, tile(max(t for t, n in enumerate(c) if n and t != hand.wild)))


def deadline(state: State) -> Deadline | None:
    """Who owes a decision now, with each one's auto-play command; None outside a hand."""
    if not isinstance(state, Playing):
        return None
    phase = state.hand.phase
    options = state.table.options
    if isinstance(phase, Turn):
        return Deadline({phase.seat: default_action(state, phase.seat)}, options.turn_timeout_ms, "turn")
    reason = "rob_kong" if isinstance(phase, Robbing) else "claim"
    return claims.window_deadline(reason, state.hand.number, state.hand.wall, phase.window, options.claim_timeout_ms,
                                  lambda s: default_action(state, s),
                                  min_ms=claims.minimum_ms(options), private=claims.timeouts_private(options))


def follow_up(state: State) -> Any:
    """Close a claim window nobody has to answer, once its minimum is over or every other seat
    answered (docs/hidden-information.md); till then the clock closes it."""
    if not isinstance(state, Playing) or not isinstance(state.hand.phase, Claims | Robbing):
        return None
    window = state.hand.phase.window
    if window.decided(claims.STANDARD_PRIORITY) and claims.closes_now(window, claims.STANDARD_PRIORITY, claims.minimum_ms(state.table.options)):
        return CloseClaims()
    return None
