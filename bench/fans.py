"""jj's fan count: PyMahjongGB calls per win over self-play, the 4-混 win check (us_per_win_4hun, CPU time:
does the hand win with 8+ fans, cold caches) and the best scoring of that win, and the 混 search
against trying every substitution on the same hands (ratio_vs_bruteforce), in the same run.

    .venv/bin/python bench/fans.py [--hands 300] [--seed 1]      (also run by `make bench`)
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import table, write  # noqa: E402
from clients.selfplay import play  # noqa: E402
from engine.jj import hun, mcr, winning  # noqa: E402
from engine.jj.fans import Situation  # noqa: E402

WILD = 31  # 中 as the 混 of the generated hands


def _clear() -> None:
    for cached in (hun.completions, hun.shape_wins, mcr.mcr_fans, winning._search):
        cached.cache_clear()


def winning_hand(rng: random.Random, wilds: int) -> tuple[tuple[int, ...], int]:
    """A random standard winning hand, `wilds` of its tiles then turned into 混, and its winning tile."""
    while True:
        c = [0] * 34
        kinds = [t for t in range(34) if t != WILD]
        while sum(c) < 12:
            if rng.random() < 0.5:
                t = rng.choice([k for k in kinds if k < 27 and k % 9 <= 6])
                group: tuple[int, ...] = (t, t + 1, t + 2)
            else:
                group = (rng.choice(kinds),) * 3
            if all(c[u] + group.count(u) <= 4 for u in group):
                for u in group:
                    c[u] += 1
        c[rng.choice([k for k in kinds if c[k] <= 2])] += 2
        tiles = [t for t in range(34) for _ in range(c[t])]
        for t in rng.sample(tiles, wilds):
            c[t] -= 1
        c[WILD] = wilds
        win = rng.choice([t for t in range(34) if c[t] and t != WILD] or [WILD])
        return tuple(c), win


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="a short run (60 self-play hands)")
    args = ap.parse_args()
    if args.quick:
        args.hands = 60
    rng = random.Random(args.seed)

    _clear()
    before = mcr.CallCounter.calls
    summary = play("jj", args.hands, args.seed, verify=False)
    wins = sum(n for outcome, n in summary.outcomes.items() if outcome != "draw")
    calls = mcr.CallCounter.calls - before
    calls_per_win = calls / wins if wins else 0.0

    sit = Situation(self_drawn=True)
    four = [winning_hand(rng, 4) for _ in range(200)]
    started = time.process_time()
    for c, win in four:
        _clear()
        assert winning.reaches(c, WILD, (), 0, win, sit, 8)
    us_4 = (time.process_time() - started) / len(four) * 1e6
    started = time.process_time()
    for c, win in four:
        _clear()
        winning.best_win(c, WILD, (), 0, win, sit)
    us_best_4 = (time.process_time() - started) / len(four) * 1e6
    started = time.process_time()
    for c, _win in four:
        _clear()
        naturals = list(c)
        naturals[WILD] = 0
        hun.shape_wins(tuple(naturals), 4, 0)
    us_check_4 = (time.process_time() - started) / len(four) * 1e6

    mixed = [winning_hand(rng, rng.randint(0, 3)) for _ in range(30)]
    started = time.process_time()
    for c, win in mixed:
        _clear()
        winning.best_win(c, WILD, (), 0, win, sit)
    searched = time.process_time() - started
    started = time.process_time()
    for c, win in mixed:
        _clear()
        winning.best_by_brute_force(c, WILD, (), 0, win, sit)
    brute = time.process_time() - started

    figures = {
        "hands": summary.hands,
        "wins": wins,
        "fan_calls_per_win": round(calls_per_win, 2),
        "selfplay_hands_per_s": round(summary.hands_per_s, 1),
        "us_per_win_4hun": round(us_4, 1),
        "us_per_best_scoring_4hun": round(us_best_4, 1),
        "us_per_shape_check_4hun": round(us_check_4, 1),
        "ratio_vs_bruteforce": round(brute / searched, 1) if searched else 0.0,
        "search_ms_per_hand": round(searched / len(mixed) * 1e3, 3),
        "bruteforce_ms_per_hand": round(brute / len(mixed) * 1e3, 3),
    }
    print(table(["figure", "value"], list(figures.items())))
    print(f"wrote {write('fans', figures)}")


if __name__ == "__main__":
    main()
