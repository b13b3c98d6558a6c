"""Self-play speed: hands per second per ruleset with greedy bots, every hand fully checked.

The checks (conservation, zero-sum, replay equality) run as in `qipai selfplay`, so the figure is
what an operator's soak run gets, not a bare engine loop.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import table, write  # noqa: E402
from clients.selfplay import play  # noqa: E402
from engine import rulesets  # noqa: E402

GOALS = {"koudian": 100, "daqi": 50, "wuhan": 100, "jj": 50}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--hands", type=int, default=300)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--quick", action="store_true", help="a short run (40 hands per ruleset)")
    args = p.parse_args(argv)
    hands = 40 if args.quick else args.hands
    figures: dict[str, float | int] = {}
    rows = []
    for name in GOALS:
        if name not in rulesets.available():
            continue
        print(f"selfplay {name}: {hands} hands ...", file=sys.stderr, flush=True)
        s = play(name, hands, args.seed, "greedy")
        figures[f"hands_per_s_{name}"] = round(s.hands_per_s, 1)
        figures[f"decisions_per_s_{name}"] = round(s.decisions / s.seconds, 1)
        rows.append([name, s.hands, round(s.seconds, 2), s.hands_per_s, s.decisions / s.seconds,
                     GOALS[name], "yes" if s.hands_per_s >= GOALS[name] else "NO"])
    print(table(["ruleset", "hands", "seconds", "hands/s", "decisions/s", "goal hands/s", "met"], rows))
    print(f"wrote {write('selfplay', figures)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
