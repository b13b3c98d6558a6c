"""The jj table through the engine contract: 补花, 混, 报听's lock, 荒庄, and the invariants
(140 tiles conserved, zero-sum, replay == live, redaction) over self-play in both modes."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.contract import Status
from engine.core.errors import RuleViolation
from engine.driver import fold
from engine.jj import RULESET
from engine.jj.events import FlowerShown, HandStarted
from engine.mahjong.actions import Discard, TileDrawn
from engine.mahjong.tiles import parse_tile
from engine.selfplay import play

DEAL = {
    "dealer": 0,
    "hands": ["123m 456m 789m 11p 2p f1 C", "147m 258p 369s ESWN", "111s 222s 333s 444s 5s", "ENWCF 55p 66p 77p 88p"],
    "indicator": "P",  # 白 turned: 混 is 东
    "tail": "9p",
}


def _table(deal=DEAL, **options):
    opts = RULESET.options(options)
    events = RULESET.create("t", opts)
    events += RULESET.decide(fold(RULESET, events), RULESET.fixed_deal(deal, b"salt"))
    return fold(RULESET, events), events


def test_a_dealt_flower_is_laid_out_and_replaced_from_the_tail():
    state, events = _table()
    shown = [e for e in events if isinstance(e, FlowerShown)]
    assert [(e.seat, str(e.flower)) for e in shown] == [(0, "f1")]
    drawn = [e for e in events if isinstance(e, TileDrawn)]
    assert drawn[0].from_tail and str(drawn[0].tile) == "9p"
    assert state.hand.flowers[0] == (parse_tile("f1"),)


def test_the_wild_is_the_kind_after_the_indicator():
    state, events = _table()
    started = next(e for e in events if isinstance(e, HandStarted))
    assert str(started.indicator) == "P" and str(state.hand.wild) == "E"


def test_a_wild_cannot_be_discarded():
    state, _ = _table(wild="fixed:C")
    with pytest.raises(RuleViolation) as err:
        RULESET.decide(state, Discard(0, parse_tile("C")))
    assert err.value.code == "wild_not_discardable"


def test_a_drawn_hand_keeps_the_dealer():
    state, _ = _table(min_fan=200)
    while RULESET.status(state) is Status.IN_HAND:
        cmd = next(iter(RULESET.deadline(state).defaults.values()))
        state = fold(RULESET, RULESET.decide(state, cmd), state)
    assert RULESET.hand_result(state).outcome == "draw"
    assert state.table.dealer == 0


def test_options_name_the_bad_part():
    with pytest.raises(ValueError, match="mode"):
        RULESET.options({"mode": "bloody"})
    with pytest.raises(ValueError, match="wild"):
        RULESET.options({"wild": "fixed:f1"})


@pytest.mark.slow
@settings(max_examples=4, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["classic", "xuezhan"]))
def test_self_play_conserves_tiles_sums_to_zero_and_replays(seed, mode):
    # play() checks `check` (140 tiles, zero-sum), zero-sum deltas and replay == live after each hand.
    summary = play("jj", 8, seed, options={"mode": mode})
    assert summary.hands == 8


def test_redaction_hides_other_seats_tiles():
    _, events = _table()
    for ev in events:
        mine = RULESET.redact(ev, 1)
        if isinstance(ev, HandStarted):
            assert mine.dealt[0] == () and mine.order is None and mine.salt is None
        if isinstance(ev, TileDrawn) and ev.seat != 1 and not str(ev.tile).startswith("f"):
            assert mine.tile is None


def test_a_wild_cannot_be_used_to_chow():
    from engine.jj.claiming import chows
    from engine.mahjong.seat import SeatTiles
    from engine.mahjong.tiles import parse_tiles

    sh = SeatTiles.dealt(parse_tiles("24m 56p 99s EEE SSS W"))
    assert chows(sh, parse_tile("3m"), None) == (parse_tile("2m"),)
    assert chows(sh, parse_tile("3m"), parse_tile("4m")) == ()  # 4m is 混 this hand


def test_four_wilds_are_never_a_kong():
    from dataclasses import replace

    from engine.jj.claiming import turn_kongs
    from engine.mahjong.seat import SeatTiles
    from engine.mahjong.tiles import parse_tiles

    state, _ = _table(wild="fixed:C")
    hand = state.hand
    seats = (SeatTiles.dealt(parse_tiles("CCCC 123m 456p 789s E")), *hand.seats[1:])
    assert turn_kongs(replace(hand, seats=seats), 0) == []


def test_a_declared_hand_is_locked_to_winning_or_discarding_the_drawn_tile():
    import json
    from pathlib import Path

    from engine.mahjong.actions import Win
    from engine.scenario import run_scenario

    spec = json.loads((Path(__file__).resolve().parents[2] / "scenarios/jj/declared_ready.json").read_text())
    spec["actions"] = spec["actions"][:-1]
    state = run_scenario(spec).state
    assert RULESET.legal_actions(state, 1) == [Win(1), Discard(1, parse_tile("5s"))]


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 10_000))
def test_no_seat_ever_sees_another_seats_concealed_tiles(seed):
    import random

    from engine.core.contract import StartHand
    from engine.driver import apply, bot_command
    from engine.mahjong.melds import KONG_CONCEALED
    from engine.selfplay import hand_secrets

    rng = random.Random(seed)
    log = list(RULESET.create("t", RULESET.options({})))
    state = fold(RULESET, log)
    state = apply(RULESET, state, StartHand(*hand_secrets(seed, 1)), log)
    while RULESET.status(state) is Status.IN_HAND:
        for seat in (None, 0, 1, 2, 3):
            v = RULESET.view(state, seat)
            mine = () if seat is None else tuple(sorted(v.hand))
            if seat is not None:
                assert mine == tuple(t for t, n in enumerate(state.hand.seats[seat].concealed) for _ in range(n))
            for s, melds in enumerate(v.melds):
                if s != seat:
                    assert all(m.tile is None for m in melds if m.kind == KONG_CONCEALED)
        state = apply(RULESET, state, bot_command(RULESET, state, 4, RULESET.bots["greedy"], rng), log)
    for ev in log:
        for seat in range(4):
            seen = RULESET.redact(ev, seat)
            if isinstance(ev, TileDrawn) and ev.seat != seat and not str(ev.tile).startswith("f"):
                assert seen.tile is None
            if isinstance(ev, HandStarted):
                assert all(d == () for s, d in enumerate(seen.dealt) if s != seat)


def test_the_wild_follows_the_indicator_in_the_cycles_of_wuhan():
    from engine.jj.hun import wild_after

    pairs = {"5m": "6m", "9m": "1m", "9s": "1s", "N": "C", "C": "F", "P": "E", "E": "S"}
    assert {k: str(wild_after(parse_tile(k))) for k in pairs} == pairs
