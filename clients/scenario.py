"""`qipai scenario FILE.json [--seat N]`: run a scripted hand through the engine (engine.scenario),
print its events and settlement (or what one seat saw), and check the file's `expect` block
(clients/expectations.py; docs/scenarios/README.md)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from clients.expectations import Expect, check, parse_expect
from engine import rulesets
from engine.scenario import ScenarioError, ScenarioResult, run_scenario


@dataclass
class Checked:
    """A scenario run against its `expect` block: what it did, where it stopped (a rejected
    action), and every way it differs from the expectations (none: it holds)."""

    ruleset: Any
    played: ScenarioResult
    stopped: ScenarioError | None
    expect: Expect | None
    problems: list[str]


def run_and_check(spec: Any) -> Checked:
    """Run the scenario `spec` and check its `expect` block; ScenarioError only for a bad file."""
    expect = None
    if isinstance(spec, dict):
        try:
            expect = parse_expect(spec.get("expect"))
        except ValueError as exc:
            raise ScenarioError("bad_scenario", str(exc)) from None
    stopped: ScenarioError | None = None
    try:
        played = run_scenario(spec)
    except ScenarioError as exc:
        if exc.played is None:
            raise
        stopped, played = exc, exc.played
    rs = rulesets.get(spec["ruleset"])
    problems = check(rs, expect, played, stopped) if expect is not None else []
    return Checked(rs, played, stopped, expect, problems)


def main(args: Any) -> int:
    """`qipai scenario FILE.json [--seat N]`: print the events and the settlement as JSON (what
    seat N saw, with --seat), check the file's `expect` block; exit 1 when the run stopped on a
    rejected action it did not expect or an expectation failed, 2 for a bad file."""
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
        run = run_and_check(spec)
    except ScenarioError as exc:
        print(f"qipai scenario: {exc}", file=sys.stderr)
        return 2
    seat = getattr(args, "seat", None)
    if seat is None:
        shown = run.played.as_json()
    else:
        seats = run.ruleset.seats(run.ruleset.options(spec.get("options") or {}))
        if not 0 <= seat < seats:
            print(f"qipai scenario: --seat {seat}: a {spec['ruleset']} table has seats 0 to {seats - 1}",
                  file=sys.stderr)
            return 2
        shown = run.played.seat_json(run.ruleset, seat)
    if run.stopped is not None:
        shown["stopped"] = {"action": run.stopped.action_number, "event": run.stopped.event_number,
                            "code": run.stopped.code, "message": run.stopped.message}
    print(json.dumps(shown, ensure_ascii=False, indent=2))
    if run.expect is None:
        if run.stopped is not None:
            print(f"qipai scenario: stopped at {run.stopped}", file=sys.stderr)
            return 1
        return 0
    for problem in run.problems:
        print(f"qipai scenario: expect: {problem}", file=sys.stderr)
    if not run.problems:
        print(f"qipai scenario: expect: all {run.expect.count()} expectation(s) met", file=sys.stderr)
    return 1 if run.problems else 0
