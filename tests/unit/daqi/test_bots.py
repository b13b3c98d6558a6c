"""The bots: always legal; the greedy one bids with strong 7s, buries safely, takes points."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.daqi import RULESET
from engine.daqi.bots import greedy_bot, random_bot, trump_share
from engine.daqi.cards import HEARTS
from engine.daqi.choices import cheapest, safe_bury
from engine.daqi.commands import Bid, Bury, Pass, PlayCards
from engine.daqi.friend import Partnership
from engine.daqi.points import points
from engine.daqi.state import Dealing
from engine.daqi.trumps import Trumps
from engine.selfplay import play as selfplay

from .tables import cards, deal, endgame, fixed_deal, play, random_hand, run, started


def test_greedy_bids_with_a_seven_when_its_suit_would_make_the_hand_strong():
    strong = fixed_deal({2: "♥7 ♥A ♥K ♥Q ♥J ♥10 ♥9 ♥8 ♠2 BJ"})
    state, _ = deal(started(strong), 50)
    legal = RULESET.legal_actions(state, 2)
    assert greedy_bot(RULESET.view(state, 2), legal, random.Random(1)) == Bid(2, cards("♥7"))


def test_greedy_lets_the_deal_go_on_with_a_weak_seven():
    weak = fixed_deal({2: "♥7 ♠3 ♠4 ♠5 ♠6 ♣3 ♣4 ♣5 ♦3 ♦4"})
    state, _ = deal(started(weak), 50)
    legal = RULESET.legal_actions(state, 2)
    assert legal
    assert greedy_bot(RULESET.view(state, 2), legal, random.Random(1)) is None


def test_greedy_passes_the_final_window_with_a_weak_hand():
    weak = fixed_deal({2: "♥7 ♠3 ♠4 ♠5 ♠6 ♣3 ♣4 ♣5 ♦3 ♦4"})
    state, _ = deal(started(weak))
    legal = RULESET.legal_actions(state, 2)
    assert greedy_bot(RULESET.view(state, 2), legal, random.Random(1)) == Pass(2)


def test_trump_share_counts_jokers_sevens_twos_and_the_trump_suit():
    assert trump_share(cards("BJ ♠7 ♣2 ♥3 ♠3"), HEARTS) == 4 / 5
    assert trump_share(cards("BJ ♠7 ♣2 ♥3 ♠3"), None) == 3 / 5


def test_greedy_buries_no_points_and_no_trumps_when_it_can():
    hand = cards(
        "♥7 ♥A ♥K ♥5 ♠2 BJ ♠3 ♠4 ♠6 ♠K ♠10 ♣3 ♣4 ♣5 ♣6 ♣8 ♦3 ♦9 ♦J ♦Q ♦A ♦A ♦K ♦5 ♣K ♣10 ♠Q ♠J"
    )
    buried = safe_bury(hand, Trumps(HEARTS))
    assert len(buried) == 8 and points(buried) == 0
    assert not any(Trumps(HEARTS).is_trump(c) for c in buried)
    assert cards("♦A")[0] not in buried


def test_greedy_plays_high_to_win_a_trick_with_points_while_others_still_play():
    state = endgame(
        {0: "♠10 ♦6", 1: "♠J ♦8", 2: "♠A ♠Q", 3: "♦3 ♦9", 4: "♦4 ♦J"},
        declarer=4, leader=0, trump_suit=HEARTS,
    )
    state, _ = play(state, 0, "♠10")
    state, _ = play(state, 1, "♠J")
    legal = RULESET.legal_actions(state, 2)
    assert greedy_bot(RULESET.view(state, 2), legal, random.Random(1)) == PlayCards(2, cards("♠A"))


def test_greedy_playing_last_takes_a_trick_with_points_as_cheaply_as_it_can():
    state = endgame(
        {0: "♠10 ♦6", 1: "♠J ♦8", 2: "♦5 ♦9", 3: "♦3 ♦J", 4: "♠A ♠Q"},
        declarer=2, leader=0, trump_suit=HEARTS,
    )
    state, _ = run(state, *(PlayCards(s, cards(c)) for s, c in [(0, "♠10"), (1, "♠J"), (2, "♦5")]))
    state, _ = play(state, 3, "♦3")
    legal = RULESET.legal_actions(state, 4)
    assert greedy_bot(RULESET.view(state, 4), legal, random.Random(1)) == PlayCards(4, cards("♠Q"))


def test_greedy_adds_points_to_a_trick_its_revealed_partner_wins():
    state = endgame(
        {0: "♠A ♦3", 1: "♠3 ♦4", 2: "♠4 ♦6", 3: "♠6 ♦8", 4: "♠K ♠8"},
        declarer=0, leader=0, trump_suit=HEARTS,
        partnership=Partnership("holder", 4), revealed=True,
    )
    state, _ = run(state, *(PlayCards(s, cards(c)) for s, c in [(0, "♠A"), (1, "♠3"), (2, "♠4")]))
    state, _ = play(state, 3, "♠6")
    legal = RULESET.legal_actions(state, 4)
    assert greedy_bot(RULESET.view(state, 4), legal, random.Random(1)) == PlayCards(4, cards("♠K"))


def test_greedy_gives_away_as_little_as_it_can_when_it_cannot_win():
    state = endgame(
        {0: "♠A ♦8", 1: "♠K ♠3", 2: "♦4 ♦9", 3: "♦3 ♦J", 4: "♦6 ♦Q"},
        declarer=4, leader=0, trump_suit=HEARTS,
    )
    state, _ = play(state, 0, "♠A")
    legal = RULESET.legal_actions(state, 1)
    assert greedy_bot(RULESET.view(state, 1), legal, random.Random(1)) == PlayCards(1, cards("♠3"))


def test_cheapest_prefers_no_points_then_no_trumps_then_low_cards():
    trumps = Trumps(HEARTS)
    assert cheapest([cards("♠5"), cards("♥3"), cards("♠A")], trumps) == cards("♠A")
    assert cheapest([cards("♥3"), cards("♥4")], trumps) == cards("♥3")


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), bot=st.sampled_from(["random", "greedy"]))
def test_bots_only_ever_choose_offered_commands(seed, bot):
    chosen = []

    def spy(view, legal, rng):
        cmd = RULESET.bots[bot](view, legal, rng)
        chosen.append((view.phase, cmd, legal))
        return cmd

    random_hand(seed, spy)
    for phase, cmd, legal in chosen:
        if cmd is None:
            assert phase == "dealing"
        elif isinstance(cmd, Bury):
            assert len(cmd.cards) == 8
        else:
            assert cmd in legal


def test_random_bot_declines_most_bids_while_dealing():
    state = started(fixed_deal({1: "♥7"}))
    state, _ = deal(state, 2)
    assert isinstance(state, Dealing)
    legal = RULESET.legal_actions(state, 1)
    rng = random.Random(3)
    picks = [random_bot(RULESET.view(state, 1), legal, rng) for _ in range(200)]
    assert 0 < sum(p is not None for p in picks) < 60


def test_greedy_bots_play_clean_hands_through_the_selfplay_driver():
    summary = selfplay("daqi", 5, seed=11, bot="greedy")
    assert summary.hands == 5
