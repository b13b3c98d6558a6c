"""Win checks per second: engine.mahjong.hand.is_win with 0..4 wilds against the PyPI `mahjong`
library's `Agari.is_agari` on the same wild-free hands, in the same run; and wuhan's hard/soft
reading (engine.wuhan.shapes.readings: 硬胡 and 软胡, the 2-5-8 pair, 碰碰胡, 清一色, 将一色,
风一色) with 0..4 赖子, which no library offers to compare with.

`Agari.is_agari` accepts three shapes: four sets and a pair, seven pairs (seven different
pairs) and thirteen orphans; `is_win` checks the first only. So the ratio (`ratio_vs_mahjong_lib`)
compares Agari with `is_win` plus the same two other shapes (`same_shapes` below: both must
answer alike on every hand, `disagreements_with_ref`, counted: an error), and
`ratio_vs_mahjong_lib_standard_only` with `is_win` alone, which does less.

Hands are 14 tiles as 34 counts, made before timing from a seeded RNG: half built as wins (four
random sets and a pair), half dealt at random from the 136 tiles. A hand with w wilds is the same
hand with w of its tiles turned into wilds, so built wins stay wins. Each figure is the best of
several timed passes over all hands (at least 3), interleaved between the checks; the ratio's
lowest and highest pass (`ratio_vs_mahjong_lib_min` / `_max`, each the two checks' rates within
one pass) show how steady it is. Every check is called
directly with its arguments by one loop (`check(*arguments)`), the reference too.
"""

from __future__ import annotations

import argparse
import operator
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mahjong.agari import Agari  # noqa: E402

from bench._report import Errors, table, write  # noqa: E402
from engine.mahjong import suit_table  # noqa: E402
from engine.mahjong.hand import is_win  # noqa: E402
from engine.mahjong.tiles import FULL_SET  # noqa: E402
from engine.wuhan.shapes import readings  # noqa: E402

_ORPHANS = operator.itemgetter(0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def same_shapes(c: list[int]) -> bool:
    """The shapes Agari accepts, for a 14-tile hand: `is_win`, seven different pairs, or thirteen
    orphans (one of each terminal and honour, one of them twice)."""
    if is_win(c) or c.count(2) == 7:
        return True
    orphans = _ORPHANS(c)
    return 0 not in orphans and sum(orphans) == 14


_SETS = [(t, t, t) for t in range(34)] + [(t, t + 1, t + 2) for t in range(27) if t % 9 <= 6]


def _built_win(rng: random.Random) -> list[int]:
    while True:
        tiles = [t for g in rng.choices(_SETS, k=4) for t in g] + [rng.randrange(34)] * 2
        if max(tiles.count(t) for t in set(tiles)) <= 4:
            rng.shuffle(tiles)
            return tiles


def make_hands(n: int, seed: int) -> list[list[int]]:
    """n hands of 14 tile ids, in random order within each hand."""
    rng = random.Random(seed)
    return [_built_win(rng) if i % 2 == 0 else rng.sample(FULL_SET, 14) for i in range(n)]


def special_hands(seed: int) -> list[list[int]]:
    """Hands the built and dealt ones hardly ever are, for the agreement check only: seven
    different pairs, seven pairs with a kind four times (not seven pairs to Agari), thirteen
    orphans, and thirteen orphans with a middle tile instead of the pair."""
    rng = random.Random(seed)
    hands = []
    for _ in range(100):
        kinds = rng.sample(range(34), 7)
        c = [0] * 34
        for k in kinds:
            c[k] = 2
        hands.append(c)
        quad = list(c)
        quad[kinds[0]], quad[kinds[1]] = 4, 0
        hands.append(quad)
        orphans = [1 if t in (0, 8, 9, 17, 18, 26) or t >= 27 else 0 for t in range(34)]
        orphans[rng.choice([0, 8, 9, 17, 18, 26, 27, 33])] += 1
        hands.append(orphans)
        broken = [1 if t in (0, 8, 9, 17, 18, 26) or t >= 27 else 0 for t in range(34)]
        broken[rng.choice([1, 2, 3, 4, 5, 6, 7])] += 1
        hands.append(broken)
    return hands


def as_counts(tiles: list[int], wilds: int) -> list[int]:
    c = [0] * 34
    for t in tiles[wilds:]:  # the first `wilds` tiles become wilds
        c[t] += 1
    return c


def with_laizi(tiles: list[int], laizi_held: int) -> tuple[list[int], int]:
    """(counts, 赖子 kind) of the hand with its first `laizi_held` tiles turned into the 赖子, a
    kind the rest of the hand does not hold (so that it holds exactly that many)."""
    rest = tiles[laizi_held:]
    laizi = next(k for k in range(34) if k not in rest)
    c = [0] * 34
    for t in rest:
        c[t] += 1
    c[laizi] = laizi_held
    return c, laizi


def _pass_seconds(check, calls: list[tuple]) -> float:
    start = time.perf_counter()
    for arguments in calls:
        check(*arguments)
    return time.perf_counter() - start


def best_rates(checks: dict[object, tuple], repeats: int) -> tuple[dict[object, float], list[dict[object, float]]]:
    """Checks per second of each `(check, calls)` (each call a tuple of arguments), best pass of
    `repeats`, and every pass's; the passes of all checks are interleaved so a busy machine slows
    every side alike."""
    passes = []
    for _ in range(repeats):
        passes.append({name: len(calls) / _pass_seconds(check, calls) for name, (check, calls) in checks.items()})
    return {name: max(p[name] for p in passes) for name in checks}, passes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--hands", type=int, default=20_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--quick", action="store_true", help="a short run (4,000 hands, 3 passes)")
    args = p.parse_args(argv)
    n, repeats = (4_000, 3) if args.quick else (args.hands, args.repeats)

    start = time.perf_counter()
    suit_table.sets_costs.cache_clear()
    suit_table.build(9, runs=True)
    build_s = time.perf_counter() - start

    hands = make_hands(n, args.seed)
    by_wilds = {w: [as_counts(t, w) for t in hands] for w in range(5)}
    plain = by_wilds[0]

    ref = Agari.is_agari
    errors = Errors()
    disagree = sum(1 for c in plain + special_hands(args.seed) if same_shapes(c) != ref(c))
    errors.kinds["same_shapes and Agari disagree"] += disagree
    wins = {w: sum(is_win(c, w) for c in by_wilds[w]) for w in range(5)}

    # wuhan: the hand's 赖子 kind travels with its counts.
    wuhan = {w: [with_laizi(t, w) for t in hands] for w in range(5)}
    wuhan_wins = {w: sum(bool(readings(c, laizi)) for c, laizi in wuhan[w]) for w in range(5)}

    checks: dict[object, tuple] = {w: (is_win, [(c, w) for c in by_wilds[w]]) for w in range(5)}
    checks["ref"] = (ref, [(c,) for c in plain])
    checks["same"] = (same_shapes, [(c,) for c in plain])
    for w in range(5):
        checks[f"wuhan{w}"] = (readings, wuhan[w])
    measured, passes = best_rates(checks, repeats)
    per_pass = sorted(p["same"] / p["ref"] for p in passes)  # the ratio within each pass
    rates = {w: measured[w] for w in range(5)}
    wuhan_rates = {w: measured[f"wuhan{w}"] for w in range(5)}
    ref_rate, same_rate = measured["ref"], measured["same"]
    ratio, standard_ratio = same_rate / ref_rate, rates[0] / ref_rate

    rows = [[f"is_win, {w} wild{'s' if w != 1 else ''}", n, wins[w] / n, rates[w], 1e6 / rates[w]] for w in range(5)]
    rows.append(["is_win + seven pairs + 13 orphans", n, sum(map(same_shapes, plain)) / n, same_rate,
                 1e6 / same_rate])
    rows.append(["mahjong Agari.is_agari (same shapes)", n, sum(map(ref, plain)) / n, ref_rate, 1e6 / ref_rate])
    rows += [[f"wuhan hard/soft reading, {w} 赖子", n, wuhan_wins[w] / n, wuhan_rates[w], 1e6 / wuhan_rates[w]]
             for w in range(5)]
    print(table(["check", "hands", "win share", "checks/s", "µs/check"], rows))
    print(f"ratio vs mahjong lib on the same shapes (0 wilds): {ratio:.2f} (goal >= 1.5); is_win alone (standard "
          f"shape only, less work than Agari): {standard_ratio:.2f}; 4 wilds: {rates[4]:,.0f}/s (goal >= 100,000)")
    print(f"the same-shapes ratio pass by pass ({repeats} passes): {', '.join(f'{r:.2f}' for r in per_pass)}")
    print(f"wuhan hard/soft reading with 4 赖子: {wuhan_rates[4]:,.0f}/s (goal >= 100,000)")
    print(f"number-suit table build: {build_s:.2f} s; disagreements with Agari on the same shapes: {disagree}")
    print(errors.line())

    figures: dict[str, float | int] = {f"checks_per_s_{w}wild": round(rates[w]) for w in range(5)}
    figures.update({f"wuhan_checks_per_s_{w}laizi": round(wuhan_rates[w]) for w in range(5)})
    figures.update(
        ref_checks_per_s=round(ref_rate),
        same_shapes_checks_per_s=round(same_rate),
        ratio_vs_mahjong_lib=round(ratio, 2),
        ratio_vs_mahjong_lib_min=round(per_pass[0], 2),
        ratio_vs_mahjong_lib_max=round(per_pass[-1], 2),
        passes=repeats,
        ratio_vs_mahjong_lib_standard_only=round(standard_ratio, 2),
        hands=n,
        table_build_s=round(build_s, 3),
        disagreements_with_ref=disagree,
    )
    figures.update(errors.figures())
    print(f"wrote {write('wincheck', figures)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
