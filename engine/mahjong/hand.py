"""Is a hand complete, what does it wait on: the fast checks, read off the per-suit table.

Hands are 34 tile counts (0..4 each, `tiles.counts`) of the concealed tiles that are not wilds,
plus the number of wild tiles held (0..4) and the number of melds already exposed or declared
(kongs count as one meld each). A wild stands for any tile, even a fifth copy of a kind: the table does not track how
many of a tile exist, and the rulesets that care can look at the decomposition.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.mahjong.suit_table import CODES, COMBINE, DEAD, HONORS, MAX_WILDS, NUMBER_SUIT, unpack

# _WINS_WITH[w][code]: whether a whole hand whose combined code is `code` completes with w wilds.
_WINS_WITH: tuple[tuple[bool, ...], ...] = tuple(
    tuple(unpack(code)[1] <= w for code in range(CODES)) for w in range(MAX_WILDS + 1)
)


def is_win(counts34: Sequence[int], wilds: int = 0, melds: int = 0) -> bool:
    """Whether the concealed tiles plus `wilds` (0..4) make 4 - melds sets and a pair (standard shape)."""
    if sum(counts34) + wilds != 14 - 3 * melds:
        return False
    b = bytes(counts34)  # one conversion, then cheap bytes slices as the per-suit keys
    get = NUMBER_SUIT.get
    code = COMBINE[COMBINE[COMBINE[get(b[0:9], DEAD)][get(b[9:18], DEAD)]][get(b[18:27], DEAD)]][
        HONORS.get(b[27:34], DEAD)
    ]
    return _WINS_WITH[wilds][code]


def seven_pairs(counts34: Sequence[int], wilds: int = 0) -> bool:
    """Seven pairs: 14 tiles in pairs, four of a kind counting as two pairs; a wild pairs any single."""
    if sum(counts34) + wilds != 14:
        return False
    return sum(n & 1 for n in counts34) <= wilds


def _near_mask(t: int) -> int:
    if t >= 27:
        return 1 << t
    return sum(1 << u for u in range(t - 2, t + 3) if 0 <= u and u // 9 == t // 9)


# Bit u of _NEAR[t]: tile u can share a group with tile t (same kind, or within two in one suit).
_NEAR = tuple(_near_mask(t) for t in range(34))


def _candidates(c: Sequence[int], wilds: int) -> range | list[int]:
    """Tiles worth trying as the completing one. Without wilds the added tile shares a group with
    a tile already held, so only the neighbours of held tiles can complete the hand."""
    if wilds:
        return range(34)
    mask = 0
    for t, n in enumerate(c):
        if n:
            mask |= _NEAR[t]
    return [t for t in range(34) if mask >> t & 1]


def waits(counts34: Sequence[int], wilds: int = 0, melds: int = 0) -> frozenset[int]:
    """Every tile id whose addition, as a natural tile, completes the hand (standard shape).

    A tile the hand already holds four of cannot be drawn, so it is never a wait; tiles visible
    elsewhere (melds, discards) are the caller's business."""
    c = list(counts34)
    found = []
    for t in _candidates(c, wilds):
        if c[t] >= 4:
            continue
        c[t] += 1
        if is_win(c, wilds, melds):
            found.append(t)
        c[t] -= 1
    return frozenset(found)


def is_ready(counts34: Sequence[int], wilds: int = 0, melds: int = 0) -> bool:
    """Whether some single tile completes the hand (听牌)."""
    c = list(counts34)
    for t in _candidates(c, wilds):
        if c[t] >= 4:
            continue
        c[t] += 1
        won = is_win(c, wilds, melds)
        c[t] -= 1
        if won:
            return True
    return False
