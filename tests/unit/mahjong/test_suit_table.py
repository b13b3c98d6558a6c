from engine.mahjong.suit_table import DEAD, HONORS, NUMBER_SUIT, UNREACHABLE, unpack


def number_suit(*nine: int) -> tuple[int, int]:
    return unpack(NUMBER_SUIT.get(bytes(nine), DEAD))


def honors(*seven: int) -> tuple[int, int]:
    return unpack(HONORS.get(bytes(seven), DEAD))


def test_an_empty_suit_needs_nothing_for_sets_and_two_wilds_for_a_pair():
    assert number_suit(0, 0, 0, 0, 0, 0, 0, 0, 0) == (0, 2)


def test_a_lone_tile_needs_two_wilds_for_a_set_and_one_for_the_pair():
    assert number_suit(0, 0, 0, 0, 1, 0, 0, 0, 0) == (2, 1)
    assert honors(1, 0, 0, 0, 0, 0, 0) == (2, 1)


def test_two_neighbours_need_one_wild_for_a_run():
    assert number_suit(1, 1, 0, 0, 0, 0, 0, 0, 0) == (1, 3)
    assert number_suit(1, 0, 1, 0, 0, 0, 0, 0, 0) == (1, 3)


def test_two_different_honors_cannot_share_a_set():
    assert honors(1, 1, 0, 0, 0, 0, 0) == (4, 3)


def test_a_run_and_a_pair_need_no_wilds_but_one_for_sets_only():
    assert number_suit(1, 1, 1, 0, 0, 0, 0, 2, 0) == (1, 0)


def test_scattered_tiles_beyond_four_wilds_are_unreachable():
    assert number_suit(1, 0, 0, 1, 0, 0, 1, 0, 0) == (UNREACHABLE, UNREACHABLE)
