import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core.messages import to_json
from engine.mahjong.tiles import (
    ALL_TILES,
    FLOWERS,
    FULL_SET,
    Tile,
    TileNotationError,
    counts,
    face_value,
    format_tiles,
    from_counts,
    is_flower,
    is_honor,
    number_of,
    parse_tile,
    parse_tiles,
    suit_of,
)


def test_tile_ids_run_through_the_suits_then_winds_dragons_and_flowers():
    names = [str(t) for t in ALL_TILES + FLOWERS]
    assert names[:9] == [f"{n}m" for n in range(1, 10)]
    assert names[9:18] == [f"{n}p" for n in range(1, 10)]
    assert names[18:27] == [f"{n}s" for n in range(1, 10)]
    assert names[27:] == ["E", "S", "W", "N", "C", "F", "P", "f1", "f2", "f3", "f4"]


def test_a_tile_is_an_int_that_prints_as_its_notation():
    assert Tile(4) == 4
    assert str(Tile(4)) == repr(Tile(4)) == "5m"
    assert sorted([parse_tile("E"), parse_tile("9s"), parse_tile("1m")]) == [0, 26, 27]


def test_a_tile_is_stored_in_events_as_its_notation():
    assert to_json((parse_tile("5m"), parse_tile("C"), parse_tile("f1"))) == ["5m", "C", "f1"]


def test_notation_groups_numbers_before_their_suit_letter():
    assert parse_tiles("123m 456p 77s EEE CC f1") == tuple(
        map(parse_tile, "1m 2m 3m 4p 5p 6p 7s 7s E E E C C f1".split())
    )


def test_single_tile_tokens_are_accepted_too():
    assert parse_tiles("5m 5m E") == parse_tiles("55m E")


def test_formatting_sorts_and_groups_each_suit_and_honor():
    assert format_tiles(parse_tiles("C E 7s 4p 3m 2m 1m 5p 6p E 7s C E f1")) == "123m 456p 77s EEE CC f1"


def test_formatting_nothing_is_empty():
    assert format_tiles([]) == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("123m 0m", "bad tile '0m' at character 5 in \"123m 0m\""),
        ("12", "bad tile '12' at character 0"),
        ("EX", "bad tile 'X' at character 1"),
        ("f15", "bad tile 'f5' at character 2"),
        ("m", "bad tile 'm' at character 0"),
        ("5z", "bad tile '5z' at character 0"),
    ],
)
def test_bad_notation_names_the_bad_token_and_where_it_is(text, message):
    with pytest.raises(TileNotationError) as err:
        parse_tiles(text)
    assert message in str(err.value)


def test_a_bad_single_tile_is_a_notation_error():
    with pytest.raises(TileNotationError, match="'0p'"):
        parse_tile("0p")
    assert issubclass(TileNotationError, ValueError)


def test_counts_leave_flowers_out_and_round_trip():
    tiles = parse_tiles("112m 9s EE f2")
    c = counts(tiles)
    assert len(c) == 34
    assert c[0] == 2 and c[1] == 1 and c[26] == 1 and c[27] == 2 and sum(c) == 6
    assert from_counts(c) == parse_tiles("112m 9s EE")


def test_suit_number_honor_and_flower_of_a_tile():
    five_p, north, flower = parse_tile("5p"), parse_tile("N"), parse_tile("f3")
    assert (suit_of(five_p), number_of(five_p), is_honor(five_p), is_flower(five_p)) == (1, 5, False, False)
    assert (suit_of(north), number_of(north), is_honor(north)) == (3, None, True)
    assert is_flower(flower) and not is_honor(flower)


def test_face_value_is_the_number_and_10_for_winds_and_dragons():
    assert [face_value(t) for t in parse_tiles("19m 5p 7s")] == [1, 9, 5, 7]
    assert {face_value(t) for t in parse_tiles("ESWNCFP")} == {10}


def test_the_full_set_has_four_of_each_of_34_kinds():
    assert len(FULL_SET) == 136
    assert counts(FULL_SET) == [4] * 34
    assert len(FLOWERS) == 4


@given(st.lists(st.sampled_from(ALL_TILES + FLOWERS), max_size=20))
def test_formatting_then_parsing_gives_the_sorted_tiles_back(tiles):
    assert parse_tiles(format_tiles(tiles)) == tuple(sorted(tiles))
