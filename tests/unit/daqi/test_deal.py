"""Cards and deal (daqi.md, "Cards and deal"; "Next hand")."""

from collections import Counter

import pytest

from engine.core.contract import StartHand
from engine.core.errors import RuleViolation
from engine.core.shuffle import commitment
from engine.daqi import RULESET
from engine.daqi.cards import DECK
from engine.daqi.commands import Bid, DealNext, FixedDeal, PlayCards
from engine.daqi.deal import first_dealer, flip_index
from engine.daqi.events import CardDealt, HandEnded, HandStarted
from engine.daqi.notation import fixed_deal
from engine.daqi.state import Dealing, FinalBids

from .tables import cards, deal, finish_by_defaults, run, started, table
from .tables import fixed_deal as scripted


def test_two_decks_with_jokers_are_108_cards_20_to_each_of_five_players_and_8_to_the_bottom():
    state, _ = run(table(), StartHand(b"seed", b"salt"))
    state, _ = deal(state)
    assert isinstance(state, FinalBids)
    assert [len(h) for h in state.hands] == [20] * 5
    assert len(state.deal.bottom) == 8
    assert Counter(c for h in state.hands for c in h) + Counter(state.deal.bottom) == Counter(DECK)


def test_cards_are_dealt_one_at_a_time_in_play_order_starting_with_the_dealing_seat():
    state = started(scripted(dealer=3))
    seats = []
    for _ in range(7):
        state, (ev,) = run(state, DealNext())
        seats.append(ev.seat)
    assert seats == [3, 4, 0, 1, 2, 3, 4]
    assert [len(h) for h in state.hands] == [1, 1, 1, 2, 2]


def test_the_table_clock_deals_the_next_card_every_deal_interval():
    state = started(scripted(), deal_interval_ms=300)
    deadline = RULESET.deadline(state)
    assert deadline.defaults == {None: DealNext()}
    assert deadline.timeout_ms == 300


def test_nobody_owes_a_decision_while_the_cards_are_dealt_but_anyone_may_bid():
    state = started(scripted({2: "♥7"}))
    state, _ = deal(state, 3)
    assert list(RULESET.deadline(state).defaults) == [None]
    assert RULESET.legal_actions(state, 2) != []
    assert RULESET.legal_actions(state, 0) == []


def test_the_flip_card_chosen_by_the_shuffle_is_dealt_face_up_to_one_player():
    state = started(scripted({2: "♣9 ♣K"}, flip=(2, 1)))
    state, events = deal(state)
    face_up = [ev for ev in events if ev.face_up]
    assert face_up == [CardDealt(index=7, seat=2, card=cards("♣K")[0], face_up=True)]
    for seat in range(5):
        assert RULESET.redact(face_up[0], seat).card == cards("♣K")[0]


def test_the_flip_position_is_fixed_by_the_deck_order_so_the_commitment_covers_it():
    state, (started_ev,) = run(table(), StartHand(b"seed-1", b"salt"))
    assert started_ev.flip_index == flip_index(started_ev.deck)
    assert 0 <= started_ev.flip_index < 100
    decks = [RULESET.decide(table(), StartHand(bytes([n]), b"s"))[0].deck for n in range(40)]
    positions = {flip_index(deck) for deck in decks}
    assert len(positions) > 20


def test_the_first_hand_is_dealt_by_a_random_seat_drawn_from_the_seed():
    dealers = {first_dealer(bytes([n])) for n in range(50)}
    assert dealers == {0, 1, 2, 3, 4}
    (ev,) = RULESET.decide(table(), StartHand(b"x", b"salt"))
    assert ev.dealer == first_dealer(b"x")


def test_the_next_hand_is_dealt_by_the_last_declarer():
    state = started(scripted({4: "♠7"}, dealer=1))
    state, _ = deal(state)
    state, _ = run(state, Bid(4, cards("♠7")))
    state, events = finish_by_defaults(state)
    ended = events[-1]
    assert isinstance(ended, HandEnded) and ended.declarer == 4
    (next_hand,) = RULESET.decide(state, StartHand(b"next", b"salt"))
    assert next_hand.dealer == ended.declarer
    assert next_hand.number == 2


def test_the_hand_commits_to_the_deck_order_and_reveals_deck_and_salt_at_its_end():
    state, (first,) = run(table(), StartHand(b"seed", b"pepper"))
    assert isinstance(first, HandStarted)
    assert first.commitment == commitment([str(c) for c in first.deck], b"pepper")
    state, _ = deal(state)
    state, events = finish_by_defaults(state)
    last = events[-1]
    assert isinstance(last, HandEnded)
    assert commitment([str(c) for c in last.deck], last.salt) == first.commitment


def test_a_hand_cannot_start_while_one_is_in_progress():
    state = started(scripted())
    with pytest.raises(RuleViolation) as err:
        RULESET.decide(state, StartHand(b"a", b"b"))
    assert err.value.code == "hand_in_progress"


def test_no_card_is_dealt_once_the_deal_is_over():
    state, _ = deal(started(scripted()))
    with pytest.raises(RuleViolation) as err:
        RULESET.decide(state, DealNext())
    assert err.value.code == "not_dealing"


def test_nobody_plays_before_the_hand_starts():
    with pytest.raises(RuleViolation) as err:
        RULESET.decide(table(), PlayCards(0, cards("♠3")))
    assert err.value.code == "no_hand_in_progress"


# ---- scenario deals --------------------------------------------------------------------------


def _deal_spec(dealer=0, flip=None):
    cmd = scripted(dealer=dealer)
    hands = [[] for _ in range(5)]
    for i, card in enumerate(cmd.deck[:100]):
        hands[(dealer + i) % 5].append(str(card))
    return {
        "dealer": dealer,
        "hands": [" ".join(h) for h in hands],
        "bottom": " ".join(map(str, cmd.deck[100:])),
        "flip": flip or {"seat": 1, "card": 4},
    }


def test_a_scenario_deal_gives_each_seat_its_cards_in_the_order_written():
    spec = _deal_spec(dealer=2, flip={"seat": 0, "card": 3})
    cmd = fixed_deal(spec, b"salt")
    assert isinstance(cmd, FixedDeal)
    state, _ = deal(started(cmd))
    for seat in range(5):
        assert sorted(state.hands[seat]) == sorted(cards(spec["hands"][seat]))
    assert state.deal.bottom == cards(spec["bottom"])
    assert (state.deal.flip_seat, state.deal.flip_card) == (0, cards(spec["hands"][0])[3])


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"dealer": 5}, "'dealer'"),
        ({"bottom": "♠3"}, "'bottom'"),
        ({"flip": {"seat": 1}}, "'flip'"),
        ({"extra": 1}, "unknown deal key"),
    ],
)
def test_a_bad_scenario_deal_names_what_is_wrong(change, words):
    spec = {**_deal_spec(), **change}
    with pytest.raises(ValueError, match=words):
        fixed_deal(spec, b"salt")


def test_a_scenario_deal_must_use_the_108_cards_exactly():
    spec = _deal_spec()
    spec["hands"][0] = spec["hands"][1]
    with pytest.raises(ValueError, match="108 cards"):
        fixed_deal(spec, b"salt")


def test_a_scripted_deal_with_a_wrong_deck_is_rejected():
    bad = FixedDeal(DECK[:100] + DECK[:8], 0, 0, b"s")
    with pytest.raises(RuleViolation) as err:
        RULESET.decide(table(), bad)
    assert err.value.code == "bad_deal"


def test_dealing_reaches_the_final_window_after_the_100th_card():
    state, _ = deal(started(scripted()), 99)
    assert isinstance(state, Dealing) and state.dealt == 99
    state, _ = run(state, DealNext())
    assert isinstance(state, FinalBids)
