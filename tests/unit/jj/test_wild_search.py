"""混: a hand's fans are the best over every assignment of its 混 that wins. The pruned search
(engine.jj.hun.completions) must find exactly what trying every substitution finds."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.jj.fans import Situation
from engine.jj.winning import best_by_brute_force, best_win, reaches

WILD = 31  # 中


def hand_with_wilds(seed: int, wilds: int) -> tuple[tuple[int, ...], int]:
    """14 tiles in sets and a pair (sometimes seven pairs, sometimes one tile off), `wilds` of
    them then turned into 混; and the winning tile."""
    rng = random.Random(seed)
    kinds = [t for t in range(34) if t != WILD]
    c = [0] * 34
    if rng.random() < 0.2:
        for t in rng.sample(kinds, 7):
            c[t] += 2
    else:
        while sum(c) < 12:
            if rng.random() < 0.5:
                t = rng.choice([k for k in kinds if k < 27 and k % 9 <= 6])
                group = (t, t + 1, t + 2)
            else:
                group = (rng.choice(kinds),) * 3
            if all(c[u] + group.count(u) <= 4 for u in group):
                for u in group:
                    c[u] += 1
        pair = rng.choice([k for k in kinds if c[k] <= 2])
        c[pair] += 2
    if rng.random() < 0.2:
        c[rng.choice([t for t in kinds if c[t]])] -= 1
        c[rng.choice([t for t in kinds if c[t] < 4])] += 1
    tiles = [t for t in range(34) for _ in range(c[t])]
    for t in rng.sample(tiles, wilds):
        c[t] -= 1
    c[WILD] = wilds
    win = WILD if wilds and rng.random() < 0.5 else rng.choice([t for t in kinds if c[t]])
    return tuple(c), win


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.integers(0, 4), st.booleans())
def test_the_wild_search_finds_what_every_substitution_finds(seed, wilds, self_drawn):
    concealed, win = hand_with_wilds(seed, wilds)
    situation = Situation(self_drawn=self_drawn or win == WILD)
    searched = best_win(concealed, WILD, (), 0, win, situation)
    brute = best_by_brute_force(concealed, WILD, (), 0, win, situation)
    assert (searched and searched.total) == (brute and brute.total)


def test_a_wild_never_stands_for_a_fifth_copy():
    # 1111m + 混: the 混 cannot be a fifth 1m, so 1111m 23m... must read the 混 elsewhere.
    c = [0] * 34
    for t in (0, 0, 0, 0, 1, 2, 9, 10, 11, 18, 19, 20, 22):
        c[t] += 1
    c[WILD] = 1
    s = best_win(c, WILD, (), 0, 22, Situation())
    assert s is not None and 0 not in s.wild_for


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.integers(0, 40))
def test_the_win_check_agrees_with_the_best_scoring_on_the_minimum(seed, wilds, min_fan):
    concealed, win = hand_with_wilds(seed, wilds)
    situation = Situation(self_drawn=win == WILD)
    best = best_win(concealed, WILD, (), 0, win, situation)
    assert reaches(concealed, WILD, (), 0, win, situation, min_fan) == (best is not None and best.counted >= min_fan)
