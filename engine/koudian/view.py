"""What one seat may see: its table view and its copy of each event.

Hidden from a seat until the hand ends: the other seats' concealed tiles and draws, their concealed
kongs, their face-down ready discards and waits, who could claim a discard, and the deck, seed and
salt. HandEnded reveals all of it to everyone.
"""

from __future__ import annotations

from engine.core.frozen import replace
from engine.core.messages import value
from engine.koudian.events import ClaimWindowOpened, Event, HandStarted, ReadyDeclared
from engine.koudian.options import Options
from engine.koudian.state import BetweenHands, MatchOver, Playing, Robbing, State, Turn
from engine.mahjong import redaction
from engine.mahjong.melds import Meld
from engine.mahjong.tiles import Tile, from_counts


@value("koudian.View")
class View:
    """A seat's view of the table (seat None: a spectator, who sees no concealed tile).

    `phase` is "between_hands", "turn", "claims", "robbing" or "match_over"; `turn` the seat that
    holds the turn (or made the discard / kong being claimed); `claim_tile` the tile on offer.
    `rivers` show each seat's discards, a face-down one as None to the others.
    """

    seat: int | None
    options: Options
    phase: str
    scores: tuple[int, ...]
    dealer: int | None
    hands_played: int
    passes: int
    hand: tuple[Tile, ...] = ()
    drawn: Tile | None = None
    waits: tuple[Tile, ...] = ()
    face_down: Tile | None = None
    turn: int | None = None
    claim_tile: Tile | None = None
    hand_sizes: tuple[int, ...] = ()
    melds: tuple[tuple[Meld, ...], ...] = ()
    rivers: tuple[tuple[Tile | None, ...], ...] = ()
    ready: tuple[bool, ...] = ()
    wall_live: int = 0
    kongs: int = 0


def view(state: State, seat: int | None) -> View:
    """The table as `seat` sees it."""
    if not isinstance(state, BetweenHands | Playing | MatchOver):
        raise ValueError("the table has not been created yet")
    table = state.table
    common = dict(
        seat=seat,
        options=table.options,
        scores=table.scores,
        dealer=table.dealer,
        hands_played=table.hands_played,
        passes=table.passes,
    )
    if not isinstance(state, Playing):
        return View(phase="match_over" if isinstance(state, MatchOver) else "between_hands", **common)  # type: ignore[arg-type]
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
        waits=mine.waits if mine else (),
        face_down=mine.face_down if mine else None,
        turn=turn,
        claim_tile=claim_tile,
        hand_sizes=tuple(sh.size() for sh in hand.seats),
        melds=tuple(sh.melds if s == seat else tuple(m.hidden() for m in sh.melds) for s, sh in enumerate(hand.seats)),
        rivers=tuple(
            sh.river if s == seat or sh.ready_at is None else sh.river[: sh.ready_at] + (None,) + sh.river[sh.ready_at + 1 :]
            for s, sh in enumerate(hand.seats)
        ),
        ready=tuple(sh.ready for sh in hand.seats),
        wall_live=hand.wall.live,
        kongs=hand.kongs,
        **common,  # type: ignore[arg-type]
    )


_REDACTION = redaction.Redaction(HandStarted, ClaimWindowOpened)


def redact(ev: Event, seat: int | None) -> Event | None:
    """`ev` as `seat` may see it, or None when it shows that seat nothing."""
    if isinstance(ev, ReadyDeclared) and ev.seat != seat:
        return replace(ev, tile=None, waits=())
    return _REDACTION.redact(ev, seat)
