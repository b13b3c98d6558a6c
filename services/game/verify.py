"""Verification of a recorded table: re-decide every command, and check every deal's commitment."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import rulesets
from engine import table as tables
from engine.core.contract import AnyRuleset
from engine.core.errors import RuleViolation
from engine.core.messages import encode, message_from_json
from engine.core.shuffle import commitment
from engine.deal_check import DealChecker


@dataclass
class Verification:
    events_checked: int = 0
    commands_checked: int = 0
    decks_checked: int = 0
    deals_checked: int = 0
    first_mismatch_version: int = 0
    mismatch: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(records: list[Any]) -> Verification:
    """Check a table's recorded events (`RecordedEvent`s in version order)."""
    result = Verification()
    state = tables.Table()
    i = 0
    while i < len(records):
        head = records[i]
        recorded_cmd = head.metadata.get("command")
        if recorded_cmd is None:
            _mismatch(result, head.version, "no command is recorded for this event")
            break
        batch = [head]
        while i + len(batch) < len(records) and "command" not in records[i + len(batch)].metadata:
            batch.append(records[i + len(batch)])
        cmd = message_from_json(recorded_cmd)
        try:
            produced = tables.decide(state, cmd)
        except RuleViolation as exc:
            _mismatch(result, head.version, f"the engine now rejects the recorded command: {exc}")
            break
        recorded = [rec.decode() for rec in batch]
        for offset, (want, got) in enumerate(zip(recorded, produced, strict=False)):
            if encode(want) != encode(got):
                _mismatch(result, head.version + offset,
                          f"recorded {encode(want)[0]} {encode(want)[2]}, "
                          f"the engine now gives {encode(got)[0]} {encode(got)[2]}")
                return _finish(result, records)
        if len(produced) != len(recorded):
            _mismatch(result, head.version + min(len(produced), len(recorded)),
                      f"the command recorded {len(recorded)} event(s); the engine now gives {len(produced)}")
            break
        for ev in recorded:
            state = tables.evolve(state, ev)
        result.commands_checked += 1
        result.events_checked += len(batch)
        i += len(batch)
    return _finish(result, records)


def _finish(result: Verification, records: list[Any]) -> Verification:
    rs: AnyRuleset | None = None
    pending: tuple[int, str] | None = None
    deals = DealChecker()
    for rec in records:
        ev = rec.decode()
        for check in deals.feed(ev):
            result.deals_checked += 1
            if not check.ok:
                result.problems.append(str(check))
        if isinstance(ev, tables.TableCreated):
            rs = rulesets.get(ev.ruleset)
            continue
        if rs is None:
            continue
        promised = rs.deck_commitment(ev)
        if promised is not None:
            pending = (rec.version, promised)
            continue
        reveal = rs.deck_reveal(ev)
        if pending is not None and reveal is not None:
            result.decks_checked += 1
            if commitment(reveal.order, reveal.salt) != pending[1]:
                result.problems.append(
                    f"the deck revealed at event {rec.version} does not match the commitment "
                    f"published at event {pending[0]}")
            pending = None
    return result


def _mismatch(result: Verification, version: int, what: str) -> None:
    result.first_mismatch_version = version
    result.mismatch = what
    result.problems.append(f"event {version}: {what}")
