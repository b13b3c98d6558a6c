"""Properties of whole hands played by bots: conservation, points, zero-sum, replay, redaction."""

from __future__ import annotations

import dataclasses
import functools
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.contract import StartHand, Status
from engine.core.messages import decode, encode
from engine.daqi import RULESET
from engine.daqi.cards import Card
from engine.daqi.commands import Pass
from engine.daqi.events import (
    BidMade,
    BottomBuried,
    BottomTaken,
    CardDealt,
    CardsPlayed,
    HandEnded,
    PlayStarted,
    ThrowFailed,
)
from engine.daqi.state import Dealing, NoTable, Overcalling, Playing, Waiting
from engine.driver import bot_command

GAMES = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
seeds = st.integers(min_value=0, max_value=2**32 - 1)
bots = st.sampled_from(["random", "greedy", "silent"])


def _silent(view: Any, legal: Any, rng: random.Random) -> Any:
    """The random bot that never bids: the 翻牌 decides, and the friend may be the first other
    player to play a trump-suit 7."""
    if view.phase in ("dealing", "final_bids", "overcalling"):
        return next((cmd for cmd in legal if isinstance(cmd, Pass)), None)
    return RULESET.bots["random"](view, legal, rng)
option_sets = st.sampled_from(
    [
        {},
        {"must_follow_tractor": False},
        {"trump_chain_tractors": True},
        {"thresholds": [100, 30], "base": 3},
    ]
)


@functools.lru_cache(maxsize=32)
def _game(seed: int, bot: str, options: tuple = ()) -> tuple[list[Any], list[Any], list[Any]]:
    """Two hands at one table, driven like `qipai selfplay`: every event, the state after each
    event, and the states where a decision is owed (after each command's events)."""
    rng = random.Random(seed)
    opts = RULESET.options({"deal_interval_ms": 0, **dict(options)})
    choose = _silent if bot == "silent" else RULESET.bots[bot]
    log: list[Any] = []
    states: list[Any] = []
    decisions: list[Any] = []
    state: Any = NoTable()

    def apply(cmd: Any) -> None:
        nonlocal state
        for ev in RULESET.decide(state, cmd):
            state = RULESET.evolve(state, ev)
            log.append(ev)
            states.append(state)

    for ev in RULESET.create("prop", opts):
        state = RULESET.evolve(state, ev)
        log.append(ev)
        states.append(state)
    for hand in range(2):
        apply(StartHand(seed.to_bytes(8, "big") + bytes([hand]), b"salt"))
        while RULESET.status(state) is Status.IN_HAND:
            apply(bot_command(RULESET, state, 5, choose, rng))
            decisions.append(state)
    return log, states, decisions


def _play(seed: int, bot: str, options: dict) -> tuple[list[Any], list[Any], list[Any]]:
    frozen = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items()))
    return _game(seed, bot, frozen)


def _cards_in(obj: Any) -> list[Card]:
    """Every card mentioned anywhere inside a message or view."""
    if isinstance(obj, Card):
        return [obj]
    if isinstance(obj, tuple | list):
        return [c for item in obj for c in _cards_in(item)]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [c for f in dataclasses.fields(obj) for c in _cards_in(getattr(obj, f.name))]
    return []


@pytest.mark.slow
@GAMES
@given(seed=seeds, bot=bots, options=option_sets)
def test_the_108_cards_are_conserved_after_every_event(seed, bot, options):
    _, states, _ = _play(seed, bot, options)
    for state in states:
        assert RULESET.check(state) == []


@GAMES
@given(seed=seeds, bot=bots, options=option_sets)
def test_200_points_plus_kou_di_are_accounted_and_settlement_is_zero_sum(seed, bot, options):
    log, states, _ = _play(seed, bot, options)
    ends = [e for e in log if isinstance(e, HandEnded)]
    assert len(ends) == 2
    for ended in ends:
        assert sum(ended.won) + ended.bottom_points == 200
        takers = sum(p for s, p in enumerate(ended.won) if s not in (ended.declarer, ended.friend))
        assert ended.taker_points == takers + ended.bottom_points * ended.kou_di
        assert sum(ended.deltas) == 0
    assert sum(states[-1].table.scores) == 0
    assert RULESET.hand_result(states[-1]).deltas == ends[-1].deltas


@pytest.mark.slow
@GAMES
@given(seed=seeds, bot=bots, options=option_sets)
def test_replaying_the_stored_events_gives_the_live_state(seed, bot, options):
    log, states, _ = _play(seed, bot, options)
    stored = [encode(ev) for ev in log]
    replayed = functools.reduce(RULESET.evolve, (decode(*s) for s in stored), RULESET.initial())
    assert replayed == states[-1]
    assert isinstance(replayed, Waiting)


def _allowed(ev: Any, seat: int | None, after: Any) -> Counter:
    """Cards `seat` may learn from `ev`: public ones, its own hand, the bottom it buried
    (a spectator, seat None, only the public ones)."""
    if isinstance(ev, HandEnded):
        return Counter(_cards_in(ev))
    allowed = Counter()
    if isinstance(ev, CardsPlayed | BidMade | ThrowFailed):
        allowed.update(ev.cards)
    if isinstance(ev, CardDealt) and ev.face_up:
        allowed[ev.card] += 1
    if seat is None:
        return allowed
    hands = getattr(after, "hands", None)
    if hands is not None:
        allowed.update(hands[seat])
    if isinstance(after, Overcalling | Playing) and after.declarer == seat:
        allowed.update(after.bottom)
    if isinstance(ev, BottomBuried | BottomTaken) and ev.seat == seat:
        allowed.update(ev.cards)
    return allowed


@pytest.mark.slow
@GAMES
@given(seed=seeds, bot=bots, options=option_sets)
def test_no_redacted_event_shows_a_seat_another_seats_unplayed_card_the_bottom_or_the_friend(
    seed, bot, options
):
    log, states, _ = _play(seed, bot, options)
    for ev, after in zip(log, states, strict=True):
        for seat in (None, 0, 1, 2, 3, 4):
            shown = RULESET.redact(ev, seat)
            assert not Counter(_cards_in(shown)) - _allowed(ev, seat, after), (ev, seat)
            if isinstance(ev, PlayStarted):
                assert shown.partnership is None


def _hidden(state: Any, seat: int) -> list[Card]:
    shown = {c for b in state.bids.shown for c in b.cards} | {state.deal.flip_card}
    return [c for c in state.hands[seat] if c not in shown]


def _swapped(state: Any, a: int, b: int, rng: random.Random) -> Any | None:
    """`state` with one hidden card of seat a exchanged for a different one of seat b."""
    xs, ys = _hidden(state, a), _hidden(state, b)
    pairs = [(x, y) for x in set(xs) for y in set(ys) if x != y]
    if not pairs:
        return None
    x, y = rng.choice(sorted(pairs))
    hands = list(state.hands)
    ha, hb = list(hands[a]), list(hands[b])
    ha.remove(x)
    hb.remove(y)
    hands[a], hands[b] = tuple(sorted(ha + [y])), tuple(sorted(hb + [x]))
    return dataclasses.replace(state, hands=tuple(hands))


@GAMES
@given(seed=seeds, bot=bots, options=option_sets)
def test_a_seats_view_does_not_change_when_other_seats_hidden_cards_or_the_friend_change(
    seed, bot, options
):
    _, _, decisions = _play(seed, bot, options)
    rng = random.Random(seed)
    for state in decisions[::7]:
        if isinstance(state, NoTable | Waiting) or isinstance(state, Dealing) and state.dealt < 20:
            continue
        for seat in range(5):
            a, b = rng.sample([s for s in range(5) if s != seat], 2)
            other = _swapped(state, a, b, rng)
            if other is not None:
                assert RULESET.view(other, seat) == RULESET.view(state, seat)
            if isinstance(state, Playing) and not state.revealed:
                moved = dataclasses.replace(
                    state, partnership=dataclasses.replace(state.partnership, friend=(seat + 1) % 5)
                )
                assert RULESET.view(moved, seat) == RULESET.view(state, seat)
                assert RULESET.view(state, seat).friend is None
            if isinstance(state, Overcalling | Playing) and state.declarer != seat:
                assert RULESET.view(state, seat).bottom is None


@pytest.mark.slow
@GAMES
@given(seed=seeds, bot=bots)
def test_every_offered_command_and_every_timeout_default_is_accepted(seed, bot):
    _, _, decisions = _play(seed, bot, {})
    for state in decisions[::3]:
        if RULESET.status(state) is not Status.IN_HAND:
            continue
        for seat in range(5):
            for cmd in RULESET.legal_actions(state, seat):
                RULESET.decide(state, cmd)
        for cmd in RULESET.deadline(state).defaults.values():
            RULESET.decide(state, cmd)
