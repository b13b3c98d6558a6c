"""What a seat may see (daqi.md; docs/design.md, `view` and `redact`)."""

import json

from engine.core.contract import StartHand
from engine.core.messages import decode, encode
from engine.daqi import RULESET
from engine.daqi.commands import Bid, DealNext, Pass
from engine.daqi.events import BottomBuried, BottomTaken, CardDealt, HandEnded, HandStarted
from engine.daqi.view import View

from .tables import (
    bury,
    cards,
    deal,
    finish_by_defaults,
    fixed_deal,
    pass_round,
    run,
    started,
    table,
    to_burying,
)

BOTTOM = "♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10 ♣J"
DEAL = fixed_deal({1: "♥7", 3: "♠7 ♠7", 2: "♦9"}, bottom=BOTTOM, flip=(2, 0))


def test_a_seat_sees_its_own_hand_and_only_how_many_cards_the_others_hold():
    state, _ = deal(started(DEAL), 12)
    seen = RULESET.view(state, 1)
    assert seen.hand == state.hands[1]
    assert seen.hand_sizes == (3, 3, 2, 2, 2)
    assert seen.dealt == 12


def test_a_card_dealt_face_down_reaches_only_its_receiver():
    state = started(DEAL)
    state, _ = deal(state, 1)
    state, (ev,) = run(state, DealNext())
    assert ev.seat == 1 and not ev.face_up
    assert RULESET.redact(ev, 1) == ev
    for seat in (None, 0, 2, 3, 4):
        assert RULESET.redact(ev, seat) == CardDealt(index=ev.index, seat=1, card=None)


def test_everyone_sees_the_flip_and_who_received_it():
    state, _ = deal(started(DEAL), 2)
    assert RULESET.view(state, 0).flip is None
    state, _ = deal(state, 1)
    for seat in (None, 0, 1, 2, 3, 4):
        flip = RULESET.view(state, seat).flip
        assert (flip.seat, flip.cards) == (2, cards("♦9"))


def test_everyone_sees_the_shown_bids():
    state, _ = deal(started(DEAL), 9)
    state, _ = run(state, Bid(1, cards("♥7")), Bid(3, cards("♠7 ♠7")))
    for seat in (None, 0, 2, 4):
        seen = RULESET.view(state, seat)
        assert [(b.seat, b.cards) for b in seen.bids] == [(1, cards("♥7")), (3, cards("♠7 ♠7"))]
        assert seen.best_bid.seat == 3


def test_only_the_declarer_sees_the_bottom_taken_up():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    taken = BottomTaken(1, tuple(sorted(cards(BOTTOM))))
    assert RULESET.redact(taken, 1) == taken
    for seat in (None, 0, 2, 3, 4):
        assert RULESET.redact(taken, seat).cards is None
    assert len(RULESET.view(state, 1).hand) == 28
    assert RULESET.view(state, 0).hand_sizes[1] == 28


def test_only_the_declarer_who_buried_it_sees_the_bottom():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    state, (buried,) = bury(state, BOTTOM)
    assert isinstance(buried, BottomBuried)
    assert RULESET.view(state, 1).bottom == tuple(sorted(cards(BOTTOM)))
    for seat in (None, 0, 2, 3, 4):
        assert RULESET.view(state, seat).bottom is None
        assert RULESET.redact(buried, seat).cards is None


def test_after_the_extra_overcall_only_the_new_declarer_sees_the_new_bottom():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    state, _ = bury(state, BOTTOM)
    state, _ = run(state, Pass(1), Pass(2), Bid(3, cards("♠7 ♠7")))
    state, _ = bury(state)
    assert RULESET.view(state, 3).bottom == state.bottom
    assert RULESET.view(state, 1).bottom is None


def test_the_seed_salt_and_deck_are_secret_until_the_hand_end_reveals_deck_and_salt():
    state, (first,) = run(table(), StartHand(b"secret-seed", b"secret-salt"))
    assert isinstance(first, HandStarted)
    for seat in (None, 0, 1, 2, 3, 4):
        shown = RULESET.redact(first, seat)
        assert (shown.deck, shown.flip_index, shown.seed, shown.salt) == (None, None, None, None)
        assert shown.commitment == first.commitment
        assert b"secret".hex() not in json.dumps(encode(shown)[2])
    state, _ = deal(state)
    state, events = finish_by_defaults(state)
    last = events[-1]
    assert isinstance(last, HandEnded)
    revealed = RULESET.redact(last, 0)
    assert (revealed.deck, revealed.salt) == (first.deck, b"secret-salt")


def test_everything_played_is_visible_to_everyone():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    state, _ = bury(state, BOTTOM)
    state, _ = pass_round(state)
    lead = RULESET.legal_actions(state, 1)[0]
    state, _ = run(state, lead)
    for seat in (None, 0, 2, 3, 4):
        seen = RULESET.view(state, seat)
        assert [(p.seat, p.cards) for p in seen.trick] == [(1, lead.cards)]
        assert seen.turn == 2 and seen.declarer == 1 and seen.trumps.trump_suit == 1


def test_a_spectator_sees_no_hand():
    state, _ = deal(started(DEAL))
    assert RULESET.view(state, None).hand == ()


def test_a_view_travels_through_the_message_codec():
    state = to_burying(DEAL, [Bid(1, cards("♥7"))])
    state, _ = bury(state, BOTTOM)
    state, _ = pass_round(state)
    state, _ = run(state, RULESET.legal_actions(state, 1)[0])
    seen = RULESET.view(state, 1)
    name, version, data = encode(seen)
    assert decode(name, version, json.loads(json.dumps(data))) == seen
    assert isinstance(seen, View)
