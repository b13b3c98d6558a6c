"""Claim windows: every eligible seat answers; win beats pong and kong, which beat chow; between
equal claims the seat first in turn order after the discarder takes the tile (head bump)."""

from __future__ import annotations

from dataclasses import replace

from engine.mahjong.claims import CHOW, KONG, PASS, PONG, WIN, ClaimWindow
from engine.mahjong.tiles import parse_tile

FIVE = parse_tile("5m")


def window(source: int = 0, **options: tuple[str, ...]) -> ClaimWindow:
    """A window on 5m discarded by `source`; options given as s1=("pong",) ..."""
    return ClaimWindow(FIVE, source, 4, tuple((int(k[1:]), v) for k, v in options.items()))


def test_only_eligible_seats_are_asked_in_turn_order_after_the_source():
    w = window(source=2, s1=(WIN,), s3=(PONG,), s0=(CHOW,))
    assert w.pending() == (3, 0, 1)
    assert w.options_of(2) == ()


def test_a_win_beats_a_pong_even_when_the_pong_is_answered_first():
    w = window(s1=(PONG,), s2=(WIN,)).answered(1, PONG)
    assert not w.decided()
    w = w.answered(2, WIN)
    assert w.decided() and w.winners() == ((2, WIN),)


def test_a_pong_beats_a_chow():
    w = window(s1=(CHOW,), s3=(PONG,)).answered(3, PONG)
    assert w.decided()
    assert w.answered(1, CHOW).winners() == ((3, PONG),)


def test_a_claim_nobody_pending_can_beat_decides_the_window_at_once():
    w = window(s1=(WIN,), s2=(PONG,)).answered(1, WIN)
    assert w.decided() and w.winners() == ((1, WIN),)


def test_head_bump_the_first_after_the_discarder_wins_among_equal_claims():
    w = window(source=1, s3=(WIN,), s2=(WIN,)).answered(3, WIN)
    assert not w.decided()
    w = w.answered(2, WIN)
    assert w.winners() == ((2, WIN),)
    w = window(source=1, s3=(WIN,), s2=(WIN,)).answered(2, WIN)
    assert w.decided() and w.winners() == ((2, WIN),)


def test_several_winners_when_the_ruleset_allows_them_in_turn_order():
    w = window(source=1, s3=(WIN,), s2=(WIN,), s0=(PONG, KONG)).answered(3, WIN)
    assert not w.decided(multiple_wins=True)
    w = w.answered(2, WIN)
    assert w.decided(multiple_wins=True)
    assert w.winners(multiple_wins=True) == ((2, WIN), (3, WIN))


def test_when_everyone_passes_nobody_takes_the_tile():
    w = window(s1=(PONG,), s2=(WIN,)).answered(2, PASS)
    assert not w.decided()
    w = w.answered(1, PASS)
    assert w.decided() and w.winners() == ()


def test_equal_claims_can_be_ordered_from_another_seat_than_the_source():
    # Wuhan's 截胡 counts from the dealer (seat 0): seat 0 beats seat 2 on seat 1's discard.
    w = replace(window(source=1, s2=(WIN,), s0=(WIN,)), order_from=0).answered(2, WIN)
    assert not w.decided() and w.pending() == (0,)
    w = w.answered(0, WIN)
    assert w.decided() and w.winners() == ((0, WIN),)
