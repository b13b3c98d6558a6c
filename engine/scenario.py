"""Scenarios: a scripted hand run through the engine alone (`qipai scenario FILE.json` prints it).

A scenario is how a disputed hand is reproduced and how a rule regression becomes a test:
    {"ruleset": "koudian", "options": {...}, "deal": {...}, "actions": [{"seat": 0, ...}, ...],
     "finish": "defaults"}
`deal` is the ruleset's fixed-deal format (docs/scenarios/<ruleset>.md); each action is the
ruleset's human command form, optionally with `"times": n` to repeat it; `"finish": "defaults"`
plays every remaining decision with its timeout default (托管) until the hand ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import rulesets
from engine.core.contract import HandResult, Status
from engine.core.errors import RuleViolation
from engine.core.messages import encode, to_json
from engine.driver import apply_all, fold

SCENARIO_SALT = b"qipai-scenario"
# `expect` is the clients' (clients/expectations.py): the engine runs the hand, the tool checks it.
_KEYS = {"ruleset", "options", "deal", "actions", "finish", "description", "expect"}


class ScenarioError(Exception):
    """The scenario stopped: a bad file, or a scripted action the rules reject. A rejected
    action keeps what happened before it: `played` (None for a bad file)."""

    def __init__(self, code: str, message: str, event_number: int | None = None,
                 action_number: int | None = None, played: ScenarioResult | None = None) -> None:
        where = ""
        if action_number is not None:
            where = f"action {action_number}" + (f" (event {event_number})" if event_number else "")
            where += ": "
        super().__init__(f"{where}{code}: {message}")
        self.code, self.message = code, message
        self.event_number, self.action_number = event_number, action_number
        self.played = played


@dataclass
class ScenarioResult:
    """What a scenario did: every event, the final state and the hand's result (None while the
    hand is still on), and the state after the deal and after each scripted action (`after[n]`)."""

    events: list[Any]
    state: Any
    result: HandResult | None
    after: list[Any] = field(default_factory=list)

    def seat_json(self, rs: Any, seat: int) -> dict[str, Any]:
        """What `seat` saw: its events redacted as the server sends them, and its final view."""
        events = []
        for n, ev in enumerate(self.events, start=1):
            seen = rs.redact(ev, seat)
            if seen is not None:
                name, _, data = encode(seen)
                events.append({"n": n, "type": name, "data": data})
        return {"seat": seat, "events": events, "view": to_json(rs.view(self.state, seat)),
                "result": to_json(self.result)}

    def as_json(self) -> dict[str, Any]:
        events = []
        for n, ev in enumerate(self.events, start=1):
            name, _, data = encode(ev)
            events.append({"n": n, "type": name, "data": data})
        return {"events": events, "result": to_json(self.result)}


def run_scenario(spec: Any) -> ScenarioResult:
    """Play the scenario `spec` (parsed JSON); raises ScenarioError naming what stopped it."""
    if not isinstance(spec, dict):
        raise ScenarioError("bad_scenario", "a scenario is a JSON object")
    unknown = set(spec) - _KEYS
    if unknown:
        raise ScenarioError("bad_scenario", f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    for key in ("ruleset", "deal"):
        if key not in spec:
            raise ScenarioError("bad_scenario", f"missing {key!r}")
    try:
        rs = rulesets.get(spec["ruleset"])
    except rulesets.UnknownRuleset as exc:
        raise ScenarioError("bad_scenario", str(exc)) from None
    actions = spec.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError("bad_scenario", "'actions' must be a list")
    finish = spec.get("finish", "none")
    if finish not in ("none", "defaults"):
        raise ScenarioError("bad_scenario", "'finish' must be 'none' or 'defaults'")
    try:
        options = rs.new_options(spec.get("options") or {})
        log: list[Any] = list(rs.create("scenario", options))
        state = fold(rs, log)
        deal = rs.fixed_deal(spec["deal"], SCENARIO_SALT)
    except (ValueError, TypeError) as exc:
        raise ScenarioError("bad_scenario", str(exc)) from None
    try:
        state = apply_all(rs, state, deal, log)
    except RuleViolation as exc:
        raise ScenarioError(exc.code, exc.message, len(log) + 1, 0, ScenarioResult(log, state, None)) from None
    after = [state]
    for number, action in enumerate(actions, start=1):
        if not isinstance(action, dict):
            raise ScenarioError("bad_action", "each action is a JSON object", None, number)
        times = action.get("times", 1)
        if not isinstance(times, int) or isinstance(times, bool) or times < 1:
            raise ScenarioError("bad_action", "'times' must be a positive integer", None, number)
        try:
            cmd = rs.parse_command({k: v for k, v in action.items() if k != "times"})
        except (ValueError, TypeError, KeyError) as exc:
            raise ScenarioError("bad_action", str(exc), None, number) from None
        for _ in range(times):
            try:
                state = apply_all(rs, state, cmd, log)
            except RuleViolation as exc:
                played = ScenarioResult(log, state, None, after)
                raise ScenarioError(exc.code, exc.message, len(log) + 1, number, played) from None
        after.append(state)
    if finish == "defaults":
        while rs.status(state) is Status.IN_HAND:
            deadline = rs.deadline(state)
            if deadline is None or not deadline.defaults:
                raise ScenarioError("stuck", "the hand owes no decision but has not ended")
            state = apply_all(rs, state, next(iter(deadline.defaults.values())), log)
    result = rs.hand_result(state) if rs.status(state) is not Status.IN_HAND else None
    return ScenarioResult(log, state, result, after)
