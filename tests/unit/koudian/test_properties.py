"""What must hold in every game: random hands played by bots (random and greedy moves mixed, so
that hands reach ready declarations, kongs, robbing and wins)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.messages import to_json
from engine.koudian import RULESET
from engine.koudian.events import HandEnded, ReadyDeclared
from engine.koudian.state import Playing
from engine.mahjong.actions import DeclareReady, Discard, Kong, Pass, Pong, Win
from engine.mahjong.melds import KONG_CONCEALED
from engine.mahjong.tiles import ALL_TILES, from_counts, parse_tile
from tests.unit.mahjong import properties

HANDS = settings(max_examples=15, deadline=None)


play_hands = properties.KOUDIAN_BOTS.play  # the events of bot-played hands and the state after each


@HANDS
@given(st.integers(0, 2**32))
def test_payments_are_zero_sum(seed):
    log, states = play_hands(seed, hands=2)
    ended = [ev for ev in log if isinstance(ev, HandEnded)]
    assert len(ended) == 2
    for ev in ended:
        assert sum(ev.deltas) == 0
    assert sum(states[-1].table.scores) == 0


def _tiles_in(data: Any) -> Counter[int]:
    """Every tile named anywhere in JSON-shaped data but a seat's own waits (worked out from its
    own hand; the other seats' copies of a declaration carry none)."""
    return properties.tiles_in(data, skip="waits")


def _may_know(state: Any, seat: int) -> Counter:
    """The tiles `seat` may know of: its own tiles (face-down discard and concealed kongs included)
    and what lies face up: the others' face-up discards and their melds but concealed kongs."""
    known: Counter = Counter()
    if not isinstance(state, Playing):
        return known
    for s, sh in enumerate(state.hand.seats):
        if s == seat:
            known.update(from_counts(sh.concealed))
            known.update(sh.river)
            for m in sh.melds:
                known.update(m.tiles)
            continue
        known.update(t for i, t in enumerate(sh.river) if i != sh.ready_at)
        for m in sh.melds:
            if m.kind != KONG_CONCEALED:
                known.update(m.tiles)
    return known


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32))
def test_no_seat_sees_another_seats_concealed_tiles_the_wall_a_concealed_kong_or_a_face_down_discard(seed):
    log, rests = play_hands(seed)
    states, state = [], RULESET.initial()
    for ev in log:
        state = RULESET.evolve(state, ev)
        states.append(state)
    before: Any = RULESET.initial()
    for ev, after, rest in zip(log, states, rests, strict=True):
        for seat in range(4):
            copy = RULESET.redact(ev, seat)
            if copy is None or isinstance(ev, HandEnded):  # the hand's end reveals everything
                continue
            if isinstance(ev, ReadyDeclared) and ev.seat != seat:
                assert copy.waits == ()
            shown = _tiles_in(to_json(copy))
            allowed = _may_know(before, seat) | _may_know(after, seat)
            assert not shown - allowed, f"{type(ev).__name__} shows seat {seat} {shown - allowed}"
            if rest is not None and isinstance(after, Playing):
                view = to_json(RULESET.view(after, seat))
                drawn = view.pop("drawn")  # one of the seat's own tiles, listed twice
                assert drawn is None or parse_tile(drawn) in RULESET.view(after, seat).hand
                view.pop("claim_tile")  # the last tile of a river or the kong being added
                view.pop("face_down")  # the seat's own, also in its river
                assert not _tiles_in(view) - _may_know(after, seat)
        before = after
    spectator = [RULESET.redact(ev, None) for ev in log if not isinstance(ev, HandEnded)]
    assert not any(_tiles_in(to_json(ev)) - _public(states) for ev in spectator if ev is not None)


def _public(states: list[Any]) -> Counter:
    """Everything that was ever face up during the hand (an upper bound for a spectator)."""
    seen: Counter = Counter()
    for state in states:
        if isinstance(state, Playing):
            for sh in state.hand.seats:
                seen |= Counter(t for i, t in enumerate(sh.river) if i != sh.ready_at)
                seen |= Counter(t for m in sh.melds if m.kind != KONG_CONCEALED for t in m.tiles)
    return seen


def _candidates(seat: int) -> list[Any]:
    cmds: list[Any] = [Win(seat), Pass(seat)]
    for t in ALL_TILES:
        cmds += [Discard(seat, t), DeclareReady(seat, t), Kong(seat, t), Pong(seat, t)]
    return cmds


@pytest.mark.slow
@settings(max_examples=3, deadline=None)
@given(st.integers(0, 2**32))
def test_legal_actions_are_exactly_the_commands_the_rules_accept(seed):
    log, rests = play_hands(seed)
    for state in rests:
        if state is None or not isinstance(state, Playing):
            continue
        for seat in range(4):
            legal = RULESET.legal_actions(state, seat)
            assert len(set(legal)) == len(legal)
            assert set(properties.accepted(RULESET, state, _candidates(seat))) == set(legal)
