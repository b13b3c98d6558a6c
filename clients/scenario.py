"""`qipai scenario FILE.json`: run a scripted hand through the engine (engine.scenario) and print
its events and settlement."""

from __future__ import annotations

import json
import sys
from typing import Any

from engine.scenario import ScenarioError, run_scenario


def main(args: Any) -> int:
    """`qipai scenario FILE.json`: print events and settlement as JSON; exit 1 when stopped."""
    try:
        with open(args.file, encoding="utf-8") as fh:
            spec = json.load(fh)
    except OSError as exc:
        print(f"qipai scenario: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"qipai scenario: {args.file} is not valid JSON: {exc}", file=sys.stderr)
        return 2
    try:
        outcome = run_scenario(spec)
    except ScenarioError as exc:
        stopped = "stopped at " if exc.action_number is not None else ""
        print(f"qipai scenario: {stopped}{exc}", file=sys.stderr)
        return 1 if exc.action_number is not None else 2
    print(json.dumps(outcome.as_json(), ensure_ascii=False, indent=2))
    return 0
