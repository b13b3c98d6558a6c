"""Whether a seat may win now and with which fans: the hand's situation (天胡, 地胡, 人胡, winds,
flowers, the last tile...) handed to the fan count, and the minimum applied."""

from __future__ import annotations

from engine.jj.claiming import shape_after
from engine.jj.fans import Situation
from engine.jj.options import Options
from engine.jj.state import DEAL, REPLACEMENT, Hand, Turn
from engine.jj.winning import Scored, best_win, reaches
from engine.mahjong.melds import KONG_CONCEALED, Meld

SELF_DRAW = "self_draw"
DISCARD = "discard_win"
ROBBED_KONG = "robbed_kong"


def visible(hand: Hand, winners_shown: bool = False) -> tuple[int, ...]:
    """Tiles seen outside the hands: rivers and melds (concealed kongs too: the tiles are gone);
    with `winners_shown`, the hands of the seats that have won (血战: a winner leaves the hand
    with its winning tile shown, and its Won shows the whole hand to every seat)."""
    c = [0] * 34
    for s, sh in enumerate(hand.seats):
        for t in sh.river:
            c[t] += 1
        for m in sh.melds:
            for t in m.tiles:
                c[t] += 1
        if winners_shown and s in hand.won:
            c = [a + b for a, b in zip(c, sh.concealed, strict=True)]
    return tuple(c)


Args = tuple[tuple[int, ...], int | None, tuple[Meld, ...], int, int | None, Situation, tuple[int, ...]]


def self_win(hand: Hand, turn: Turn, options: Options, round_wind: int) -> Scored | None:
    """The fans of winning on the tile in hand, or None when the hand does not win or is short
    of the minimum."""
    args = _self_args(hand, turn, options, round_wind)
    return None if args is None else _enough(best_win(*args), options)


def can_self_win(hand: Hand, turn: Turn, options: Options, round_wind: int) -> bool:
    """Whether `self_win` would find a win (stops at the first assignment that is enough)."""
    args = _self_args(hand, turn, options, round_wind)
    return args is not None and reaches(*args[:6], options.min_fan, args[6])


def discard_win(hand: Hand, seat: int, tile: int, source: int, options: Options, round_wind: int,
                robbing: bool = False) -> Scored | None:
    """The fans of winning on another seat's discard (or robbing its added kong)."""
    args = _discard_args(hand, seat, tile, source, options, round_wind, robbing)
    return None if args is None else _enough(best_win(*args), options)


def can_discard_win(hand: Hand, seat: int, tile: int, source: int, options: Options, round_wind: int,
                    robbing: bool = False) -> bool:
    """Whether `discard_win` would find a win."""
    args = _discard_args(hand, seat, tile, source, options, round_wind, robbing)
    return args is not None and reaches(*args[:6], options.min_fan, args[6])


def _self_args(hand: Hand, turn: Turn, options: Options, round_wind: int) -> Args | None:
    seat = turn.seat
    sh = hand.seats[seat]
    if turn.drawn is None and turn.source != DEAL:
        return None
    if not shape_after(sh, None, hand.wild):
        return None
    win_tile = turn.drawn  # None on 天胡: any tile of the hand may count as the last
    first_draw = hand.discards[seat] == 0 and not hand.claimed
    situation = _situation(
        hand, seat, options, round_wind,
        self_drawn=True,
        about_kong=turn.source == REPLACEMENT,
        wall_last=turn.last,
        heavenly=turn.source == DEAL and seat == hand.dealer,
        earthly=seat != hand.dealer and first_draw,
    )
    return sh.concealed, hand.wild, sh.melds, seat, win_tile, situation, visible(hand, bool(options.winners_hands_seen))


def _discard_args(hand: Hand, seat: int, tile: int, source: int, options: Options, round_wind: int,
                  robbing: bool) -> Args | None:
    sh = hand.seats[seat]
    if tile == hand.wild or not shape_after(sh, tile, hand.wild):
        return None
    human = (
        seat != hand.dealer
        and source == hand.dealer
        and hand.discards[hand.dealer] == 1
        and hand.discards[seat] == 0
        and not hand.dealer_konged
        and not robbing
    )
    c = list(sh.concealed)
    c[tile] += 1
    situation = _situation(
        hand, seat, options, round_wind,
        self_drawn=False,
        about_kong=robbing,
        wall_last=hand.wall.live == 0,
        human=human,
    )
    seen = visible(hand, bool(options.winners_hands_seen))
    if not robbing and not options.last_tile_counts_its_discard:
        # The discard lies on its river while it is claimed: 和绝张 asks about the tiles seen before it.
        seen = seen[:tile] + (seen[tile] - 1,) + seen[tile + 1 :]
    return tuple(c), hand.wild, sh.melds, seat, tile, situation, seen


def _situation(hand: Hand, seat: int, options: Options, round_wind: int, **flags: bool) -> Situation:
    return Situation(
        seat_wind=(seat - hand.dealer) % len(hand.seats),
        round_wind=round_wind,
        flowers=len(hand.flowers[seat]),
        heavenly_ready=hand.heavenly_ready[seat],
        declared_ready=hand.ready[seat],
        xuezhan=options.xuezhan,
        wild_in_play=hand.wild is not None,
        knitted_reads_pair=bool(options.knitted_straight_reads_pair),
        **flags,
    )


def _enough(scored: Scored | None, options: Options) -> Scored | None:
    if scored is None or scored.counted < options.min_fan:
        return None
    return scored


def dealer_konged(kind: str, seat: int, hand: Hand) -> bool:
    """人胡 is void once the dealer made a concealed kong before its first discard."""
    return kind == KONG_CONCEALED and seat == hand.dealer and hand.discards[seat] == 0
