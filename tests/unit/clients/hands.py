"""Fair hands played by the engine alone (every seat commits and reveals, the clock plays), and
what each seat's Watch stream would have shown of them: material for the client-side checks."""

from __future__ import annotations

import functools
import random
from typing import Any

from engine import rulesets
from engine import table as tables
from engine.core import fairness
from engine.core.contract import Status
from engine.core.messages import encode
from engine.driver import bot_command

SEED, SALT = bytes(range(16)), bytes(range(16, 32))
RULESETS = ["koudian", "daqi", "jj", "wuhan"]


def nonce(seat: int) -> bytes:
    return bytes([0xA0 + seat]) * fairness.NONCE_BYTES


def _run(table: tables.Table, cmd: Any, log: list[Any]) -> tables.Table:
    events = tables.decide(table, cmd)
    log += events
    return functools.reduce(tables.evolve, events, table)


def fair_hand(ruleset: str, committing: tuple[int, ...] | None = None, seed: bytes = SEED,
              bot: str | None = None, rng_seed: int = 0) -> list[Any]:
    """The events of a table's first hand, every seat in `committing` (default: all) committing
    and revealing `nonce(seat)`, the others getting server nonces; `bot` (seeded with `rng_seed`)
    plays every seat, else the clock plays the hand out."""
    log: list[Any] = []
    table = _run(tables.Table(), tables.CreateTable("t", ruleset, {}, "p0"), log)
    seats = range(len(table.seats))
    committing = tuple(seats) if committing is None else committing
    for seat in seats:
        table = _run(table, tables.Sit(f"p{seat}", seat), log)
    for seat in seats:
        commit = fairness.nonce_commitment(nonce(seat)) if seat in committing else ""
        table = _run(table, tables.Ready(f"p{seat}", seed, SALT, commit, fair=True), log)
    for seat in committing:
        table = _run(table, tables.Ready(f"p{seat}", seed, SALT, nonce=nonce(seat)), log)
    rs, rng = rulesets.get(ruleset), random.Random(rng_seed)
    while table.status is Status.IN_HAND:
        seat = None
        if bot is not None:
            cmd = bot_command(rs, table.game, len(table.seats), rs.bots[bot], rng)
            seat = rs.command_seat(cmd)
        if seat is None:
            table = _run(table, tables.Timeout(table.version, seed, SALT, fair=True), log)
        else:
            table = _run(table, tables.Act(f"p{seat}", cmd), log)
    return log


def seen_by(ruleset: str, log: list[Any], seat: int) -> list[Any]:
    """`log` as `seat`'s Watch stream shows it (each event redacted for the seat)."""
    rs = rulesets.get(ruleset)
    seen = (tables.redact(ev, seat) if tables.is_table_event(ev) else rs.redact(ev, seat) for ev in log)
    return [ev for ev in seen if ev is not None]


def as_json(events: list[Any]) -> list[dict[str, Any]]:
    """Events as the Watch stream carries them: type name and JSON data."""
    return [{"type": name, "data": data} for name, _, data in map(encode, events)]
