"""What must hold in every game: random hands played by bots (greedy and random moves mixed, so
that hands reach claims, every kind of kong, robbing, the last four draws and wins)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.contract import StartHand, Status
from engine.core.errors import RuleViolation
from engine.core.messages import to_json
from engine.driver import apply, bot_command, fold
from engine.mahjong.actions import Chow, Discard, Kong, Pass, Pong, Win
from engine.mahjong.melds import KONG_CONCEALED
from engine.mahjong.tiles import ALL_TILES, from_counts, parse_tile
from engine.selfplay import hand_secrets
from engine.wuhan import RULESET
from engine.wuhan.bots import greedy_bot
from engine.wuhan.events import HandEnded, MatchEnded
from engine.wuhan.state import Playing
from tests.unit.mahjong import properties

HANDS = settings(max_examples=15, deadline=None)


play_hands = properties.WUHAN_BOTS.play  # the events of bot-played hands and the state after each


@HANDS
@given(st.integers(0, 2**32))
def test_payments_are_zero_sum_and_each_line_is_paid_by_its_loser_or_the_liable_seat(seed):
    log, states = play_hands(seed, hands=2)
    ended = [ev for ev in log if isinstance(ev, HandEnded)]
    assert len(ended) == 2
    for ev in ended:
        assert sum(ev.deltas) == 0
        s = ev.settlement
        if s is not None:
            assert s.deltas == ev.deltas and ev.deltas[s.winner] == s.total * RULESET.options().base_score
            assert all(line.payer in (line.seat, s.liable) for line in s.lines)
    assert sum(states[-1].table.scores) == 0


def _tiles_in(data: Any) -> Counter[int]:
    """Every tile named anywhere in JSON-shaped data (a chow's `low` only names its run, whose
    tiles the meld shows)."""
    return properties.tiles_in(data, skip="low")


def _public(state: Any) -> Counter:
    """What lies face up for everyone: the indicator and the kinds it names, rivers, laid-out
    赖子 and skins, melds but concealed kongs."""
    seen: Counter = Counter()
    if not isinstance(state, Playing):
        return seen
    roles = state.hand.roles
    seen.update([roles.indicator, roles.laizi, *roles.skins])
    for s, sh in enumerate(state.hand.seats):
        seen.update(sh.river)
        seen.update(state.hand.laid[s])
        for m in sh.melds:
            if m.kind != KONG_CONCEALED:
                seen.update(m.tiles)
    return seen


def _may_know(state: Any, seat: int) -> Counter:
    """The public tiles and the seat's own: its concealed hand and concealed kongs."""
    known = _public(state)
    if isinstance(state, Playing):
        sh = state.hand.seats[seat]
        known.update(from_counts(sh.concealed))
        known.update(t for m in sh.melds if m.kind == KONG_CONCEALED for t in m.tiles)
    return known


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32))
def test_no_seat_sees_another_seats_concealed_tiles_the_wall_or_a_concealed_kong(seed):
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
            shown = _tiles_in(to_json(copy))
            allowed = _may_know(before, seat) | _may_know(after, seat)
            assert not shown - allowed, f"{type(ev).__name__} shows seat {seat} {shown - allowed}"
            if rest is not None and isinstance(after, Playing):
                view = to_json(RULESET.view(after, seat))
                drawn = view.pop("drawn")  # one of the seat's own tiles, listed twice
                assert drawn is None or parse_tile(drawn) in RULESET.view(after, seat).hand
                view.pop("claim_tile")  # the last tile of a river or the kong being added
                assert not _tiles_in(view) - _may_know(after, seat)
        spectator = RULESET.redact(ev, None)
        if spectator is not None and not isinstance(ev, HandEnded):
            assert not _tiles_in(to_json(spectator)) - (_public(before) | _public(after))
        before = after


def _candidates(seat: int) -> list[Any]:
    cmds: list[Any] = [Win(seat), Pass(seat)]
    for t in ALL_TILES:
        cmds += [Discard(seat, t), Kong(seat, t), Pong(seat, t), Chow(seat, t)]
    return cmds


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 2**32))
def test_legal_actions_are_exactly_the_commands_the_rules_accept(seed):
    _, rests = play_hands(seed)
    for state in rests[::3]:
        if state is None or not isinstance(state, Playing):
            continue
        for seat in range(4):
            legal = RULESET.legal_actions(state, seat)
            assert len(set(legal)) == len(legal)
            assert set(properties.accepted(RULESET, state, _candidates(seat))) == set(legal)


def test_the_match_ends_when_the_dealership_has_gone_round_rounds_per_match_times():
    rng = random.Random(4)
    log = list(RULESET.create("m", RULESET.options({"rounds_per_match": 1})))
    state = fold(RULESET, log)
    hand = 0
    while RULESET.status(state) is not Status.MATCH_OVER:
        hand += 1
        state = apply(RULESET, state, StartHand(*hand_secrets(4, hand)), log)
        while RULESET.status(state) is Status.IN_HAND:
            state = apply(RULESET, state, bot_command(RULESET, state, 4, greedy_bot, rng), log)
    ended = [ev for ev in log if isinstance(ev, HandEnded)]
    assert ended[-1].passes == 4
    # The dealership passes exactly when someone other than the dealer wins.
    dealers = [ev.dealer for ev in log if type(ev).__name__ == "HandStarted"]
    for dealer, ev in zip(dealers, ended, strict=True):
        assert (ev.next_dealer != dealer) == (ev.winner is not None and ev.winner != dealer)
    assert isinstance(log[-1], MatchEnded) and log[-1].scores == state.table.scores and sum(state.table.scores) == 0
    with pytest.raises(RuleViolation):
        RULESET.decide(state, StartHand(b"s", b"t"))
