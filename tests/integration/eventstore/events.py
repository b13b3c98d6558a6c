"""Event types and shorthands the event-store tests append."""

from __future__ import annotations

from engine.core.messages import event, upcaster
from services.eventstore import NewEvent


@event("test.store.Moved")
class Moved:
    n: int


@event("test.store.Said")
class Said:
    text: str


def moved(n: int, **metadata: object) -> NewEvent:
    return NewEvent("test.store.Moved", {"n": n}, metadata=dict(metadata))


def said(text: str) -> NewEvent:
    return NewEvent("test.store.Said", {"text": text})


@event("test.store.Scored", version=2)
class Scored:
    """Version 1 stored `points`; version 2 calls it `score` and adds `seat`."""

    score: int
    seat: int


@upcaster("test.store.Scored", from_version=1)
def _scored_v1_to_v2(data: dict) -> dict:
    return {"score": data["points"], "seat": 0}
