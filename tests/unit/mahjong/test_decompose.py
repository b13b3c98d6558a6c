from collections import Counter

import pytest
from hypothesis import given, settings

from engine.core.messages import to_json
from engine.mahjong.decompose import Decomposition, Group, decompositions
from engine.mahjong.hand import is_win
from engine.mahjong.tiles import counts, format_tiles, parse_tile, parse_tiles

from .strategies import hands


def h(text: str) -> list[int]:
    return counts(parse_tiles(text))


def shapes(found: tuple[Decomposition, ...]) -> set[tuple[str, ...]]:
    """Each decomposition as its groups' tiles, pair first, then pungs and runs."""
    return {tuple(format_tiles(g.tiles) for g in (d.pair, *d.sets)) for d in found}


def test_a_hand_that_is_not_complete_has_no_decomposition():
    assert decompositions(h("123m 456p 789s ESW CC")) == ()


def test_three_identical_runs_are_also_three_pungs():
    assert shapes(decompositions(h("111222333m 456p 99s"))) == {
        ("99s", "111m", "222m", "333m", "456p"),
        ("99s", "123m", "123m", "123m", "456p"),
    }


def test_the_nine_gates_with_5m_split_one_way():
    assert shapes(decompositions(h("1112345678999m 5m"))) == {("55m", "111m", "999m", "234m", "678m")}


def test_a_wild_is_shown_as_the_tile_it_stands_for():
    (only,) = decompositions(h("123m 456p 789s EEE C"), wilds=1)
    assert only.pair == Group("pair", parse_tile("C"), (parse_tile("C"),))
    assert only.wild_for == (parse_tile("C"),)


def test_a_wild_can_complete_a_run_in_the_middle_or_at_either_end():
    found = decompositions(h("45m 123p 456p 789s EE"), wilds=1)
    assert {d.wild_for for d in found} == {(parse_tile("3m"),), (parse_tile("6m"),)}
    middle = decompositions(h("46m 123p 456p 789s EE"), wilds=1)
    assert {d.wild_for for d in middle} == {(parse_tile("5m"),)}


def test_three_spare_wilds_make_a_set_of_any_tile():
    found = decompositions(h("123m 456p 789s EE"), wilds=3)
    all_wild_sets = {g for d in found for g in d.sets if len(g.wild_for) == 3}
    assert len(all_wild_sets) == 34 + 21  # any pung, any run


def test_exposed_melds_leave_fewer_sets_to_find():
    (only,) = decompositions(h("123m CC"), melds=3)
    assert [g.kind for g in only.sets] == ["run"]


def test_more_than_four_wilds_is_refused():
    with pytest.raises(ValueError, match="wilds"):
        decompositions(h("123m 456p 789s"), wilds=5)


@settings(max_examples=150, deadline=None)
@given(hands())
def test_a_hand_decomposes_exactly_when_it_wins_and_every_decomposition_uses_every_tile(hand):
    c, wilds, melds = hand
    found = decompositions(c, wilds, melds)
    assert bool(found) == is_win(c, wilds, melds)
    for d in found:
        assert len(d.sets) == 4 - melds
        read_as = Counter(t for g in (d.pair, *d.sets) for t in g.tiles)
        naturals = read_as - Counter(d.wild_for)
        assert len(d.wild_for) == wilds
        assert counts(naturals.elements()) == c
    assert len(set(found)) == len(found)


def test_a_decomposition_is_stored_with_readable_tiles():
    (only,) = decompositions(h("123m 456p 789s EEE C"), wilds=1)
    stored = to_json(only)
    assert stored["pair"] == {"kind": "pair", "tile": "C", "wild_for": ["C"]}
    assert stored["sets"][0] == {"kind": "pung", "tile": "E", "wild_for": []}
