"""What a lobby shows of a table (cached in the live state with every command)."""

from __future__ import annotations

import json

from engine.table import Table


def public_view(table: Table) -> bytes:
    """Seats, readiness, auto-play, status, version. The game itself is not in it: a seat's
    view comes with its Watch stream, and rendering the whole public game on every move was a
    sizeable share of each command's cost for a cache nobody read."""
    return json.dumps({
        "table_id": table.table_id,
        "ruleset": table.ruleset,
        "version": table.seen_by(None),  # a spectator's numbering: it counts no hidden event
        "seats": list(table.seats),
        "ready": sorted(table.ready),
        "auto": sorted(table.auto),
        "status": table.status.value,
        "hands_started": table.hands_started,
    }, ensure_ascii=False, separators=(",", ":")).encode()
