"""What a lobby shows of a table (cached in the live state with every command)."""

from __future__ import annotations

import json
from collections.abc import Hashable

from engine.table import Table

_REMEMBERED = 4_096  # tables' latest lobby text kept (one per live table is plenty)
# Per table: what the lobby shows besides the version, and its JSON around the version.
_texts: dict[str, tuple[Hashable, bytes, bytes]] = {}


def public_view(table: Table) -> bytes:
    """Seats, readiness, auto-play, status, version. The game itself is not in it: a seat's
    view comes with its Watch stream, and rendering the whole public game on every move was a
    sizeable share of each command's cost for a cache nobody read. Most commands change only
    the version: the rest is rendered again only when it changed."""
    shown = (table.ruleset, table.seats, table.ready, table.auto, table.status, table.hands_started)
    text = _texts.get(table.table_id)
    if text is None or text[0] != shown:
        if len(_texts) >= _REMEMBERED:
            _texts.clear()
        head, _, tail = _render(table, 0).partition(b'"version":0,')
        text = _texts[table.table_id] = (shown, head + b'"version":', b"," + tail)
    return b"%s%d%s" % (text[1], table.seen_by(None), text[2])


def _render(table: Table, version: int) -> bytes:
    return json.dumps({
        "table_id": table.table_id,
        "ruleset": table.ruleset,
        "version": version,  # a spectator's numbering: it counts no hidden event
        "seats": list(table.seats),
        "ready": sorted(table.ready),
        "auto": sorted(table.auto),
        "status": table.status.value,
        "hands_started": table.hands_started,
    }, ensure_ascii=False, separators=(",", ":")).encode()
