"""`qipai selfplay`: bots play hands through the engine alone (engine.selfplay), every hand
checked, timed and summed up."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from engine import rulesets
from engine import selfplay as engine_selfplay
from engine.selfplay import SelfplayFailure, Summary


def play(ruleset_name: str, hands: int, seed: int, bot: str = "greedy", **more: Any) -> Summary:
    """`engine.selfplay.play`, timed (`summary.seconds`, `summary.hands_per_s`)."""
    started = time.perf_counter()
    summary = engine_selfplay.play(ruleset_name, hands, seed, bot, **more)
    summary.seconds = time.perf_counter() - started
    return summary


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` option overrides; a value is read as JSON when it can be (`30000`, `true`)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--option takes KEY=VALUE, got {pair!r}")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def main(args: Any) -> int:
    """`qipai selfplay RULESET --hands N --seed S [--bot random|greedy] [--json]`."""
    if args.hands < 1:
        print("qipai selfplay: --hands must be at least 1", file=sys.stderr)
        return 2
    try:
        options = parse_options(args.option)
        bar = _ProgressBar(args.hands) if sys.stderr.isatty() or not args.json else None
        summary = play(args.ruleset, args.hands, args.seed, args.bot, options=options,
                       progress=bar.update if bar else None)
    except rulesets.UnknownRuleset as exc:
        print(f"qipai selfplay: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"qipai selfplay: {exc}", file=sys.stderr)
        return 2
    except SelfplayFailure as exc:
        print(f"\nqipai selfplay: FAILED at hand {exc.hand} (seed {exc.seed}): {exc.reason}",
              file=sys.stderr)
        return 1
    if bar:
        bar.done()
    data = summary.as_dict()
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print(f"{data['hands']} hands of {data['ruleset']} ({data['bot']} bots, seed {data['seed']}) "
              f"in {data['seconds']} s: {data['hands_per_s']} hands/s, all checks passed")
        for outcome, n in data["outcomes"].items():
            print(f"  {outcome:<24} {n:>7}  {100 * n / data['hands']:5.1f}%")
        print(f"  average points per hand: {data['average_points']}")
    return 0


class _ProgressBar:
    def __init__(self, total: int) -> None:
        self.total, self.last = total, -1.0

    def update(self, n: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.2 and n != self.total:
            return
        self.last = now
        width = 30
        filled = width * n // self.total
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {n}/{self.total} hands")
        sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\n")
