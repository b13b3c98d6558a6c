"""Bot strength: one `strong` bot against three `easy`, and one against three `normal`, per
ruleset, seats rotated hand by hand; all-bot koudian tables' share of drawn hands; the strong
bot's decision time.

Reports each side's win rate (a hand whose deltas pay the seat), average points per hand (the
seat's delta) and deal-in rate (the seat discarded the tile another won on), each with a 95 %
interval, into bench/results/bots.json. Goals (issue 31): strong wins at least twice as often as
an easy seat in koudian, wuhan and jj and scores positive against normal; in daqi the strong side
wins >= 60 % of hands against easy; all-strong koudian tables draw < 30 % of hands; a decision
takes <= 2 ms at the median and <= 20 ms at p99 (`decision_ms_p50`/`_p99`: the slowest
ruleset's; each ruleset's under `decision_ms_p50_<game>`). A decision's time is the CPU time its
thread spent on it: on a shared machine wall time also counts the waits for a core.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import RESULTS, table, write  # noqa: E402
from engine import rulesets  # noqa: E402
from engine.bots.levels import bot  # noqa: E402
from engine.core.contract import AnyRuleset, StartHand, Status  # noqa: E402
from engine.driver import apply, apply_all, bot_command, fold  # noqa: E402
from engine.mahjong.actions import Win  # noqa: E402
from engine.selfplay import HANDS_PER_TABLE, hand_secrets  # noqa: E402

GAMES = ("koudian", "wuhan", "jj", "daqi")
MAHJONG = ("koudian", "wuhan", "jj")


@dataclass
class Side:
    """One level's record over the hands played: per seat-hand, won / points / dealt in."""

    wins: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    deal_ins: list[int] = field(default_factory=list)


@dataclass
class Run:
    strong: Side = field(default_factory=Side)
    others: Side = field(default_factory=Side)
    drawn: int = 0
    hands: int = 0
    decision_ns: list[int] = field(default_factory=list)


def play(game: str, levels_at: Sequence[str] | None, opponent: str, hands: int, seed: int,
         timed: bool = True) -> Run:
    """`hands` hands of `game`: one strong seat (rotating: seat = hand number mod seats) against
    `opponent` in the others; `levels_at` fixed instead gives every seat its level."""
    rs = rulesets.get(game)
    opts = rs.new_options(None)
    seats = rs.seats(opts)
    strong_bot = bot(rs, "strong")
    other_bot = bot(rs, opponent)
    run = Run()
    rng = random.Random(seed)
    state: Any = None
    tables = 0
    here = 0
    for n in range(hands):
        if state is None or rs.status(state) is Status.MATCH_OVER or here >= HANDS_PER_TABLE:
            tables += 1
            state = fold(rs, list(rs.create(f"bots-{seed}-{tables}", opts)))
            here = 0
        strong_seat = n % seats if levels_at is None else -1
        won_on: list[int] = []
        chooser = _chooser(rs, seats, strong_seat, levels_at, strong_bot, other_bot, won_on, run, timed)
        log: list[Any] = []
        state = apply(rs, state, StartHand(*hand_secrets(seed, n + 1)), log)
        while rs.status(state) is Status.IN_HAND:
            state = apply_all(rs, state, bot_command(rs, state, seats, chooser, rng), log)
        here += 1
        result = rs.hand_result(state)
        assert result is not None
        run.hands += 1
        run.drawn += all(d == 0 for d in result.deltas)
        for s in range(seats):
            side = run.strong if s == strong_seat else run.others
            side.wins.append(int(result.deltas[s] > 0))
            side.points.append(result.deltas[s])
            side.deal_ins.append(int(s in won_on))
    return run


def _chooser(rs: AnyRuleset, seats: int, strong_seat: int, levels_at: Sequence[str] | None, strong_bot: Any,
             other_bot: Any, won_on: list[int], run: Run, timed: bool) -> Any:
    by_seat = [bot(rs, levels_at[s]) for s in range(seats)] if levels_at else None

    def choose(view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        if by_seat is not None:
            cmd = by_seat[view.seat](view, legal, rng)
        elif view.seat == strong_seat:
            t0 = time.thread_time_ns()
            cmd = strong_bot(view, legal, rng)
            if timed:
                run.decision_ns.append(time.thread_time_ns() - t0)
        else:
            cmd = other_bot(view, legal, rng)
        if cmd is None:  # the 托管 default: a win it may take is taken
            cmd = next((a for a in legal if isinstance(a, Win)), None)
        if isinstance(cmd, Win) and view.phase in ("claims", "robbing") and view.turn is not None:
            won_on.append(view.turn)
        return cmd

    return choose


def rate(xs: Sequence[int]) -> tuple[float, float, float]:
    """A proportion and its 95 % Wilson interval."""
    n = len(xs)
    if not n:
        return 0.0, 0.0, 0.0
    p = sum(xs) / n
    z = 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, max(0.0, centre - half), min(1.0, centre + half)


def mean(xs: Sequence[int]) -> tuple[float, float, float]:
    """A mean and its 95 % normal interval."""
    if len(xs) < 2:
        return (float(xs[0]) if xs else 0.0), 0.0, 0.0
    m = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, m - half, m + half


def _r(x: float) -> float:
    return round(x, 4)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=2000, help="hands per ruleset and match-up")
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--games", default=",".join(GAMES))
    p.add_argument("--quick", action="store_true", help="a short run (100 hands each)")
    p.add_argument("--merge", action="store_true",
                   help="keep the figures of bench/results/bots.json this run does not replace "
                        "(rulesets run in separate processes)")
    args = p.parse_args(argv)
    hands = 100 if args.quick else args.hands
    games = [g for g in args.games.split(",") if g]
    figures: dict[str, Any] = {"hands_per_matchup": hands, "seed": args.seed}
    rows = []
    timings: list[int]
    for game in games:
        timings = []
        for opponent in ("easy", "normal"):
            print(f"bots {game}: strong vs 3 {opponent}, {hands} hands ...", file=sys.stderr, flush=True)
            run = play(game, None, opponent, hands, args.seed)
            timings += run.decision_ns
            key = f"strong_vs_{opponent}"
            sw, ow = rate(run.strong.wins), rate(run.others.wins)
            sp, op = mean(run.strong.points), mean(run.others.points)
            sd, od = rate(run.strong.deal_ins), rate(run.others.deal_ins)
            for name, (value, low, high) in (("win_rate", sw), ("opponent_win_rate", ow),
                                             ("points_per_hand", sp), ("opponent_points_per_hand", op),
                                             ("deal_in_rate", sd), ("opponent_deal_in_rate", od)):
                figures[f"{key}_{name}_{game}"] = _r(value)
                figures[f"{key}_{name}_{game}_low95"] = _r(low)
                figures[f"{key}_{name}_{game}_high95"] = _r(high)
            # The ratio (none when the opponents never won) and a bound that holds at 95 %:
            # strong's low bound over the opponents' high bound.
            ratio = sw[0] / ow[0] if ow[0] else None
            figures[f"{key}_win_ratio_{game}"] = _r(ratio) if ratio is not None else None
            figures[f"{key}_win_ratio_{game}_low95"] = _r(sw[1] / ow[2]) if ow[2] else None
            rows.append([game, opponent, f"{sw[0]:.3f} [{sw[1]:.3f},{sw[2]:.3f}]",
                         f"{ow[0]:.3f}", "-" if ratio is None else f"{ratio:.2f}",
                         f"{sp[0]:+.2f} [{sp[1]:+.2f},{sp[2]:+.2f}]", f"{op[0]:+.2f}",
                         f"{sd[0]:.3f}", f"{od[0]:.3f}"])
        ms = sorted(t / 1e6 for t in timings)
        figures[f"decision_ms_p50_{game}"] = _r(ms[len(ms) // 2])
        figures[f"decision_ms_p99_{game}"] = _r(ms[min(len(ms) - 1, int(len(ms) * 0.99))])
        figures[f"decisions_timed_{game}"] = len(ms)
    if "koudian" in games:
        for level in ("easy", "strong"):
            print(f"bots koudian: four {level}, {hands} hands ...", file=sys.stderr, flush=True)
            run = play("koudian", (level,) * 4, level, hands, args.seed + 1, timed=False)
            share, low, high = rate([1] * run.drawn + [0] * (run.hands - run.drawn))
            figures[f"drawn_share_all_{level}_koudian"] = _r(share)
            figures[f"drawn_share_all_{level}_koudian_low95"] = _r(low)
            figures[f"drawn_share_all_{level}_koudian_high95"] = _r(high)
    if args.merge and (RESULTS / "bots.json").exists():
        figures = {**json.loads((RESULTS / "bots.json").read_text()), **figures}
    # The slowest ruleset's median and p99 (each ruleset's are under its own keys).
    for q in ("p50", "p99"):
        per_game = [v for k, v in figures.items() if k.startswith(f"decision_ms_{q}_")]
        if per_game:
            figures[f"decision_ms_{q}"] = max(per_game)
    print(table(["ruleset", "vs", "strong wins [95%]", "their wins", "ratio", "strong points/hand [95%]",
                 "their points", "strong deal-in", "their deal-in"], rows))
    for k in ("drawn_share_all_easy_koudian", "drawn_share_all_strong_koudian", "decision_ms_p50", "decision_ms_p99"):
        if k in figures:
            print(f"{k}: {figures[k]} [{figures.get(k + '_low95', '')}, {figures.get(k + '_high95', '')}]"
                  if k + "_low95" in figures else f"{k}: {figures[k]}")
    print(f"wrote {write('bots', figures)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
