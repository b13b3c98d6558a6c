"""What one seat may see: its table view and its copy of each event.

Hidden from a seat until the hand ends: the other seats' concealed tiles and draws, their
concealed kongs, every claim answer but its own, who could claim a tile, and the deck, seed and
salt. The indicator, the 赖子, the skins and every laid-out 赖子 and skin are public.
HandEnded reveals the rest to everyone.
"""

from __future__ import annotations

from engine.core.messages import value
from engine.mahjong import redaction
from engine.mahjong.melds import Meld
from engine.mahjong.tiles import Tile, from_counts
from engine.wuhan.events import ChowClaimed, ClaimWindowOpened, HandStarted
from engine.wuhan.options import Options
from engine.wuhan.state import BetweenHands, LastFour, MatchOver, Playing, Robbing, State, Turn


@value("wuhan.View")
class View:
    """A seat's view of the table (seat None: a spectator, who sees no concealed tile).

    `phase` is "between_hands", "turn", "last_four", "claims", "robbing" or "match_over"; `turn`
    the seat that holds the turn (or made the discard / kong being claimed); `claim_tile` the
    tile on offer. `laid` lists each seat's laid-out 赖子 and skins (赖子杠, 皮杠)."""

    seat: int | None
    options: Options
    phase: str
    scores: tuple[int, ...]
    dealer: int | None
    hands_played: int
    passes: int
    indicator: Tile | None = None
    laizi: Tile | None = None
    skins: tuple[Tile, ...] = ()
    hand: tuple[Tile, ...] = ()
    drawn: Tile | None = None
    turn: int | None = None
    claim_tile: Tile | None = None
    hand_sizes: tuple[int, ...] = ()
    melds: tuple[tuple[Meld, ...], ...] = ()
    rivers: tuple[tuple[Tile, ...], ...] = ()
    laid: tuple[tuple[Tile, ...], ...] = ()
    wall_live: int = 0


def view(state: State, seat: int | None) -> View:
    """The table as `seat` sees it."""
    if not isinstance(state, BetweenHands | Playing | MatchOver):
        raise ValueError("the table has not been created yet")
    table = state.table
    common = {
        "seat": seat,
        "options": table.options,
        "scores": table.scores,
        "dealer": table.dealer,
        "hands_played": table.hands_played,
        "passes": table.passes,
    }
    if not isinstance(state, Playing):
        return View(phase="match_over" if isinstance(state, MatchOver) else "between_hands", **common)  # type: ignore[arg-type]
    hand = state.hand
    phase = hand.phase
    if isinstance(phase, Turn | LastFour):
        name = "last_four" if isinstance(phase, LastFour) else "turn"
        turn, claim_tile = phase.seat, None
        drawn = phase.drawn if phase.seat == seat else None
    else:
        name = "robbing" if isinstance(phase, Robbing) else "claims"
        turn, claim_tile, drawn = phase.window.source, phase.window.tile, None
    mine = hand.seats[seat] if seat is not None else None
    roles = hand.roles
    return View(
        phase=name,
        indicator=roles.indicator,
        laizi=roles.laizi,
        skins=roles.skins,
        hand=from_counts(mine.concealed) if mine else (),
        drawn=drawn,
        turn=turn,
        claim_tile=claim_tile,
        hand_sizes=tuple(sh.size() for sh in hand.seats),
        melds=tuple(sh.melds if s == seat else tuple(m.hidden() for m in sh.melds) for s, sh in enumerate(hand.seats)),
        rivers=tuple(sh.river for sh in hand.seats),
        laid=hand.laid,
        wall_live=hand.wall.live,
        **common,  # type: ignore[arg-type]
    )


redact = redaction.Redaction(HandStarted, ClaimWindowOpened, answers=(ChowClaimed,)).redact
"""`ev` as `seat` may see it, or None when it shows that seat nothing (engine.mahjong.redaction)."""
