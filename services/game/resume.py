"""Where an observer's Watch resumes: its own version number (engine/numbering.py) turned back
into the table's version, from the table's events."""

from __future__ import annotations

from engine import table as tables
from engine.table import Table
from services.game.repository import TableRepository


class BeyondLatest(ValueError):
    """A version the observer was never given."""


async def table_version(repository: TableRepository, table: Table, seat: int | None,
                        seen: int) -> int:
    """The table's version just after the `seen`-th event `seat` may see (0 for 0), so that
    watching after it repeats none of the first `seen` and misses none after them.

    The common cases cost nothing: from the start, or from the observer's latest number.
    Otherwise the table's events are read and counted (a reconnect, not a move)."""
    if seen == 0:
        return 0
    if seen == table.seen_by(seat):
        return table.version
    count = 0
    for record in await repository.events(table.table_id, 1):
        if tables.shows(table, record.decode(), seat):  # as the table's own count does
            count += 1
            if count == seen:
                return record.version
    raise BeyondLatest(f"from_version {seen} is beyond your latest version {count}: resume from "
                       f"the last version you received")
