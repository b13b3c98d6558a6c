"""What must hold at every mahjong table, whatever the rules: random hands played by bots
(tests.unit.mahjong.properties) keep every tile on the table and the scores summing to zero, and
replaying their stored events gives the live state. Each ruleset's own properties (its payments,
what its seats may see, its legal actions) are in tests/unit/<ruleset>/test_properties.py."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.messages import decode, encode
from tests.unit.mahjong.properties import JJ_BOTS, KOUDIAN_BOTS, WUHAN_BOTS, Bots

# jj's tables created now take a claimed tile off the discarder's river (a record without the
# option keeps it there as well, as it was played): its bots play under either rule.
JJ_EITHER_RIVER_RULE = replace(JJ_BOTS, options=lambda rng: {"claimed_tile_leaves_river": rng.choice([0, 1])})
RULESETS = [pytest.param(KOUDIAN_BOTS, id="koudian"), pytest.param(WUHAN_BOTS, id="wuhan"),
            pytest.param(JJ_EITHER_RIVER_RULE, id="jj")]
HANDS = settings(max_examples=15, deadline=None)


@pytest.mark.parametrize("bots", RULESETS)
@HANDS
@given(st.integers(0, 2**32))
def test_every_tile_is_always_on_the_table_and_scores_sum_to_zero(bots: Bots, seed):
    _, states = bots.play(seed)
    for state in states:
        if state is not None:
            assert bots.ruleset.check(state) == []


@pytest.mark.slow
@pytest.mark.parametrize("bots", RULESETS)
@HANDS
@given(st.integers(0, 2**32))
def test_replaying_the_events_gives_the_live_state_and_events_survive_their_stored_form(bots: Bots, seed):
    log, states = bots.play(seed, hands=2)
    rs = bots.ruleset
    state = rs.initial()
    for ev in log:
        state = rs.evolve(state, decode(*encode(ev)))
    assert state == states[-1]
