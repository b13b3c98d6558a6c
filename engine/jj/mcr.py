"""The 81 standard MCR fans, from PyMahjongGB's C++ calculator (MIT), behind one small adapter.

PyMahjongGB takes the standing tiles without the winning tile, the winning tile, the exposed or
declared sets as packs and the situation flags, and answers with every fan after MCR's own
exclusions (不计). What it does not know is jj's business and handled around it: 混 (it only ever
sees natural hands, one per assignment), the JJ additions and exclusions, the minimum, and
flowers (jj pays 2 per flower, so it is always told 0 flowers and 花牌 is jj's own fan).

It refuses a hand with a fifth copy of a tile (ERROR_NOT_WIN), so a 混 never stands for one.
"""

from __future__ import annotations

from functools import lru_cache

from MahjongGB import MahjongFanCalculator

from engine.mahjong.melds import CHOW, KONG_CONCEALED, PONG, Meld

_GB_NAMES = tuple(
    [f"W{n}" for n in range(1, 10)]
    + [f"B{n}" for n in range(1, 10)]
    + [f"T{n}" for n in range(1, 10)]
    + ["F1", "F2", "F3", "F4", "J1", "J2", "J3"]
)
"""PyMahjongGB's tile names by our tile id: 万 W, 饼 B, 条 T, winds F1-F4 (E S W N), dragons J1-J3
(中 發 白)."""


class CallCounter:
    """How often the C++ calculator really ran (cache misses): the benchmark's fan_calls figure."""

    calls = 0


Pack = tuple[str, str, int]


def pack_of(meld: Meld, seat: int) -> Pack:
    """A meld as PyMahjongGB's pack: a chow by its middle tile, a pong or kong with the offering
    seat counted from the winner (1 the previous seat, 2 across, 3 the next; 0 concealed)."""
    assert meld.tile is not None
    if meld.kind == CHOW:
        # Which tile of the chow was claimed changes no fan; PyMahjongGB wants one, 1 says "the first".
        return ("CHI", _GB_NAMES[meld.tile + 1], 1)
    offer = 0 if meld.kind == KONG_CONCEALED or meld.source is None else (seat - meld.source) % 4
    return ("PENG" if meld.kind == PONG else "GANG", _GB_NAMES[meld.tile], offer)


@lru_cache(maxsize=65536)
def mcr_fans(
    packs: tuple[Pack, ...],
    full: tuple[int, ...],
    win_tile: int,
    self_drawn: bool,
    fourth_tile: bool,
    about_kong: bool,
    wall_last: bool,
    seat_wind: int,
    round_wind: int,
) -> tuple[tuple[str, int, int], ...] | None:
    """The MCR fans of a natural hand as (name, value per fan, times), or None when PyMahjongGB
    finds no winning shape. `full` is the 34 counts of the concealed tiles, the winning tile
    included; winds count 0..3 from East. Cached: hands repeat across checks and tables."""
    standing = [_GB_NAMES[t] for t, n in enumerate(full) for _ in range(n)]
    standing.remove(_GB_NAMES[win_tile])
    CallCounter.calls += 1
    try:
        found = MahjongFanCalculator(
            packs, tuple(standing), _GB_NAMES[win_tile], 0, self_drawn, fourth_tile, about_kong, wall_last,
            seat_wind, round_wind, verbose=True,
        )
    except TypeError:  # ERROR_NOT_WIN, or a fifth copy of a tile
        return None
    return tuple((name, value, times) for value, times, name, _english in found)
