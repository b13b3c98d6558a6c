"""Per-observer version numbers: each seat, and a spectator, numbers a table's events by
counting only those it may see. A number given to an observer (its Watch versions, its view's,
its Act answers') then says nothing about events hidden from it: another seat's claim answer
moves the table's version, never this observer's.

An observer's count after the table's version `v` is the number of events up to `v` whose
redaction for it is not empty; the n-th event it sees is its version n.
"""

from __future__ import annotations

from collections.abc import Callable


def observer(seats: int, seat: int | None) -> int:
    """The index of `seat`'s count (a spectator's comes after the seats')."""
    return seats if seat is None else seat


def first(seats: int) -> tuple[int, ...]:
    """The counts after a table's first event (its creation, seen by everybody)."""
    return (1,) * (seats + 1)


def everyone(seen: tuple[int, ...]) -> tuple[int, ...]:
    """The counts after an event every observer sees."""
    return tuple(n + 1 for n in seen)


def counted(seen: tuple[int, ...], visible_to: Callable[[int | None], bool]) -> tuple[int, ...]:
    """The counts after one more event, seen by the observers for which `visible_to` holds.

    A seat sees at least what a spectator sees (docs/hidden-information.md), so an event the
    spectator sees counts for everybody after one question instead of one per seat: most events
    are public, and this runs for every event of every command."""
    if visible_to(None):
        return everyone(seen)
    last = len(seen) - 1
    return (*(n + 1 if visible_to(i) else n for i, n in enumerate(seen[:last])), seen[last])
