"""engine.core.frozen.replace gives what dataclasses.replace gives; engine.core.memo remembers by
identity only."""

from __future__ import annotations

import dataclasses

import pytest

from engine.core.frozen import replace
from engine.core.memo import ByIdentity
from engine.mahjong.actions import TileDrawn
from engine.mahjong.tiles import tile
from engine.table import Table


def test_replace_matches_dataclasses_replace() -> None:
    table = Table(table_id="t", ruleset="koudian", seats=(None, "a"), seen=(1, 2, 3))
    for changes in ({}, {"version": 7}, {"seen": (2, 3, 4), "closed": "x", "seats": ("b", None)}):
        ours = replace(table, **changes)
        assert ours == dataclasses.replace(table, **changes)
        assert type(ours) is Table
    drawn = TileDrawn(2, tile(5), False)
    assert replace(drawn, tile=None) == dataclasses.replace(drawn, tile=None)
    assert replace(drawn, tile=None).tile is None and drawn.tile == tile(5)


def test_replace_refuses_an_unknown_field() -> None:
    with pytest.raises(TypeError):
        replace(Table(), no_such_field=1)


@dataclasses.dataclass(frozen=True)
class _KeywordOnly:
    a: int
    b: int = dataclasses.field(default=0, kw_only=True)
    c: int = dataclasses.field(default=5, init=False)


def test_replace_of_a_class_with_keyword_only_fields() -> None:
    assert replace(_KeywordOnly(1, b=2), b=3) == _KeywordOnly(1, b=3)


def test_by_identity_remembers_the_object_not_its_value() -> None:
    memo = ByIdentity(8)
    calls: list[object] = []

    def compute(obj: object) -> int:
        calls.append(obj)
        return len(calls)

    a, b = (1, 2, [3]), (1, 2, [3])
    assert memo.get(a, compute) == 1
    assert memo.get(a, compute) == 1
    assert memo.get(b, compute) == 2  # equal, but another object
    assert calls == [a, b]


def test_by_identity_stays_bounded() -> None:
    memo = ByIdentity(8)
    kept = [object() for _ in range(100)]
    for obj in kept:
        memo.get(obj, id)
    assert len(memo._entries) <= 8
    assert memo.get(kept[-1], lambda obj: "recomputed") == id(kept[-1])
