"""The public queues, from `config/queues.toml` (or the file QIPAI_QUEUES_FILE names): one queue
per (ruleset, options preset, stake tier), each with its bot-fill wait and bot level, reconnect
grace and rating band.

Reading the file does not import the rulesets (a mahjong ruleset takes seconds to load its
tables, and the service must answer health checks at once): `SEATS` gives each table's size,
and `problems` checks every preset against its ruleset's options later, off the event loop
(tests hold both to the engine)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import rulesets
from engine.bots.levels import DEFAULT_LEVEL, LEVELS
from engine.chips import Stakes, split_options

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "config" / "queues.toml"
DEFAULT_PRESET = "standard"
SEATS = {"koudian": 4, "wuhan": 4, "jj": 4, "daqi": 5}  # = the ruleset's seats(options)


class QueuesConfigError(ValueError):
    """The queues file is wrong; the message names the file and the part."""


@dataclass(frozen=True, slots=True)
class QueueSpec:
    ruleset: str
    preset: str
    tier: str
    options: dict[str, Any]
    stakes: Stakes
    seats: int
    bot_fill_after_ms: int  # 0: never
    grace_ms: int
    band_start: int
    band_widen_per_s: int
    band_max: int
    bot_level: str = DEFAULT_LEVEL  # how the bots that fill its tables play (engine.bots.levels)

    @property
    def name(self) -> str:
        return f"{self.ruleset}/{self.preset}/{self.tier}"

    def band(self, waited_ms: int) -> int:
        """Rating points either side of a ticket that has waited `waited_ms`."""
        return min(self.band_max, self.band_start + self.band_widen_per_s * max(0, waited_ms) // 1000)


@dataclass(frozen=True, slots=True)
class QueuesConfig:
    queues: dict[str, QueueSpec]
    lease_ms: int = 15_000  # a formed match not seated within this is seated by another process

    def find(self, ruleset: str, preset: str, tier: str) -> QueueSpec | None:
        """The queue asked for (empty preset: standard; empty tier: the ruleset's first)."""
        preset = preset or DEFAULT_PRESET
        if not tier:
            tier = next((q.tier for q in self.queues.values()
                         if q.ruleset == ruleset and q.preset == preset), "")
        return self.queues.get(f"{ruleset}/{preset}/{tier}")

    def rulesets(self) -> list[str]:
        return sorted({q.ruleset for q in self.queues.values()})


def load_queues(path: str | Path | None = None) -> QueuesConfig:
    """The queues of the file at `path` (default: config/queues.toml); QueuesConfigError."""
    path = Path(path) if path else DEFAULT_FILE
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise QueuesConfigError(f"{path}: {exc}") from None
    return parse_queues(data, str(path))


def parse_queues(data: dict[str, Any], where: str = "queues") -> QueuesConfig:
    defaults = data.get("defaults", {})
    queues: dict[str, QueueSpec] = {}
    for ruleset, spec in data.get("rulesets", {}).items():
        if ruleset not in SEATS:
            raise QueuesConfigError(f"{where}: no ruleset is called {ruleset!r}; the rulesets are "
                                    f"{', '.join(SEATS)}")
        local = {**defaults, **spec.get("defaults", {})}
        presets, tiers = spec.get("presets", {}), spec.get("tiers", {})
        if not presets or not tiers:
            raise QueuesConfigError(f"{where}: ruleset {ruleset} needs at least one preset and one tier")
        for preset, options in presets.items():
            seats = SEATS[ruleset]
            for tier, chips in tiers.items():
                try:
                    stakes, rest = split_options(chips)
                except ValueError as exc:
                    raise QueuesConfigError(f"{where}: {ruleset} tier {tier}: {exc}") from None
                if rest:
                    raise QueuesConfigError(f"{where}: {ruleset} tier {tier}: only stake and buy_in, "
                                            f"not {', '.join(rest)}")
                q = QueueSpec(ruleset, preset, tier, dict(options), stakes, seats,
                              int(float(local.get("bot_fill_after_s", 20)) * 1000),
                              int(float(local.get("grace_s", 15)) * 1000),
                              int(local.get("band_start", 100)), int(local.get("band_widen_per_s", 25)),
                              int(local.get("band_max", 1000)), str(local.get("bot_level", DEFAULT_LEVEL)))
                if "/" in preset or "/" in tier or q.grace_ms < 0 or q.bot_fill_after_ms < 0:
                    raise QueuesConfigError(f"{where}: {q.name}: names have no '/', waits are >= 0")
                if q.bot_level not in LEVELS:
                    raise QueuesConfigError(f"{where}: {q.name}: bot_level is one of {', '.join(LEVELS)}, "
                                            f"not {q.bot_level!r}")
                queues[q.name] = q
    if not queues:
        raise QueuesConfigError(f"{where}: no queues")
    lease_ms = int(float(defaults.get("match_lease_s", 15)) * 1000)
    if lease_ms <= 0:
        raise QueuesConfigError(f"{where}: match_lease_s must be above 0")
    return QueuesConfig(queues, lease_ms)


def problems(config: QueuesConfig) -> dict[str, str]:
    """The queues whose preset its ruleset refuses, with why (imports the rulesets: slow)."""
    out = {}
    for name, q in config.queues.items():
        rs = rulesets.get(q.ruleset)
        try:
            options = rs.options(q.options)
        except (ValueError, TypeError) as exc:
            out[name] = f"preset {q.preset}: {exc}"
            continue
        if rs.seats(options) != q.seats:
            out[name] = f"a {q.ruleset} table has {rs.seats(options)} seats, not {q.seats}"
    return out
