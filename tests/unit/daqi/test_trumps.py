import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core.messages import to_json
from engine.daqi.cards import CARDS, CLUBS, DIAMONDS, HEARTS, SPADES, parse_card, parse_cards
from engine.daqi.trumps import TRUMP, Trumps

HEARTS_TRUMP = Trumps(HEARTS)
NO_TRUMP = Trumps(None)


def order(text, trumps=HEARTS_TRUMP):
    """Strengths of the cards in `text`, for comparing against the spec's order."""
    return [trumps.strength(c) for c in parse_cards(text)]


def test_jokers_sevens_and_twos_are_permanent_trumps():
    for card in parse_cards("BJ SJ ♠7 ♥7 ♣7 ♦7 ♠2 ♥2 ♣2 ♦2"):
        assert HEARTS_TRUMP.is_trump(card)
        assert NO_TRUMP.is_trump(card)


def test_every_card_of_the_trump_suit_is_a_trump():
    assert all(HEARTS_TRUMP.is_trump(c) for c in parse_cards("♥A ♥K ♥10 ♥3"))
    assert not any(HEARTS_TRUMP.is_trump(c) for c in parse_cards("♠A ♣K ♦10 ♠3"))


def test_with_no_trump_suit_only_the_permanent_trumps_are_trumps():
    assert sum(NO_TRUMP.is_trump(c) for c in CARDS) == 10


def test_all_trumps_form_one_suit_for_following():
    assert {HEARTS_TRUMP.follow_suit(c) for c in parse_cards("BJ ♠7 ♣2 ♥A ♥3")} == {TRUMP}
    assert [HEARTS_TRUMP.follow_suit(c) for c in parse_cards("♠A ♣K ♦3")] == [SPADES, CLUBS, DIAMONDS]


def test_single_card_order_bj_sj_trump_7_side_7_trump_2_side_2_then_trump_suit_a_to_3():
    spec = order("BJ SJ ♥7 ♠7 ♥2 ♠2 ♥A ♥K ♥Q ♥J ♥10 ♥9 ♥8 ♥6 ♥5 ♥4 ♥3")
    assert spec == sorted(spec, reverse=True)
    assert len(set(spec)) == len(spec)


def test_side_sevens_are_equal_and_side_twos_are_equal():
    assert len(set(order("♠7 ♣7 ♦7"))) == 1
    assert len(set(order("♠2 ♣2 ♦2"))) == 1


def test_the_weakest_trump_beats_the_strongest_side_card():
    assert min(order("♥3 ♠2")) > max(order("♠A ♣A ♦A"))


def test_side_suits_run_a_down_to_3_without_7_and_2():
    spec = order("♠A ♠K ♠Q ♠J ♠10 ♠9 ♠8 ♠6 ♠5 ♠4 ♠3")
    assert spec == sorted(spec, reverse=True)
    assert len(set(spec)) == len(spec)


def test_with_no_trump_suit_every_7_is_a_side_7_and_every_2_a_side_2():
    assert len(set(order("♠7 ♥7 ♣7 ♦7", NO_TRUMP))) == 1
    assert order("BJ SJ ♠7 ♠2", NO_TRUMP) == sorted(order("BJ SJ ♠7 ♠2", NO_TRUMP), reverse=True)


def test_trumps_are_stored_as_their_suit():
    assert to_json(HEARTS_TRUMP) == {"trump_suit": HEARTS}


def test_a_trump_suit_must_be_one_of_the_four_suits_or_none():
    with pytest.raises(ValueError):
        Trumps(7)


def test_display_order_is_trumps_strongest_first_then_each_side_suit():
    hand = parse_cards("♠3 ♥3 BJ ♣A ♠A ♦2")
    assert sorted(hand, key=HEARTS_TRUMP.sort_key) == list(parse_cards("BJ ♦2 ♥3 ♠A ♠3 ♣A"))


# "0" stands for 10 so that every rank is one character.
SPEC_ORDER = ["BJ", "SJ", "T7", "S7", "T2", "S2"] + [f"T{r}" for r in "AKQJ0986543"]


def spec_rank(card, trumps):
    """The card's place in daqi.md's single-card order (lower is stronger), side cards after."""
    text = str(card)
    if text in ("BJ", "SJ"):
        return SPEC_ORDER.index(text)
    suit, rank = text[0], text[1:].replace("10", "0")
    own = trumps.trump_suit is not None and suit == "♠♥♣♦"[trumps.trump_suit]
    if rank in "72":
        return SPEC_ORDER.index(("T" if own else "S") + rank)
    if own:
        return SPEC_ORDER.index("T" + rank)
    return len(SPEC_ORDER) + "AKQJ0986543".index(rank)


@given(st.sampled_from([None, SPADES, HEARTS, CLUBS, DIAMONDS]), st.sampled_from(CARDS), st.sampled_from(CARDS))
def test_strength_is_a_total_preorder_consistent_with_the_spec_order(suit, a, b):
    trumps = Trumps(suit)
    if trumps.is_trump(a) or trumps.is_trump(b) or trumps.follow_suit(a) == trumps.follow_suit(b):
        assert (trumps.strength(a) > trumps.strength(b)) == (spec_rank(a, trumps) < spec_rank(b, trumps))
        assert (trumps.strength(a) == trumps.strength(b)) == (spec_rank(a, trumps) == spec_rank(b, trumps))
    assert trumps.strength(parse_card(str(a))) == trumps.strength(a)
