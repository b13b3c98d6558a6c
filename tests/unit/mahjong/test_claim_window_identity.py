"""A claim window's identity (`Deadline.window`): the same while the window stays open, whatever
is answered in it, and never the same for another window of the hand — the table clock keeps a
window's due time by it (docs/hidden-information.md, "Claim windows"). Greedy bots play."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import rulesets
from engine.core.contract import StartHand, Status
from engine.driver import apply, bot_command, fold


def _window(state: Any) -> Any:
    return getattr(state.hand.phase, "window", None)


def _same_window(before: Any, after: Any) -> bool:
    """Whether `after` is `before` with more answers (the same window, still open)."""
    return (before.tile, before.source, before.options) == (after.tile, after.source, after.options) \
        and after.answers[:len(before.answers)] == before.answers


@pytest.mark.parametrize("name", ["koudian", "wuhan", "jj"])
@pytest.mark.parametrize("seed", range(4))
def test_a_window_keeps_its_identity_while_open_and_no_other_window_shares_it(name: str, seed: int) -> None:
    rs = rulesets.get(name)
    opts = rs.new_options({})
    rng = random.Random(seed)
    state = fold(rs, rs.create("t", opts))
    state = apply(rs, state, StartHand(seed.to_bytes(4, "big"), b"salt"), [])
    seen: set[Any] = set()
    previous: tuple[Any, Any] | None = None  # the last state's window and its identity
    windows = 0
    while rs.status(state) is Status.IN_HAND:
        deadline = rs.deadline(state)
        assert deadline is not None
        window = _window(state)
        assert (deadline.window is None) == (window is None)
        if window is not None:
            if previous is not None and _same_window(previous[0], window):
                assert deadline.window == previous[1]
            else:
                assert deadline.window not in seen
                seen.add(deadline.window)
                windows += 1
            previous = (window, deadline.window)
        else:
            previous = None
        step = rs.follow_up(state)
        cmd = step if step is not None else bot_command(rs, state, rs.seats(opts), rs.bots["greedy"], rng)
        state = apply(rs, state, cmd, [])
    assert windows > 0
