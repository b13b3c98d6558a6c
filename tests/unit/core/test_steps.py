"""engine.core.steps: a step is looked up only for the very state, event and evolve it was taken
with; anything else is evolved anew."""

from __future__ import annotations

from engine.core import steps


def _evolve(state: tuple[int, ...], ev: list[int]) -> tuple[int, ...]:
    return (*state, *ev)


def test_a_step_is_taken_once_for_the_same_objects() -> None:
    calls: list[object] = []

    def counting(state: tuple[int, ...], ev: list[int]) -> tuple[int, ...]:
        calls.append(ev)
        return _evolve(state, ev)

    state, ev = (1,), [2]
    first = steps.step(counting, state, ev)
    assert steps.step(counting, state, ev) is first
    assert calls == [ev]
    # An equal event (another object) and another evolve are not the step remembered.
    assert steps.step(counting, state, [2]) == first
    assert steps.step(_evolve, state, ev) == first
    assert len(calls) == 2


def test_the_steps_kept_are_bounded() -> None:
    kept = [([n], (n,)) for n in range(steps.LIMIT * 2)]
    for ev, state in kept:
        steps.step(_evolve, state, ev)
    assert len(steps._steps) <= steps.LIMIT
