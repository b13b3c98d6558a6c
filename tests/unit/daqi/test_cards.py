import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core.messages import to_json
from engine.daqi.cards import (
    BJ,
    CARDS,
    CLUBS,
    DECK,
    DIAMONDS,
    HEARTS,
    SJ,
    SPADES,
    Card,
    CardNotationError,
    ascii_cards,
    card_of,
    format_cards,
    is_joker,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)


def test_two_decks_with_jokers_make_108_cards_every_card_twice():
    assert len(DECK) == 108
    assert all(DECK.count(card) == 2 for card in CARDS)
    assert list(DECK) == sorted(DECK)


def test_a_card_is_its_kind_id_suit_times_13_plus_rank_minus_2():
    assert card_of(SPADES, 2) == 0
    assert card_of(HEARTS, 14) == 1 * 13 + 12
    assert card_of(DIAMONDS, 7) == 3 * 13 + 5
    assert SJ == 52 and BJ == 53
    assert isinstance(parse_card("♣Q"), Card)


def test_notation_reads_suit_symbol_then_rank():
    assert format_cards(parse_cards("♠A ♠A ♥10 SJ BJ")) == "♠A ♠A ♥10 SJ BJ"
    assert [str(c) for c in parse_cards("♣J ♦Q ♠K ♥2")] == ["♣J", "♦Q", "♠K", "♥2"]


def test_ascii_notation_uses_s_h_c_d():
    assert parse_cards("SA SA H10 SJ BJ") == parse_cards("♠A ♠A ♥10 SJ BJ")
    assert ascii_cards(parse_cards("♠A ♥10 ♣3 ♦K SJ BJ")) == "SA H10 C3 DK SJ BJ"


def test_sj_is_the_small_joker_so_the_ascii_spade_jack_is_s11():
    assert parse_card("SJ") == SJ
    assert parse_card("S11") == parse_card("♠J") == card_of(SPADES, 11)
    assert ascii_cards([card_of(SPADES, 11)]) == "S11"


def test_lower_case_commas_and_ten_as_t_are_read():
    assert parse_cards("sa, hT,sj") == parse_cards("♠A ♥10 SJ")


def test_suit_and_rank_of_a_card_and_jokers_have_neither():
    card = parse_card("♣Q")
    assert (suit_of(card), rank_of(card), is_joker(card)) == (CLUBS, 12, False)
    assert (suit_of(BJ), rank_of(BJ), is_joker(BJ)) == (None, None, True)


@pytest.mark.parametrize(
    ("text", "token", "position"),
    [("♠A X5", "X5", 3), ("♠1", "♠1", 0), ("SA H15", "H15", 3), ("♥", "♥", 0), ("SA ♦Z", "♦Z", 3)],
)
def test_bad_notation_names_the_bad_token_and_where_it_is(text, token, position):
    with pytest.raises(CardNotationError) as err:
        parse_cards(text)
    assert (err.value.token, err.value.position) == (token, position)
    assert repr(token) in str(err.value)


def test_parse_card_wants_exactly_one_card():
    with pytest.raises(CardNotationError):
        parse_card("♠A ♠K")
    with pytest.raises(CardNotationError):
        parse_card("")


def test_cards_are_stored_as_their_notation():
    assert to_json(parse_card("♥10")) == "♥10"


@given(st.lists(st.sampled_from(DECK), max_size=30))
def test_both_notations_read_back_what_they_wrote(cards):
    assert parse_cards(format_cards(cards)) == tuple(cards)
    assert parse_cards(ascii_cards(cards)) == tuple(cards)
