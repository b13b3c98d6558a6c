"""口口番 scoring (rules/wuhan.md, "Scoring"): who pays the winner how much, and why.

Every multiplier belongs to one player. Each loser owes `base × (the loser's own factors) × (the
winner's factors)`; the 小胡 base is 1, a 大胡's is 10 per 大胡. A player's own factors come
from their table: ×2 per 开口 (chow, pong, 冲杠 or 蓄杠: each meld made from another's tile), ×4
per 暗杠, ×2 per 明杠 (冲杠, 蓄杠), ×2 per 皮杠, ×4 per 赖子杠. The winner adds ×2 for a self-draw
(×1.5 in a 大胡) and ×2 for a 硬胡; the discarder adds ×2 (×1.5 in a 大胡). In a 小胡 the
dealer doubles: every loser's amount when the dealer wins, else the dealer's own.

Each loser's amount is then capped (封顶, 金顶, 阳光顶, 哈顶), and a liable seat (承包) pays the
others' amounts too. Amounts are in 底分; the deltas are multiplied by the table's `base_score`.
Every line keeps its factors, so a score explains itself (`Settlement.formula`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache

from engine.core.messages import value
from engine.mahjong.melds import KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, Meld
from engine.mahjong.tiles import Tile
from engine.wuhan.big_wins import CLAIMED, SELF_DRAW, label
from engine.wuhan.options import Options
from engine.wuhan.roles import Roles

SMALL_BASE = 1
BIG_BASE = 10

# Factor names, as players say them.
OPENING = "开口"
CONCEALED_KONG = "暗杠"
EXPOSED_KONG = "明杠"
SKIN_KONG = "皮杠"
LAIZI_KONG = "赖子杠"
SELF_DRAWN = "自摸"
HARD = "硬胡"
DISCARDER = "放冲"
DEALER = "庄家"

# Caps, as players say them.
CAP = "封顶"
GOLDEN = "金顶"
SUNSHINE = "阳光顶"
HA = "哈顶"


@value("wuhan.Factor")
class Factor:
    """One multiplier that applies `times` times, each time `each` (2, 4 or 1.5)."""

    name: str
    each: float
    times: int = 1

    @property
    def value(self) -> Fraction:
        return _power(self.each, self.times)

    def __str__(self) -> str:
        suffix = f"×{self.times}" if self.times > 1 else ""
        return f"{_number(self.value)}({self.name}{suffix})"


@value("wuhan.Line")
class Line:
    """What one loser owes: their own `factors` (the dealer's doubling included), the amount
    before caps (`raw`) and after (`amount`, in 底分), the cap that applied, and who pays it."""

    seat: int
    factors: tuple[Factor, ...]
    raw: int
    amount: int
    payer: int
    cap: str | None = None


@value("wuhan.Settlement")
class Settlement:
    """A win, scored. `big_wins` names the 大胡 (empty: a 小胡); `liable` is the seat that pays
    for everyone (承包) and `liable_for` the rule that made it so; `deltas` are score changes
    (底分 × base_score), summing to zero."""

    winner: int
    base: int
    big_wins: tuple[str, ...]
    hard: bool
    winner_factors: tuple[Factor, ...]
    lines: tuple[Line, ...]
    deltas: tuple[int, ...]
    liable: int | None = None
    liable_for: str | None = None

    def payments(self) -> tuple[tuple[int, int, int], ...]:
        """Each line as a pairwise payment (payer, payee, score): what the deltas add up to."""
        scale = self.deltas[self.winner] // self.total if self.total else 0
        return tuple((line.payer, self.winner, line.amount * scale) for line in self.lines)

    @property
    def winner_multiplier(self) -> Fraction:
        return _product(self.winner_factors)

    @property
    def total(self) -> int:
        """What the winner receives, in 底分."""
        return sum(line.amount for line in self.lines)

    def formula(self, line: Line) -> str:
        """One loser's amount as arithmetic: `10 × 2(开口) × 1.5(放冲) × 12 = 360 → 封顶 400`."""
        parts = [str(self.base), *(str(f) for f in line.factors), _number(self.winner_multiplier)]
        text = f"{' × '.join(parts)} = {line.raw}"
        if line.cap is not None:
            text += f" → {line.cap} {line.amount}"
        return text

    def winner_formula(self) -> str:
        """The winner's multiplier as its factors: `12 = 8(开口×3) × 1.5(自摸)`."""
        if not self.winner_factors:
            return "1"
        return f"{_number(self.winner_multiplier)} = {' × '.join(str(f) for f in self.winner_factors)}"

    def hand_name(self) -> str:
        """`硬胡 碰碰胡+清一色`, `软胡 小胡`."""
        kind = "+".join(label(b) for b in self.big_wins) or "小胡"
        return f"{'硬胡' if self.hard else '软胡'} {kind}"


@cache
def _power(each: float, times: int) -> Fraction:
    return Fraction(each) ** times


def _number(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else str(float(x))


def _product(factors: Sequence[Factor]) -> Fraction:
    out = Fraction(1)
    for f in factors:
        out *= f.value
    return out


def opened(melds: Sequence[Meld]) -> bool:
    """开口: a chow, pong or exposed kong (a concealed kong is not)."""
    return any(m.kind in CLAIMED for m in melds)


def own_factors(melds: Sequence[Meld], laid: Sequence[Tile], roles: Roles) -> list[Factor]:
    """The multipliers a player's own table earns, whether they win or lose."""
    counted = (
        (OPENING, 2, sum(m.kind in CLAIMED for m in melds)),
        (CONCEALED_KONG, 4, sum(m.kind == KONG_CONCEALED for m in melds)),
        (EXPOSED_KONG, 2, sum(m.kind in (KONG_EXPOSED, KONG_ADDED) for m in melds)),
        (SKIN_KONG, 2, sum(roles.is_skin(t) for t in laid)),
        (LAIZI_KONG, 4, sum(roles.is_laizi(t) for t in laid)),
    )
    return [Factor(name, each, n) for name, each, n in counted if n]


def settle(
    *,
    winner: int,
    dealer: int,
    how: str,
    source: int | None,
    big_wins: tuple[str, ...],
    hard: bool,
    melds: Sequence[Sequence[Meld]],
    laid: Sequence[Sequence[Tile]],
    roles: Roles,
    options: Options,
    liable: tuple[int, str] | None = None,
) -> Settlement:
    """Score a win (see the module docstring). `source` is the discarder, or the seat whose kong
    was robbed; `liable` the (seat, rule) that pays for all (engine.wuhan.liability)."""
    seats = len(melds)
    big = bool(big_wins)
    base = BIG_BASE * len(big_wins) if big else SMALL_BASE
    odd = 1.5 if big else 2  # self-draw and discarder factors
    winner_factors = own_factors(melds[winner], laid[winner], roles)
    if how == SELF_DRAW:
        winner_factors.append(Factor(SELF_DRAWN, odd))
    if hard:
        winner_factors.append(Factor(HARD, 2))
    w = _product(winner_factors)
    losers = [s for s in range(seats) if s != winner]
    factor_rows = []
    raws = []
    for s in losers:
        factors = own_factors(melds[s], laid[s], roles)
        if s == source and how != SELF_DRAW:
            factors.append(Factor(DISCARDER, odd))
        if not big and (winner == dealer or s == dealer):
            factors.append(Factor(DEALER, 2))
        raw = base * _product(factors) * w
        assert raw.denominator == 1, "1.5 applies at most once, to a base of 10"
        factor_rows.append(tuple(factors))
        raws.append(int(raw))
    capped = caps(raws, [opened(melds[s]) for s in losers], options)
    payer_of = {s: (liable[0] if liable else s) for s in losers}
    lines = tuple(
        Line(s, factors, raw, amount, payer_of[s], cap)
        for s, factors, raw, (cap, amount) in zip(losers, factor_rows, raws, capped, strict=True)
    )
    deltas = [0] * seats
    for line in lines:
        deltas[line.payer] -= line.amount * options.base_score
        deltas[winner] += line.amount * options.base_score
    return Settlement(
        winner=winner,
        base=base,
        big_wins=big_wins,
        hard=hard,
        winner_factors=tuple(winner_factors),
        lines=lines,
        deltas=tuple(deltas),
        liable=liable[0] if liable else None,
        liable_for=liable[1] if liable else None,
    )


def caps(raws: Sequence[int], opened: Sequence[bool], options: Options) -> list[tuple[str | None, int]]:
    """(cap applied, amount) per loser. 封顶: no loser pays more than `cap`. 金顶: when every
    loser reaches the cap, each pays `golden_cap`; 阳光顶: then a loser who never opened pays
    `sunshine_cap`; 哈顶: and when none of them opened, each pays `ha_cap`."""
    if all(r >= options.cap for r in raws):
        if not any(opened):
            return [(HA, options.ha_cap)] * len(raws)
        return [(GOLDEN, options.golden_cap) if o else (SUNSHINE, options.sunshine_cap) for o in opened]
    return [(CAP, options.cap) if r > options.cap else (None, r) for r in raws]
