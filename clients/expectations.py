"""A scenario's `expect` block: what should happen, so that a reproduced dispute becomes a
regression test (docs/scenarios/README.md).

    "expect": {
      "outcome": "self_draw", "points": 12,
      "payments": [-12, 36, -12, -12],        # each seat's score change, in seat order
      "winners": [1],                         # the seats whose score went up ([] : nobody's)
      "rejected": {"action": 4, "code": "below_threshold"},
      "views": [{"seat": 1, "after": 2, "hand": "123m 456m 789m 45p 99s", "ready": [false, true, false, false]}]
    }

Every key is optional. `rejected` says the run stops at that scripted action with that rule
code (then nothing after it is checked but the views). A view names a seat, optionally the
scripted action after which to look (`after`, 0 = right after the deal; default: the end), and
fields of that seat's view as `qipai scenario --seat N` prints them. A field holding tiles or
cards may be written in the rules' notation; it matches the same tiles or cards in any order.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.core.messages import to_json

_KEYS = {"outcome", "points", "payments", "winners", "rejected", "views"}


@dataclass(frozen=True)
class Rejected:
    action: int
    code: str


@dataclass(frozen=True)
class SeatView:
    seat: int
    after: int | None
    fields: dict[str, Any]


@dataclass(frozen=True)
class Expect:
    outcome: str | None = None
    points: int | None = None
    payments: tuple[int, ...] | None = None
    winners: tuple[int, ...] | None = None
    rejected: Rejected | None = None
    views: tuple[SeatView, ...] = field(default=())

    def count(self) -> int:
        """How many expectations the block holds (for the report)."""
        singles = [self.outcome, self.points, self.payments, self.winners, self.rejected]
        return sum(x is not None for x in singles) + sum(len(v.fields) for v in self.views)


def parse_expect(raw: Any) -> Expect | None:
    """The `expect` block of a scenario file; ValueError naming what is malformed."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError("'expect' must be a JSON object")
    unknown = set(raw) - _KEYS
    if unknown:
        raise ValueError(f"expect: unknown key(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    rejected = raw.get("rejected")
    if rejected is not None:
        if not (isinstance(rejected, dict) and _is_int(rejected.get("action"))
                and isinstance(rejected.get("code"), str)):
            raise ValueError('expect: rejected is {"action": N, "code": "rule_code"}')
        rejected = Rejected(rejected["action"], rejected["code"])
    views = []
    for n, view in enumerate(raw.get("views") or (), start=1):
        if not isinstance(view, dict) or not _is_int(view.get("seat")):
            raise ValueError(f"expect: view {n} needs a \"seat\"")
        after = view.get("after")
        if after is not None and not _is_int(after):
            raise ValueError(f"expect: view {n}: \"after\" is the number of a scripted action")
        fields = {k: v for k, v in view.items() if k not in ("seat", "after")}
        if not fields:
            raise ValueError(f"expect: view {n} names no field of the view to check")
        views.append(SeatView(view["seat"], after, fields))
    for key in ("payments", "winners"):
        value = raw.get(key)
        if value is not None and not (isinstance(value, list) and all(_is_int(v) for v in value)):
            raise ValueError(f"expect: {key} is a list of integers (one per seat)" if key == "payments"
                             else "expect: winners is a list of seat numbers")
    if raw.get("points") is not None and not _is_int(raw["points"]):
        raise ValueError("expect: points is an integer")
    return Expect(
        outcome=raw.get("outcome"), points=raw.get("points"),
        payments=None if raw.get("payments") is None else tuple(raw["payments"]),
        winners=None if raw.get("winners") is None else tuple(raw["winners"]),
        rejected=rejected, views=tuple(views))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check(rs: Any, expect: Expect, played: Any, stopped: Any | None) -> list[str]:
    """Each way the run (`played`, stopped by `stopped` or not) differs from `expect`."""
    problems = []
    if expect.rejected is not None:
        if stopped is None:
            problems.append(f"action {expect.rejected.action} should have been rejected "
                            f"({expect.rejected.code}), but every action was accepted")
        elif (stopped.action_number, stopped.code) != (expect.rejected.action, expect.rejected.code):
            problems.append(f"rejected: expected action {expect.rejected.action} with "
                            f"{expect.rejected.code}, got action {stopped.action_number} with "
                            f"{stopped.code} ({stopped.message})")
    elif stopped is not None:
        problems.append(f"action {stopped.action_number} was rejected: {stopped.code}: {stopped.message}")
    result = played.result
    wanted = {"outcome": expect.outcome, "points": expect.points, "payments": expect.payments,
              "winners": expect.winners}
    if any(v is not None for v in wanted.values()) and stopped is None:
        if result is None:
            problems.append("the hand did not end, so it has no result to check "
                            '(add "finish": "defaults" to play it out)')
        else:
            got = {"outcome": result.outcome, "points": result.points,
                   "payments": tuple(result.deltas),
                   "winners": tuple(s for s, d in enumerate(result.deltas) if d > 0)}
            for key, value in wanted.items():
                if value is not None and got[key] != value:
                    problems.append(f"{key}: expected {_show(value)}, got {_show(got[key])}")
    for view in expect.views:
        problems += _check_view(rs, view, played)
    return problems


def _check_view(rs: Any, expected: SeatView, played: Any) -> list[str]:
    where = "the end" if expected.after is None else f"action {expected.after}"
    if expected.after is None:
        state = played.state
    elif 0 <= expected.after < len(played.after):
        state = played.after[expected.after]
    else:
        return [f"seat {expected.seat}'s view after action {expected.after}: the run has no such "
                f"action (0 to {len(played.after) - 1})"]
    try:
        shown = to_json(rs.view(state, expected.seat))
    except (ValueError, IndexError) as exc:
        return [f"seat {expected.seat}'s view: {exc}"]
    problems = []
    for key, value in expected.fields.items():
        if key not in shown:
            problems.append(f"seat {expected.seat}'s view has no field {key!r}; it has "
                            f"{', '.join(sorted(shown))}")
        elif not _matches(rs, value, shown[key]):
            problems.append(f"seat {expected.seat}'s view at {where}: {key}: expected "
                            f"{_show(value)}, got {_show(shown[key])}")
    return problems


def _matches(rs: Any, expected: Any, shown: Any) -> bool:
    if isinstance(expected, str) and isinstance(shown, list):
        try:
            return Counter(_notation(rs, expected)) == Counter(map(str, shown))
        except ValueError:
            return False
    if isinstance(expected, list) and isinstance(shown, list):
        return len(expected) == len(shown) and all(_matches(rs, e, s) for e, s in zip(expected, shown, strict=True))
    return bool(expected == shown)


def _notation(rs: Any, text: str) -> list[str]:
    """Tiles or cards written in the rules' notation, each as the engine names it."""
    if rs.name == "daqi":
        from engine.daqi.cards import parse_cards

        return [str(c) for c in parse_cards(text)]
    from engine.mahjong.tiles import parse_tiles

    return [str(t) for t in parse_tiles(text)]


def _show(value: Any) -> str:
    """A value as it is written in the scenario file (JSON)."""
    return json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)
