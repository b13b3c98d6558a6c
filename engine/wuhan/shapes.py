"""Is a wuhan hand complete, and how: the fast hard/soft reading of a hand with its 赖子.

A hand is read twice. **Hard** (硬胡): every 赖子 stands for itself, as a natural tile. **Soft**
(软胡): the 赖子 are wilds that may stand for any tile (a wild standing for its own kind is
allowed too; scoring prefers the hard reading when it wins as much). Each reading says which
shapes the hand makes, all at once under one choice of what the wilds stand for:

- `small`: four sets and a pair of 2, 5 or 8 (二五八将), the 小胡;
- `pungs`: four pungs or kongs and any pair (碰碰胡; no chow among the melds);
- `one_suit`: four sets and any pair, every tile of one number suit (清一色);
- `all_258`: every tile a 2, 5 or 8 of a suit, any shape (将一色, 乱将);
- `all_honors`: every tile a wind or a dragon, any shape (风一色, 乱风).

The structure checks are lookups in per-suit completion tables (engine.mahjong.suit_table: any
pair, a 2/5/8 pair, pungs only); the colour checks are masks over the counts as one integer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.core.messages import value
from engine.mahjong import suit_table
from engine.mahjong.melds import CHOW, Meld
from engine.mahjong.suit_table import COMBINE, DEAD, MAX_WILDS, unpack

_KINDS = 34
_258 = tuple(s * 9 + n for s in range(3) for n in (1, 4, 7))

# Per-suit tables: (number suits, honors) for any pair, a 2/5/8 pair, pungs only.
_ANY = (suit_table.NUMBER_SUIT, suit_table.HONORS)
_PAIR_258 = (suit_table.build(9, runs=True, pair_at=(1, 4, 7)), suit_table.build(7, runs=False, pair_at=()))
_PUNGS = (suit_table.build(9, runs=False), suit_table.HONORS)

_WINS_WITH = tuple(tuple(unpack(code)[1] <= w for code in range(suit_table.CODES)) for w in range(MAX_WILDS + 1))


def _byte_mask(kinds: Iterable[int]) -> int:
    """0xFF in the byte of each kind: `int.from_bytes(bytes(counts), "little") & mask` is nonzero
    exactly when the hand holds one of those kinds."""
    return sum(0xFF << (8 * k) for k in kinds)


def _bit_mask(kinds: Iterable[int]) -> int:
    return sum(1 << k for k in kinds)


_NOT_258_BYTES = _byte_mask(k for k in range(_KINDS) if k not in _258)
_NUMBER_BYTES = _byte_mask(range(27))
_OUTSIDE_SUIT_BYTES = tuple(_byte_mask(k for k in range(_KINDS) if k // 9 != s) for s in range(3))
_NOT_258_BITS = _bit_mask(k for k in range(_KINDS) if k not in _258)
_NUMBER_BITS = _bit_mask(range(27))
_OUTSIDE_SUIT_BITS = tuple(_bit_mask(k for k in range(_KINDS) if k // 9 != s) for s in range(3))


@value("wuhan.Exposed")
class Exposed:
    """What the reader needs of a seat's melds (kongs included, the laid-out 赖子 and skins not):
    how many, whether one is a chow, and a bit per tile kind they hold."""

    count: int = 0
    chows: bool = False
    kinds: int = 0

    @staticmethod
    def of(melds: Sequence[Meld]) -> Exposed:
        kinds = 0
        for m in melds:
            for t in m.tiles:
                kinds |= 1 << t
        return Exposed(len(melds), any(m.kind == CHOW for m in melds), kinds)


@value("wuhan.Shape")
class Shape:
    """The shapes one reading of a complete hand makes (see the module docstring)."""

    hard: bool
    small: bool = False
    pungs: bool = False
    one_suit: bool = False
    all_258: bool = False
    all_honors: bool = False


def _code(b: bytes, tables: tuple[dict[bytes, int], dict[bytes, int]]) -> int:
    number, honors = tables
    get = number.get
    return COMBINE[COMBINE[COMBINE[get(b[0:9], DEAD)][get(b[9:18], DEAD)]][get(b[18:27], DEAD)]][
        honors.get(b[27:34], DEAD)
    ]


def _shape(b: bytes, wilds: int, exposed: Exposed, hard: bool) -> Shape | None:
    v = int.from_bytes(b, "little")
    kinds = exposed.kinds
    all_258 = not (v & _NOT_258_BYTES or kinds & _NOT_258_BITS)
    all_honors = not (v & _NUMBER_BYTES or kinds & _NUMBER_BITS)
    wins = _WINS_WITH[wilds]
    if not wins[_code(b, _ANY)]:
        # Only the shapeless hands (乱将, 乱风) are left.
        if all_258 or all_honors:
            return Shape(hard, all_258=all_258, all_honors=all_honors)
        return None
    one_suit = any(not (v & _OUTSIDE_SUIT_BYTES[s] or kinds & _OUTSIDE_SUIT_BITS[s]) for s in range(3))
    pungs = not exposed.chows and wins[_code(b, _PUNGS)]
    if one_suit and all_258 and not pungs:
        # 2/5/8 of one suit make no run, so the two can only hold together as pungs: without
        # that, the wilds that make the one suit complete are not all 2/5/8.
        all_258 = False
    small = wins[_code(b, _PAIR_258)]
    if not (small or pungs or one_suit or all_258 or all_honors):
        return None  # four sets and a pair that is not 2, 5 or 8: no win
    return Shape(hard, small, pungs, one_suit, all_258, all_honors)


NO_MELDS = Exposed()


def readings(concealed: Sequence[int], laizi: int, exposed: Exposed = NO_MELDS) -> tuple[Shape, ...]:
    """The complete readings of a hand: hard first, then soft (only when it holds a 赖子).

    `concealed` is the 34 counts of the tiles in hand (the 赖子 as their own kind, the winning
    tile included); `exposed` describes the melds. Wilds may stand for any tile, a fifth copy
    included, as everywhere in engine.mahjong."""
    if sum(concealed) != 14 - 3 * exposed.count:
        return ()
    b = bytes(concealed)
    found = []
    hard = _shape(b, 0, exposed, True)
    if hard is not None:
        found.append(hard)
    wilds = b[laizi]
    if wilds:
        soft = _shape(b[:laizi] + b"\0" + b[laizi + 1 :], min(wilds, MAX_WILDS), exposed, False)
        if soft is not None:
            found.append(soft)
    return tuple(found)
