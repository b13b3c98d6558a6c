"""A seat's view of the table, and what auto-play (托管) does when a seat's time runs out."""

from __future__ import annotations

from engine.koudian import RULESET
from engine.koudian.events import HandStarted
from engine.mahjong.actions import Discard, Pass, Win
from engine.mahjong.tiles import parse_tile, parse_tiles

from .table import DEALER, LOOSE_2, READY_ON_3P_6P, SEED_DEAL, Table, seed_table


def test_a_seat_sees_its_own_hand_and_only_the_size_of_the_others():
    t = Table(SEED_DEAL)
    view = RULESET.view(t.state, 1)
    assert view.hand == parse_tiles(READY_ON_3P_6P)
    assert view.hand_sizes == (14, 13, 13, 13)
    assert (view.turn, view.phase, view.wall_live, view.scores) == (0, "turn", 136 - 53 - 12, (0, 0, 0, 0))
    assert RULESET.view(t.state, None).hand == ()


def test_a_seat_sees_who_declared_ready_and_its_own_waits_only():
    t = seed_table(wall="E 7s")
    assert RULESET.view(t.state, 0).ready == (False, True, False, False)
    assert RULESET.view(t.state, 0).waits == ()
    assert RULESET.view(t.state, 1).waits == parse_tiles("3p 6p")
    assert RULESET.view(t.state, 1).face_down == parse_tile("E")


def test_a_seat_is_dealt_its_own_tiles_and_nobody_gets_the_deck_seed_or_salt_before_the_end():
    t = Table(SEED_DEAL)
    started = next(ev for ev in t.log if isinstance(ev, HandStarted))
    mine = RULESET.redact(started, 2)
    assert mine.dealt[2] == parse_tiles(LOOSE_2) and mine.dealt[0] == mine.dealt[1] == mine.dealt[3] == ()
    assert (mine.order, mine.seed, mine.salt) == (None, None, None)
    assert mine.commitment == started.commitment


def test_the_hand_end_reveals_the_deck_and_salt_matching_the_commitment():
    from engine.core.shuffle import commitment

    t = seed_table(wall="E 7s")
    t.act(2, "discard", "6p")
    t.act(1, "win")
    started = next(ev for ev in t.log if isinstance(ev, HandStarted))
    ended = t.ended()
    assert RULESET.redact(ended, 3) == ended
    assert commitment([str(x) for x in ended.order], ended.salt) == started.commitment


def test_autoplay_discards_the_drawn_tile_passes_claims_and_takes_every_win():
    t = Table(SEED_DEAL, wall="E")
    t.act(0, "discard", "C")
    deadline = RULESET.deadline(t.state)
    assert deadline.defaults == {1: Discard(1, parse_tile("E"))}
    assert deadline.timeout_ms == t.options.turn_timeout_ms
    t = seed_table(wall="E 7s")
    t.act(2, "discard", "6p")
    deadline = RULESET.deadline(t.state)
    assert deadline.defaults == {1: Win(1)} and deadline.timeout_ms == t.options.claim_timeout_ms


def test_autoplay_passes_a_pong_and_after_a_pong_discards_the_highest_tile():
    t = Table([DEALER, READY_ON_3P_6P, LOOSE_2, "3m 6m 9m 1p 7p 1s 3s 6s 9s N CC F"], turn_timeout_ms=5000)
    t.act(0, "discard", "C")
    assert RULESET.deadline(t.state).defaults == {3: Pass(3)}
    t.act(3, "pong", "C")
    assert RULESET.deadline(t.state).defaults == {3: Discard(3, parse_tile("F"))}
    assert RULESET.deadline(t.state).timeout_ms == 5000


def test_there_is_no_deadline_between_hands():
    t = seed_table(wall="E 7s")
    t.act(2, "discard", "6p")
    t.act(1, "win")
    assert RULESET.deadline(t.state) is None
    assert RULESET.legal_actions(t.state, 1) == []
