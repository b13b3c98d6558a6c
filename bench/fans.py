"""jj's fan count: PyMahjongGB calls per win over self-play, the 4-混 win check (us_per_win_4hun, CPU time:
does the hand win with 8+ fans, cold caches) and the best scoring of that win, and the 混 search
against a fair brute force on the same hands (ratio_vs_bruteforce), in the same run.

The brute force is what one would write first without the search, done fairly: every
substitution of the 混, each first checked for a winning shape (`hun.shape_wins`, the cheap
test the search uses too), and only those that have one scored (PyMahjongGB, then jj's
additions), keeping the best. Without that prefilter most substitutions would go to PyMahjongGB
only to be refused. Both must give the same scoring for every hand (`disagreements`, counted:
an error). The hands (0 to 3 混, built as wins) come in `--rounds` rounds (default 3) of
`--mixed` hands each (default 100), each round its own hands; the ratio is the round's brute-force
CPU time ÷ the search's, reported as the median with the lowest and highest round
(`ratio_vs_bruteforce_min` / `_max`).

    .venv/bin/python bench/fans.py [--hands 300] [--mixed 100] [--rounds 3] [--seed 1]
                                                                 (also run by `make bench`)
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Errors, table, write  # noqa: E402
from clients.selfplay import play  # noqa: E402
from engine.jj import hun, mcr, winning  # noqa: E402
from engine.jj.fans import Situation  # noqa: E402

WILD = 31  # 中 as the 混 of the generated hands


def _clear() -> None:
    for cached in (hun.completions, hun.shape_wins, mcr.mcr_fans, winning._search):
        cached.cache_clear()


def brute_force(c: tuple[int, ...], win: int, sit: Situation) -> winning.Scored | None:
    """The best scoring by trying every substitution of the 混, each prefiltered by its shape."""
    naturals, wilds = hun.split(c, WILD)
    in_melds, packs = winning._meld_info((), 0)
    best: winning.Scored | None = None
    for full in hun.brute_force(naturals, wilds, in_melds):
        if not hun.shape_wins(full, 0, 0):
            continue
        stood_for = tuple(t for t in range(34) for _ in range(full[t] - naturals[t]))
        for win_as in winning._win_choices(full, stood_for, win, WILD):
            floor = -1 if best is None else best.total
            scored = winning._score_natural(full, wilds, (), packs, stood_for, win_as, sit, (0,) * 34, floor)
            if scored is not None and (best is None or scored.total > best.total):
                best = scored
    return best


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300, help="self-play hands")
    ap.add_argument("--mixed", type=int, help="hands per round, search against brute force (default 100)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="a short run (60 self-play hands, 3 rounds of 40)")
    args = ap.parse_args()
    if args.quick:
        args.hands = 60
    if args.mixed is None:
        args.mixed = 40 if args.quick else 100
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

    errors = Errors()
    ratios: list[float] = []
    searched = brute = 0.0
    for _ in range(args.rounds):
        mixed = [winning_hand(rng, rng.randint(0, 3)) for _ in range(args.mixed)]
        found = []
        started = time.process_time()
        for c, win in mixed:
            _clear()
            found.append(winning.best_win(c, WILD, (), 0, win, sit))
        round_searched = time.process_time() - started
        by_brute = []
        started = time.process_time()
        for c, win in mixed:
            _clear()
            by_brute.append(brute_force(c, win, sit))
        round_brute = time.process_time() - started
        for a, b in zip(found, by_brute, strict=True):
            if (a is None) != (b is None) or (a is not None and b is not None and a.total != b.total):
                errors.add("search and brute force disagree")
        ratios.append(round_brute / round_searched if round_searched else 0.0)
        searched, brute = searched + round_searched, brute + round_brute
    n_mixed = args.mixed * args.rounds

    figures = {
        "hands": summary.hands,
        "wins": wins,
        "fan_calls_per_win": round(calls_per_win, 2),
        "selfplay_hands_per_s": round(summary.hands_per_s, 1),
        "us_per_win_4hun": round(us_4, 1),
        "us_per_best_scoring_4hun": round(us_best_4, 1),
        "us_per_shape_check_4hun": round(us_check_4, 1),
        "ratio_vs_bruteforce": round(statistics.median(ratios), 1) if ratios else 0.0,
        "ratio_vs_bruteforce_min": round(min(ratios, default=0.0), 1),
        "ratio_vs_bruteforce_max": round(max(ratios, default=0.0), 1),
        "bruteforce_hands": n_mixed,
        "bruteforce_rounds": args.rounds,
        "search_ms_per_hand": round(searched / max(n_mixed, 1) * 1e3, 3),
        "bruteforce_ms_per_hand": round(brute / max(n_mixed, 1) * 1e3, 3),
        **errors.figures(),
    }
    print(table(["figure", "value"], list(figures.items())))
    print(f"search against the prefiltered brute force, ratio per round: {', '.join(f'{r:.1f}' for r in ratios)}")
    print(errors.line())
    print(f"wrote {write('fans', figures)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
