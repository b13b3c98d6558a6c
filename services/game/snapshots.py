"""A table's snapshot in the message codec's JSON (no pickle), with a schema version.

The table's own fields are written as they are; its options and game state (one of the
ruleset's phase types) are written with the codec's `to_json` and tagged with their registered
type name (or, for an unregistered class, its import path), so they read back into the same
types. A snapshot written by code whose state types had other
fields fails to read (unknown or missing fields) rather than read wrongly; a change of meaning
with the same fields bumps `SCHEMA_VERSION` (with an upcaster when old snapshots can be
carried forward). An unreadable snapshot is ignored: the table is rebuilt from its events.

Beside the table it keeps when a person last acted at it (`last_human_ms`, the abandon policy's
clock, services/game/clock.py): the events after a snapshot may all be the server's (a table
playing itself), and a node that loads the table after a restart or a take-over must close it
when the node before would have, not one abandon time after the snapshot.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Any

from engine import rulesets
from engine.chips import Chips, Stakes
from engine.core.messages import (
    UnknownMessageType,
    from_json,
    message_from_json,
    to_json,
    type_name,
)
from engine.table import Table

SNAPSHOT_TYPE = "table.Snapshot"
# 1 was the pickled table; 3 added the chips; 4 the members, kept seats and per-observer counts
# (no upcaster: those counts need the events, so an older snapshot is rebuilt from them); 5 the
# rules revision the table was created under and when a person last acted at it.
SCHEMA_VERSION = 5
# from_version -> a function turning that version's data into the next one's.
UPCASTERS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    # Tables from before chips: no stakes recorded, no stacks.
    2: lambda data: {**data, "chips": _tagged(Chips.for_table(Stakes(), len(data["seats"])))},
    # Every table snapshotted before revision 3 recorded none; the last person's time is not
    # known (the events after the snapshot stand in, as they did).
    4: lambda data: {**data, "revision": 0, "last_human_ms": None},
}
_STATE_PACKAGE = "engine."  # tagged classes are looked up only there


class SnapshotUnreadable(ValueError):
    """A stored snapshot this code cannot turn back into a table."""


def encode(table: Table, last_human_ms: int | None = None) -> dict[str, Any]:
    """The snapshot data for `table`, at which a person last acted at `last_human_ms`."""
    return {
        "table_id": table.table_id,
        "ruleset": table.ruleset,
        "options": _tagged(table.options),
        "created_by": table.created_by,
        "private": table.private,
        "fixed_deal": table.fixed_deal,
        "seats": list(table.seats),
        "commitments": list(table.commitments),
        "deal": _tagged(table.deal),
        "ready": sorted(table.ready),
        "auto": sorted(table.auto),
        "streaks": list(table.streaks),
        "claim_auto": sorted(table.claim_auto),
        "claim_streaks": list(table.claim_streaks),
        "hands_started": table.hands_started,
        "game": _tagged(table.game),
        "version": table.version,
        "chips": _tagged(table.chips),
        "closed": table.closed,
        "members": sorted(table.members),
        "held": list(table.held),
        "seen": list(table.seen),
        "revision": table.revision,
        "last_human_ms": last_human_ms,
    }


def decode(schema_version: int, data: dict[str, Any]) -> Table:
    """The table a snapshot holds; SnapshotUnreadable when this code cannot read it."""
    if schema_version > SCHEMA_VERSION:
        raise SnapshotUnreadable(f"snapshot schema {schema_version} is newer than this code's "
                                 f"{SCHEMA_VERSION}")
    while schema_version < SCHEMA_VERSION:
        step = UPCASTERS.get(schema_version)
        if step is None:
            raise SnapshotUnreadable(f"no upcaster from snapshot schema {schema_version}")
        data = step(dict(data))
        schema_version += 1
    try:
        # The ruleset's package registers its options and state types: after a restart nothing
        # may have imported it yet.
        rulesets.get(str(data["ruleset"]))
        return Table(
            table_id=str(data["table_id"]), ruleset=str(data["ruleset"]),
            options=_untagged(data["options"]), created_by=str(data["created_by"]),
            private=bool(data["private"]), fixed_deal=str(data["fixed_deal"]),
            seats=tuple(data["seats"]), ready=frozenset(data["ready"]),
            # Snapshots from before fair deals have neither: no nonce committed, no deal under way.
            commitments=tuple(data.get("commitments", [""] * len(data["seats"]))),
            deal=_untagged(data.get("deal")),
            auto=frozenset(data["auto"]), streaks=tuple(data["streaks"]),
            # Absent before missed claim windows were private (rules revision 3): none missed.
            claim_auto=frozenset(data.get("claim_auto", ())),
            claim_streaks=tuple(data.get("claim_streaks", [0] * len(data["seats"]))),
            hands_started=int(data["hands_started"]), game=_untagged(data["game"]),
            version=int(data["version"]), chips=_untagged(data["chips"]),
            closed=str(data.get("closed", "")),  # absent before tables could be closed: open
            members=frozenset(str(m) for m in data["members"]),
            held=tuple(str(h) for h in data["held"]), seen=tuple(int(n) for n in data["seen"]),
            revision=int(data["revision"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError, ImportError, LookupError) as exc:
        raise SnapshotUnreadable(f"{type(exc).__name__}: {exc}") from None


def last_human_ms(schema_version: int, data: dict[str, Any]) -> int | None:
    """When a person last acted at the table a snapshot holds (None: not known)."""
    value = data.get("last_human_ms") if schema_version >= 5 else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _tagged(value: Any) -> Any:
    """`value` with its type: the registered name when it has one (it survives the class
    moving), else the class's import path."""
    if value is None:
        return None
    if _registered(value):
        return {"type": type_name(value), "data": to_json(value)}
    cls = type(value)
    return {"class": f"{cls.__module__}:{cls.__qualname__}", "data": to_json(value)}


def _registered(value: Any) -> bool:
    try:
        type_name(value)
    except UnknownMessageType:
        return False
    return True


def _untagged(data: Any) -> Any:
    if data is None:
        return None
    if "type" in data:
        return message_from_json(data)
    module, _, name = str(data["class"]).partition(":")
    if not module.startswith(_STATE_PACKAGE):
        raise SnapshotUnreadable(f"not an engine type: {data['class']!r}")
    cls = getattr(importlib.import_module(module), name, None)
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise SnapshotUnreadable(f"no engine value type {data['class']!r}")
    return from_json(cls, data["data"])
