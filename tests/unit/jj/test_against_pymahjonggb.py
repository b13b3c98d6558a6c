"""engine/jj counted independently (tests/unit/jj/reference.py): PyMahjongGB's own fans plus the
JJ additions written again from jj.md must give the engine's total, hand by hand, over random
winning hands of every shape; with 混, the best over every substitution. Seeded, so CI sees the
same hands each run."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.jj.fans import ADDITIONS, READS_SETS, Situation, Win
from engine.jj.winning import best_win
from engine.mahjong.melds import CHOW, PONG
from engine.mahjong.melds import Meld as EngineMeld
from engine.mahjong.tiles import tile
from tests.unit.jj import reference
from tests.unit.jj.reference import KNITS, Case, Meld

WILD = 31  # 中: the 混 of the hands with wilds, held by no hand as a natural tile
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
BIASED_LOWS = [t for t in range(27) if t % 9 in (0, 3, 6)]  # chows that make 混龙, 清龙, 花龙
BIASED_PAIRS = [t for t in range(27) if t % 9 in (0, 1, 4, 7, 8)]  # pairs that make 二五八将, 幺九头


class _Hand:
    def __init__(self, avoid: int | None) -> None:
        self.concealed = [0] * 34
        self.used = [0] * 34
        self.melds: list[Meld] = []
        self.avoid = avoid

    def put(self, tiles: list[int], meld: Meld | None = None) -> bool:
        if any(t == self.avoid or self.used[t] + tiles.count(t) > 4 for t in tiles):
            return False
        for t in tiles:
            self.used[t] += 1
            if meld is None:
                self.concealed[t] += 1
        if meld is not None:
            self.melds.append(meld)
        return True


def _set(rng: random.Random, h: _Hand, melded: bool) -> bool:
    if rng.random() < 0.55:
        low = rng.choice(BIASED_LOWS) if rng.random() < 0.5 else rng.choice([t for t in range(27) if t % 9 <= 6])
        return h.put([low, low + 1, low + 2], Meld("chow", low) if melded else None)
    t = rng.randrange(34)
    return h.put([t] * 3, Meld("pong", t) if melded else None)


def _pair(rng: random.Random, h: _Hand) -> bool:
    t = rng.choice(BIASED_PAIRS) if rng.random() < 0.5 else rng.randrange(34)
    return h.put([t, t])


def _shape(rng: random.Random, avoid: int | None) -> _Hand | None:
    """A winning hand of a random shape, or None when the draw went over four copies."""
    h = _Hand(avoid)
    shape = rng.random()
    if shape < 0.55:  # 4 sets and a pair, up to 3 of the sets melded
        melds = rng.choice((0, 0, 0, 1, 1, 2, 3))
        ok = all(_set(rng, h, i < melds) for i in range(4)) and _pair(rng, h)
    elif shape < 0.8:  # 组合龙, a set (melded or not) and a pair
        ok = h.put(list(rng.choice(KNITS))) and _set(rng, h, rng.random() < 0.3) and _pair(rng, h)
    elif shape < 0.9:  # seven pairs
        ok = all(h.put([t, t]) for t in rng.sample(range(34), 7))
    elif shape < 0.96:  # 全不靠: fourteen of one 组合龙's nine and the seven honors
        ok = h.put(rng.sample(list(rng.choice(KNITS)) + list(range(27, 34)), 14))
    else:  # 十三幺
        ok = h.put([*ORPHANS, rng.choice(ORPHANS)])
    return h if ok else None


def random_case(rng: random.Random, avoid: int | None = None) -> tuple[_Hand, Case]:
    while (h := _shape(rng, avoid)) is None:
        pass
    win = rng.choice([t for t in range(34) if h.concealed[t]])
    case = Case(tuple(h.concealed), tuple(h.melds), win, self_drawn=rng.random() < 0.4,
                seat_wind=rng.randrange(4), round_wind=rng.randrange(4), flowers=rng.choice((0, 0, 0, 1, 2, 4)),
                xuezhan=rng.random() < 0.3, declared_ready=rng.random() < 0.2, wild_in_play=rng.random() < 0.7)
    return h, case


def engine_melds(melds: tuple[Meld, ...]) -> tuple[EngineMeld, ...]:
    return tuple(EngineMeld(CHOW if m.kind == "chow" else PONG, tile(m.tile), 3) for m in melds)


def situation(case: Case) -> Situation:
    return Situation(self_drawn=case.self_drawn, seat_wind=case.seat_wind, round_wind=case.round_wind,
                     flowers=case.flowers, xuezhan=case.xuezhan, declared_ready=case.declared_ready,
                     wild_in_play=case.wild_in_play)


def engine_total(concealed: tuple[int, ...], wild: int | None, case: Case, win: int) -> int | None:
    scored = best_win(concealed, wild, engine_melds(case.melds), 0, win, situation(case))
    return None if scored is None else scored.total


def test_without_wilds_the_engine_counts_pymahjonggbs_fans_plus_the_jj_additions():
    rng = random.Random(27)
    for n in range(1200):
        _, case = random_case(rng)
        expected = reference.total(case)
        assert expected is not None, f"hand {n} does not win: {case}"
        assert engine_total(case.full, None, case, case.win) == expected, f"hand {n}: {case}"


@pytest.mark.slow
def test_with_1_to_4_wilds_the_engine_scores_the_best_of_every_substitution():
    rng = random.Random(2727)
    for wilds, hands in ((1, 60), (2, 30), (3, 4), (4, 1)):
        for n in range(hands):
            h, case = random_case(rng, avoid=WILD)
            naturals = list(h.concealed)
            for gone in rng.sample([t for t in range(34) for _ in range(naturals[t])], wilds):
                naturals[gone] -= 1
            win_is_wild = case.self_drawn and rng.random() < 0.5
            if not win_is_wild and not naturals[case.win]:
                case = Case(**{**case.__dict__, "win": rng.choice([t for t in range(34) if naturals[t]])})
            case = Case(**{**case.__dict__, "wild_in_play": True})
            concealed = list(naturals)
            concealed[WILD] = wilds
            expected = reference.best_over_substitutions(naturals, wilds, case, win_is_wild)
            got = engine_total(tuple(concealed), WILD, case, WILD if win_is_wild else case.win)
            assert got == expected, f"{wilds} 混, hand {n}: {naturals} {case}"


knitted_hands = st.tuples(
    st.sampled_from(KNITS),
    st.sampled_from([("run", t) for t in range(27) if t % 9 <= 6] + [("pung", t) for t in range(34)]),
    st.booleans(),  # the set melded
    st.integers(0, 33),  # the pair
    st.integers(0, 13),  # which concealed tile came last
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(knitted_hands)
def test_every_pair_reading_addition_reads_a_knitted_straight_hand_as_a_brute_force_over_readings(hand):
    knit, (kind, low), melded, pair, last = hand
    group = [low, low + 1, low + 2] if kind == "run" else [low] * 3
    tiles = [*knit, pair, pair] + ([] if melded else group)
    assume(all(tiles.count(t) + (group.count(t) if melded else 0) <= 4 for t in tiles))
    full = tuple(tiles.count(t) for t in range(34))
    melds = (Meld("chow" if kind == "run" else "pong", low),) if melded else ()
    w = Win(full, 0, engine_melds(melds), Situation())
    brute = reference.readings(full, len(melds))
    assert brute, "a 组合龙 hand with a pair has a reading"
    for name in READS_SETS:
        value, definition = ADDITIONS[name]
        engine_best = max(value * definition(w, d) for d in w.readings)
        assert engine_best == max(reference.READING_ADDITIONS[name](r, melds) for r in brute), name
    case = Case(full, melds, sorted(tiles)[last % len(tiles)])
    assert engine_total(full, None, case, case.win) == reference.total(case)
