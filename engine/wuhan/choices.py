"""What a seat may do now (legal_actions) and what auto-play does for it on time-out (deadline).

托管 (auto-play) does what a strong player expects from a stand-in: it takes every win it may,
passes every claim, and otherwise discards the tile just drawn (a 赖子 or skin drawn is laid out,
which is what discarding it means); after a claim it discards its highest ordinary tile.
"""

from __future__ import annotations

from engine.core.contract import Deadline
from engine.mahjong import claims
from engine.mahjong.actions import CloseClaims, Discard, Kong, Pass, Win
from engine.mahjong.tiles import tile
from engine.wuhan import claiming, kongs
from engine.wuhan.big_wins import SELF_DRAW, Way
from engine.wuhan.commands import Command
from engine.wuhan.options import Options
from engine.wuhan.state import (
    CLAIMED,
    DEAL,
    REPLACEMENT,
    Claims,
    LastFour,
    Playing,
    Robbing,
    State,
    Turn,
)
from engine.wuhan.winning import Refusal, judge_in


def can_self_win(state: Playing, phase: Turn | LastFour) -> bool:
    """Whether the seat in turn may win on the tile it just drew."""
    if isinstance(phase, Turn) and (phase.source in (DEAL, CLAIMED) or phase.drawn is None):
        return False
    way = Way(SELF_DRAW, kong_replacement=phase.source == REPLACEMENT, last_four=isinstance(phase, LastFour))
    return not isinstance(judge_in(state.hand, phase.seat, way, state.table.options), Refusal)


def legal_actions(state: State, seat: int) -> list[Command]:
    """Every command `seat` may send now, each once (a 赖子 or skin both as its kong and as a
    discard: the same move)."""
    if not isinstance(state, Playing):
        return []
    hand = state.hand
    phase = hand.phase
    if isinstance(phase, Turn | LastFour):
        if phase.seat != seat:
            return []
        acts: list[Command] = [Win(seat)] if can_self_win(state, phase) else []
        if isinstance(phase, LastFour):
            return [*acts, Pass(seat)]
        sh = hand.seats[seat]
        acts.extend(Kong(seat, t) for t, _ in kongs.turn_kongs(sh, hand.roles))
        acts.extend(Discard(seat, tile(t)) for t, n in enumerate(sh.concealed) if n)
        return acts
    window = phase.window
    return list(claims.answers(window, seat, lambda: claiming.chow_lows(hand.seats[seat], window.tile, hand.roles)))


def default_action(state: Playing, seat: int) -> Command:
    """What auto-play sends for `seat` (see the module docstring)."""
    hand = state.hand
    phase = hand.phase
    if isinstance(phase, Claims | Robbing):
        return Win(seat) if claims.WIN in phase.window.options_of(seat) else Pass(seat)
    if can_self_win(state, phase):
        return Win(seat)
    if isinstance(phase, LastFour):
        return Pass(seat)
    if phase.drawn is not None:
        return Discard(seat, phase.drawn)
    c = hand.seats[seat].concealed
    roles = hand.roles
    ordinary = [t for t, n in enumerate(c) if n and not roles.is_special(t)]
    if ordinary:
        return Discard(seat, tile(max(ordinary)))
    return Discard(seat, tile(max(t for t, n in enumerate(c) if n)))


def deadline(state: State) -> Deadline | None:
    """Who owes a decision now, with each one's auto-play command; None outside a hand."""
    if not isinstance(state, Playing):
        return None
    phase = state.hand.phase
    options: Options = state.table.options
    if isinstance(phase, Turn | LastFour):
        reason = "last_four" if isinstance(phase, LastFour) else "turn"
        return Deadline({phase.seat: default_action(state, phase.seat)}, options.turn_timeout_ms, reason)
    reason = "rob_kong" if isinstance(phase, Robbing) else "claim"
    return claims.window_deadline(reason, state.hand.number, state.hand.wall, phase.window, options.claim_timeout_ms,
                                  lambda s: default_action(state, s), claiming.PRIORITY,
                                  min_ms=claims.minimum_ms(options), private=claims.timeouts_private(options))


def follow_up(state: State) -> Command | None:
    """Close a claim window nobody has to answer, once its minimum is over or every other seat
    answered (docs/hidden-information.md); till then the clock closes it."""
    if not isinstance(state, Playing) or not isinstance(state.hand.phase, Claims | Robbing):
        return None
    window = state.hand.phase.window
    if window.decided(claiming.PRIORITY) and claims.closes_now(window, claiming.PRIORITY, claims.minimum_ms(state.table.options)):
        return CloseClaims()
    return None
