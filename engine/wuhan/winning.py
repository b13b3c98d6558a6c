"""May this seat win now, and with what score (rules/wuhan.md, "Winning").

A win needs: an opened hand (开口), no skin (赖子皮) in hand, a winning shape (engine.wuhan.shapes),
a 大胡 when the hand holds two or more 赖子, and at least one loser paying `min_win` (起胡) before
caps. Every reading of the hand (hard, soft) that passes is scored in full, and the seat wins the
one that pays it most (the hard one on a tie).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.mahjong.seat import SeatTiles
from engine.mahjong.tiles import Tile
from engine.wuhan import liability
from engine.wuhan.big_wins import Way, big_wins
from engine.wuhan.options import Options
from engine.wuhan.roles import Roles
from engine.wuhan.scoring import Settlement, opened, settle
from engine.wuhan.shapes import Exposed, readings
from engine.wuhan.state import Hand


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a seat may not win: a stable code and a sentence for the player."""

    code: str
    message: str


NOT_OPENED = Refusal("not_opened", "You must open (开口: chow, pong or exposed kong) before you can win.")


def judge(
    *,
    seat: int,
    concealed: Sequence[int],
    way: Way,
    source: int | None,
    hands: Sequence[SeatTiles],
    laid: Sequence[Sequence[Tile]],
    roles: Roles,
    dealer: int,
    options: Options,
) -> Settlement | Refusal:
    """The best settlement of `seat` winning with `concealed` (34 counts, the winning tile
    included) won the way `way` says, or the reason it may not win. `source` is the discarder or
    the seat whose kong is robbed; `hands` and `laid` are every seat's tiles and laid-out 赖子
    and skins (a seat's own concealed tiles there are not used for `seat`)."""
    melds = hands[seat].melds
    if not opened(melds):
        return NOT_OPENED
    for skin in roles.skins:
        if concealed[skin]:
            return Refusal("holds_skin", f"You hold {skin}, a 赖子皮: a hand with a skin cannot win.")
    shapes = readings(concealed, roles.laizi, Exposed.of(melds))
    if not shapes:
        return Refusal("not_a_winning_hand", "Your tiles do not make a winning hand (four sets and a 2-5-8 pair, or a 大胡).")
    wilds = concealed[roles.laizi]
    refusal = Refusal("big_win_only", f"With {wilds} 赖子 in hand only a 大胡 may be won, and this is a 小胡.")
    best: Settlement | None = None
    for shape in shapes:
        names = big_wins(shape, way, melds)
        if not names and (not shape.small or wilds >= 2):
            continue
        won = liability.Won(names, way.how, source, melds, lambda s: liability.ready(hands[s].concealed, hands[s].melds, roles))
        scored = settle(
            winner=seat,
            dealer=dealer,
            how=way.how,
            source=source,
            big_wins=names,
            hard=shape.hard,
            melds=[h.melds for h in hands],
            laid=laid,
            roles=roles,
            options=options,
            liable=liability.liable(won),
        )
        most = max(line.raw for line in scored.lines)
        if most < options.min_win:
            refusal = Refusal(
                "below_min_win",
                f"This {scored.hand_name()} makes a loser pay at most {most}; 起胡 needs {options.min_win}.",
            )
            continue
        if best is None or _worth(scored) > _worth(best):
            best = scored
    return refusal if best is None else best


def _worth(s: Settlement) -> tuple[int, int, bool]:
    return s.total, sum(line.raw for line in s.lines), s.hard


def judge_in(
    hand: Hand,
    seat: int,
    way: Way,
    options: Options,
    tile: Tile | None = None,
    source: int | None = None,
    hands: Sequence[SeatTiles] | None = None,
) -> Settlement | Refusal:
    """`judge` for a seat of a hand in play: `tile` is added to its concealed tiles (a discard
    or a robbed kong's tile); `hands` replaces the seats' tiles (a robbed kong taken back)."""
    hands = hand.seats if hands is None else hands
    if not opened(hands[seat].melds):
        return NOT_OPENED  # most seats, most of the time: nothing to count
    concealed = hands[seat].concealed
    if tile is not None:
        c = list(concealed)
        c[tile] += 1
        concealed = tuple(c)
    return judge(
        seat=seat,
        concealed=concealed,
        way=way,
        source=source,
        hands=hands,
        laid=hand.laid,
        roles=hand.roles,
        dealer=hand.dealer,
        options=options,
    )
