"""What one seat may see: its table view and its copy of each event.

Hidden from a seat until the hand ends: the other seats' concealed tiles and draws, their concealed
kongs, who could claim a discard and what they answered, and the deck, seed and salt. Flowers,
the indicator and the 混 kind are public.
"""

from __future__ import annotations

from typing import Any

from engine.core.messages import value
from engine.jj.events import ChowClaimed, ClaimWindowOpened, HandStarted
from engine.jj.options import Options
from engine.jj.state import BetweenHands, MatchOver, Playing, Robbing, State, Turn
from engine.mahjong import redaction
from engine.mahjong.melds import Meld
from engine.mahjong.tiles import Tile, from_counts


@value("jj.View")
class View:
    """A seat's view (seat None: a spectator). `phase` is "between_hands", "turn", "claims",
    "robbing" or "match_over"; `turn` the seat to act (or whose discard/kong is on offer)."""

    seat: int | None
    options: Options
    phase: str
    scores: tuple[int, ...]
    dealer: int | None
    hands_played: int
    hand: tuple[Tile, ...] = ()
    drawn: Tile | None = None
    wild: Tile | None = None
    indicator: Tile | None = None
    turn: int | None = None
    claim_tile: Tile | None = None
    hand_sizes: tuple[int, ...] = ()
    melds: tuple[tuple[Meld, ...], ...] = ()
    rivers: tuple[tuple[Tile, ...], ...] = ()
    flowers: tuple[tuple[Tile, ...], ...] = ()
    ready: tuple[bool, ...] = ()
    won: tuple[int, ...] = ()
    wall_live: int = 0


def view(state: State, seat: int | None) -> View:
    """The table as `seat` sees it."""
    if not isinstance(state, BetweenHands | Playing | MatchOver):
        raise ValueError("the table has not been created yet")
    table = state.table
    common: dict[str, Any] = dict(
        seat=seat, options=table.options, scores=table.scores, dealer=table.dealer, hands_played=table.hands_played
    )
    if not isinstance(state, Playing):
        return View(phase="match_over" if isinstance(state, MatchOver) else "between_hands", **common)
    hand = state.hand
    phase = hand.phase
    if isinstance(phase, Turn):
        name, turn, claim_tile = "turn", phase.seat, None
        drawn = phase.drawn if phase.seat == seat else None
    else:
        name = "robbing" if isinstance(phase, Robbing) else "claims"
        turn, claim_tile, drawn = phase.window.source, phase.window.tile, None
    mine = hand.seats[seat] if seat is not None else None
    return View(
        phase=name,
        hand=from_counts(mine.concealed) if mine else (),
        drawn=drawn,
        wild=hand.wild,
        indicator=hand.indicator,
        turn=turn,
        claim_tile=claim_tile,
        hand_sizes=tuple(sh.size() for sh in hand.seats),
        melds=tuple(sh.melds if s == seat else tuple(m.hidden() for m in sh.melds) for s, sh in enumerate(hand.seats)),
        rivers=tuple(sh.river for sh in hand.seats),
        flowers=hand.flowers,
        ready=hand.ready,
        won=hand.won,
        wall_live=hand.wall.live,
        **common,
    )


redact = redaction.Redaction(HandStarted, ClaimWindowOpened, answers=(ChowClaimed,)).redact
"""`ev` as `seat` may see it, or None when it shows that seat nothing (engine.mahjong.redaction)."""
