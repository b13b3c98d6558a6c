"""The 庄家's friend (daqi.md, "Partner"): every case of the friend card."""

from engine.daqi import RULESET
from engine.daqi.cards import HEARTS
from engine.daqi.commands import Bid
from engine.daqi.events import FriendRevealed, HandEnded, PlayStarted
from engine.daqi.friend import Partnership, friend_card

from .tables import bury, cards, finish_by_defaults, fixed_deal, pass_round, play, run, to_burying

BOTTOM = "♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10 ♣J"


def _playing(deal_cmd, bids=(), buried=BOTTOM):
    state = to_burying(deal_cmd, bids)
    state, events = bury(state, buried)
    state, more = pass_round(state)
    events += more
    (started,) = [e for e in events if isinstance(e, PlayStarted)]
    return state, started


def _default(state):
    return run(state, *RULESET.deadline(state).defaults.values())


def test_the_friend_card_is_the_seven_of_the_trump_suit():
    assert friend_card(HEARTS) == cards("♥7")[0]
    assert friend_card(None) is None


def test_a_declarer_who_bid_with_a_pair_holds_both_copies_and_plays_one_against_four():
    _, started = _playing(fixed_deal({1: "♥7 ♥7"}, bottom=BOTTOM), [Bid(1, cards("♥7 ♥7"))])
    assert started.partnership == Partnership("alone")


def test_a_declarer_who_took_the_other_copy_from_the_bottom_plays_one_against_four():
    deal_cmd = fixed_deal({1: "♥7"}, bottom="♥7 ♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10")
    state, started = _playing(deal_cmd, [Bid(1, cards("♥7"))], buried=None)
    assert state.hands[1].count(cards("♥7")[0]) == 2
    assert started.partnership == Partnership("alone")


def test_burying_the_other_copy_taken_from_the_bottom_still_plays_one_against_four():
    deal_cmd = fixed_deal({1: "♥7"}, bottom="♥7 ♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10")
    _, started = _playing(deal_cmd, [Bid(1, cards("♥7"))], buried="♥7 ♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10")
    assert started.partnership == Partnership("alone")


def test_a_joker_pair_bid_plays_one_against_four():
    _, started = _playing(fixed_deal({4: "SJ SJ"}, bottom=BOTTOM), [Bid(4, cards("SJ SJ"))])
    assert started.trump_suit is None
    assert started.partnership == Partnership("alone")


def test_nobody_bid_and_a_joker_flip_plays_one_against_four():
    _, started = _playing(fixed_deal({2: "BJ", 0: "♥7", 3: "♥7"}, flip=(2, 0), bottom=BOTTOM))
    assert (started.declarer, started.trump_suit) == (2, None)
    assert started.partnership == Partnership("alone")


def test_the_holder_of_the_other_copy_is_the_friend_two_against_three():
    _, started = _playing(fixed_deal({1: "♥7", 3: "♥7"}, bottom=BOTTOM), [Bid(1, cards("♥7"))])
    assert started.partnership == Partnership("holder", 3)


def test_burying_the_declarers_own_copy_makes_no_difference_to_the_friend():
    deal_cmd = fixed_deal({1: "♥7", 3: "♥7"}, bottom=BOTTOM)
    _, started = _playing(deal_cmd, [Bid(1, cards("♥7"))], buried="♥7 ♣3 ♣4 ♣5 ♣6 ♣8 ♣9 ♣10")
    assert started.partnership == Partnership("holder", 3)


def test_the_friend_is_secret_until_the_friend_card_is_played():
    deal_cmd = fixed_deal({1: "♥7 ♥A", 3: "♥7"}, bottom=BOTTOM)
    state, started = _playing(deal_cmd, [Bid(1, cards("♥7"))])
    for seat in (None, 0, 1, 2, 3, 4):
        assert RULESET.redact(started, seat).partnership is None
        assert RULESET.view(state, seat).friend is None


def test_playing_the_friend_card_reveals_the_friendship_with_that_play():
    state, _ = _playing(fixed_deal({1: "♥7 ♥A", 3: "♥7"}, bottom=BOTTOM), [Bid(1, cards("♥7"))])
    state, events = play(state, 1, "♥A")
    assert not any(isinstance(e, FriendRevealed) for e in events)
    state, _ = _default(state)
    state, events = play(state, 3, "♥7")
    assert events[-1] == FriendRevealed(3)
    assert all(RULESET.view(state, seat).friend == 3 for seat in (None, 0, 1, 2, 3, 4))


def test_the_declarer_playing_their_own_copy_reveals_nothing():
    state, _ = _playing(fixed_deal({1: "♥7", 3: "♥7"}, bottom=BOTTOM), [Bid(1, cards("♥7"))])
    state, events = play(state, 1, "♥7")
    assert not any(isinstance(e, FriendRevealed) for e in events)
    assert RULESET.view(state, 0).friend is None


def test_nobody_bid_and_the_declarer_holds_one_copy_the_holder_of_the_other_is_the_friend():
    deal_cmd = fixed_deal({2: "♥9 ♥7", 4: "♥7"}, flip=(2, 0), bottom=BOTTOM)
    _, started = _playing(deal_cmd)
    assert (started.declarer, started.trump_suit) == (2, HEARTS)
    assert started.partnership == Partnership("holder", 4)


def test_nobody_bid_and_the_declarer_holds_no_trump_seven_the_first_other_player_to_play_one_is_the_friend():
    deal_cmd = fixed_deal({2: "♥9", 0: "♥7", 3: "♥7"}, flip=(2, 0), bottom=BOTTOM)
    state, started = _playing(deal_cmd)
    assert started.partnership == Partnership("first_to_play")
    state, _ = play(state, 2, "♥9")
    state, events = play(state, 3, "♥7")
    assert events[-1] == FriendRevealed(3)


def test_then_the_other_copy_means_nothing():
    deal_cmd = fixed_deal({2: "♥9", 0: "♥7", 3: "♥7"}, flip=(2, 0), bottom=BOTTOM)
    state, _ = _playing(deal_cmd)
    state, first = play(state, 2, "♥9")
    state, second = play(state, 3, "♥7")
    state, rest = finish_by_defaults(state)
    revealed = [e for e in first + second + rest if isinstance(e, FriendRevealed)]
    assert revealed == [FriendRevealed(3)]
    assert rest[-1].friend == 3


def test_the_declarer_side_is_the_declarer_and_the_friend_at_the_end_of_the_hand():
    state, _ = _playing(fixed_deal({1: "♥7", 3: "♥7"}, bottom=BOTTOM), [Bid(1, cards("♥7"))])
    state, events = finish_by_defaults(state)
    ended = events[-1]
    assert isinstance(ended, HandEnded)
    assert (ended.declarer, ended.friend) == (1, 3)
    assert ended.deltas[1] == 2 * ended.deltas[3]
