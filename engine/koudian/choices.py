"""What a seat may do now (legal_actions) and what auto-play does for it on time-out (deadline).

托管 (auto-play) does what a strong player expects from a stand-in: it takes every win it may
(a win's points only grow with the tile, never with waiting), passes every pong and kong, and
otherwise discards the tile just drawn (after a pong: the highest tile in the hand), never
declaring ready on the player's behalf.
"""

from __future__ import annotations

from engine.core.contract import Deadline
from engine.koudian import kongs, winning
from engine.koudian.commands import Command
from engine.koudian.options import Options
from engine.koudian.state import Claims, Playing, Robbing, State, Turn
from engine.mahjong import claims
from engine.mahjong.actions import CloseClaims, DeclareReady, Discard, Kong, Pass, Win
from engine.mahjong.hand import is_win, seven_pairs
from engine.mahjong.seat import SeatTiles
from engine.mahjong.shanten import shanten
from engine.mahjong.tiles import ALL_TILES, tile


def legal_actions(state: State, seat: int) -> list[Command]:
    """Every command `seat` may send now, each once."""
    if not isinstance(state, Playing):
        return []
    hand = state.hand
    phase = hand.phase
    options = state.table.options
    if isinstance(phase, Turn):
        if phase.seat != seat:
            return []
        sh = hand.seats[seat]
        acts: list[Command] = []
        if winning.self_win(hand, phase) is not None:
            acts.append(Win(seat))
        if phase.last:
            return acts
        acts.extend(Kong(seat, t) for t, _ in kongs.turn_kongs(hand, phase, options))
        if sh.ready:
            assert phase.drawn is not None
            acts.append(Discard(seat, phase.drawn))
            return acts
        held = [ALL_TILES[t] for t, n in enumerate(sh.concealed) if n]
        acts.extend(Discard(seat, t) for t in held)
        if _near_ready(sh, options):
            acts.extend(DeclareReady(seat, t) for t in held if _ready_without(sh, t, options))
        return acts
    assert isinstance(phase, Claims | Robbing)
    return list(claims.answers(phase.window, seat))


def _near_ready(sh: SeatTiles, options: Options) -> bool:
    """Whether some discard may leave this 14-tile hand ready: one shanten lookup rules out most
    hands before any tile is tried."""
    melds = len(sh.melds)
    if shanten(sh.concealed, 0, melds) <= 0:
        return True
    return options.seven_pairs and melds == 0 and sum(n // 2 for n in sh.concealed) >= 6


def _ready_without(sh: SeatTiles, t: int, options: Options) -> bool:
    """Whether discarding `t` leaves the hand ready. A wild in its place is a one-lookup test that
    rules out nearly every tile before the full wait computation runs."""
    c = list(sh.concealed)
    c[t] -= 1
    melds = len(sh.melds)
    if not is_win(c, 1, melds) and not (options.seven_pairs and melds == 0 and seven_pairs(c, 1)):
        return False
    return bool(winning.can_declare_ready(sh, t, options))


def default_action(state: Playing, seat: int) -> Command:
    """What auto-play sends for `seat` (see the module docstring). Worked out directly rather than
    from legal_actions: the deadline is asked for at every decision."""
    hand = state.hand
    phase = hand.phase
    if isinstance(phase, Claims | Robbing):
        return Win(seat) if claims.WIN in phase.window.options_of(seat) else Pass(seat)
    if winning.self_win(hand, phase) is not None:
        return Win(seat)
    if phase.drawn is not None:
        return Discard(seat, phase.drawn)
    c = hand.seats[seat].concealed
    return Discard(seat, tile(max(t for t, n in enumerate(c) if n)))


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


def follow_up(state: State) -> Command | None:
    """Close a claim window nobody has to answer, once its minimum is over or every other seat
    answered (docs/hidden-information.md); till then the clock closes it."""
    if not isinstance(state, Playing) or not isinstance(state.hand.phase, Claims | Robbing):
        return None
    window = state.hand.phase.window
    if window.decided(claims.STANDARD_PRIORITY) and claims.closes_now(window, claims.STANDARD_PRIORITY, claims.minimum_ms(state.table.options)):
        return CloseClaims()
    return None

