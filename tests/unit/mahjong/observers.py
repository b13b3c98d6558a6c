"""A mahjong hand played command by command, and what each observer sees of it: the events of
each command as redacted for that observer (a command it sees nothing of is not a batch for it),
its view and the public part of the deadline after each. Two hands that differ only in one
seat's concealed tiles must look the same to every other observer (docs/hidden-information.md).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from engine.core.contract import AnyRuleset, Status
from engine.core.errors import RuleViolation
from engine.driver import fold
from engine.mahjong.actions import Discard, Pass
from engine.mahjong.tiles import Tile, format_tiles, is_flower


@dataclass(frozen=True)
class Step:
    """One command as the server stores it (a follow-up is a step of its own) and the state after."""

    command: Any
    events: list[Any]
    state: Any


def play(rs: AnyRuleset, state: Any, cmd: Any, steps: list[Step]) -> Any:
    """Apply `cmd`, then each follow-up as its own step, as the server does."""
    while cmd is not None:
        events = rs.decide(state, cmd)
        state = fold(rs, events, state)
        steps.append(Step(cmd, events, state))
        cmd = rs.follow_up(state)
    return state


def table(rs: AnyRuleset, options: dict[str, Any] | None = None) -> Any:
    """A table created now (the current claim rules unless `options` say otherwise)."""
    return fold(rs, rs.create("t", rs.new_options(options)))


def scripted_hand(rs: AnyRuleset, deal: dict[str, Any], discards: int,
                  options: dict[str, Any] | None = None) -> list[Step]:
    """Deal `deal`, then up to `discards` turns in which the seat on turn discards the tile it
    drew (the dealer's first turn: the first tile of its hand) and every seat asked about a
    claim passes; the table's own steps (dealing, closing windows) as they come. Stops at a
    turn."""
    steps: list[Step] = []
    state = play(rs, table(rs, options), rs.fixed_deal(deal, b"salt"), steps)
    done = 0
    while rs.status(state) is Status.IN_HAND:
        deadline = rs.deadline(state)
        assert deadline is not None
        owing = list(deadline.defaults)
        if owing == [None]:
            state = play(rs, state, deadline.defaults[None], steps)
        elif deadline.reason in ("claim", "rob_kong"):
            # Stopping inside a window would compare a window still open with one already closed:
            # that the window stays open while someone thinks is time, which this does not model.
            state = play(rs, state, Pass(owing[0]), steps)
        elif deadline.reason == "turn" and done < discards:
            seat = owing[0]
            seen = rs.view(state, seat)
            state = play(rs, state, Discard(seat, seen.drawn if seen.drawn is not None else seen.hand[0]), steps)
            done += 1
        else:
            break
    return steps


def discard_then_pass(rs: AnyRuleset, deal: dict[str, Any], discard: Tile, asked: int | None,
                      then: Tile, options: dict[str, Any] | None = None) -> list[Step]:
    """Deal `deal`; the dealer (seat 0) discards `discard`; seat `asked` passes (None: nobody was
    asked); seat 1 discards `then`, the tile it drew."""
    steps: list[Step] = []
    state = play(rs, table(rs, options), rs.fixed_deal(deal, b"salt"), steps)
    state = play(rs, state, Discard(0, discard), steps)
    if asked is not None:
        state = play(rs, state, Pass(asked), steps)
    play(rs, state, Discard(1, then), steps)
    return steps


def step_of(steps: list[Step], cmd: Any) -> int:
    """The index of the step that applied `cmd`."""
    return next(n for n, step in enumerate(steps) if step.command == cmd)


def refusal_or_events(rs: AnyRuleset, state: Any, cmd: Any) -> list[Any] | str:
    """The events `cmd` would give now, or the code of the rule that refuses it."""
    try:
        return rs.decide(state, cmd)
    except RuleViolation as exc:
        return exc.code


def seen_by(rs: AnyRuleset, steps: list[Step], observer: int | None) -> list[tuple[Any, ...]]:
    """Each step `observer` sees something of: its events as redacted for it, its view after,
    the public part of the deadline (timeout and reason: who owes it is not shown), its legal
    actions and what a pass from it would get."""
    out = []
    for step in steps:
        shown = [_uncommitted(seen) for ev in step.events if (seen := rs.redact(ev, observer)) is not None]
        if not shown:
            continue
        deadline = rs.deadline(step.state)
        public = None if deadline is None else (deadline.timeout_ms, deadline.reason)
        legal = [] if observer is None or rs.status(step.state) is not Status.IN_HAND else rs.legal_actions(step.state, observer)
        out.append((shown, rs.view(step.state, observer), public, legal, pass_answer(rs, step.state, observer)))
    return out


def pass_answer(rs: AnyRuleset, state: Any, seat: int | None) -> Any:
    """What a `pass` from `seat` would get now: the names of its events, or the error's code."""
    if seat is None or rs.status(state) is not Status.IN_HAND:
        return None
    try:
        return [type(ev).__name__ for ev in rs.decide(state, Pass(seat))]
    except RuleViolation as exc:
        return exc.code


def _uncommitted(ev: Any) -> Any:
    """`ev` without the deck commitment: a salted hash of the whole deck, which differs with any
    tile yet tells nothing of it (docs/fairness.md)."""
    return replace(ev, commitment="") if getattr(ev, "commitment", None) else ev


def twin_deals(deck: list[Tile], rng: random.Random, seat: int, swaps: int, *, live: int = 40,
               tail: int = 16, indicator: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two deals from the shuffled `deck` (dealer: seat 0) that differ only in `seat`'s
    concealed tiles: up to `swaps` of them are exchanged with tiles that stand in the middle of
    the wall, which a short hand never reaches, so every draw is the same in both (flowers are
    never exchanged: they are laid out face up at once)."""
    deck = list(deck)
    hands = [deck[0:14]] + [deck[14 + 13 * i: 27 + 13 * i] for i in range(3)]
    rest = deck[53:]
    shown = [rest.pop(0)] if indicator else []
    draws, back, middle = rest[:live], rest[live:live + tail], rest[live + tail:]
    other = [list(h) for h in hands]
    spots = [i for i, t in enumerate(other[seat]) if not is_flower(t)]
    spare = [i for i, t in enumerate(middle) if not is_flower(t)]
    rng.shuffle(spots)
    rng.shuffle(spare)
    for i, j in zip(spots[:swaps], spare, strict=False):
        other[seat][i], middle[j] = middle[j], other[seat][i]

    def deal(hs: list[list[Tile]]) -> dict[str, Any]:
        out: dict[str, Any] = {"dealer": 0, "hands": [format_tiles(tuple(h)) for h in hs],
                               "wall": format_tiles(tuple(draws)), "tail": format_tiles(tuple(back))}
        if indicator:
            out["indicator"] = format_tiles(tuple(shown))
        return out

    return deal(hands), deal(other)
