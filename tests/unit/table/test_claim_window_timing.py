"""Claim windows with a minimum and private timeouts (rules revision 3, issue 24;
docs/hidden-information.md), at the table: what another seat or a spectator sees of a window,
moment by moment, does not depend on who can claim it.

`Clocked` plays a table the way the service's clock does (services/game/clock.py): a window
closes when every other seat answered, else at its minimum once decided; a claimant still silent
times out at `claim_timeout_ms`; each stored command is a batch of its own, each observer's
events redacted and numbered for it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import table as tables
from engine.core.errors import RuleViolation
from engine.jj.game import DECK as JJ_DECK
from engine.mahjong.actions import Discard, Pass
from engine.mahjong.claims import CLAIM_WINDOW_MIN_MS, TIMEOUTS_PRIVATE
from engine.mahjong.tiles import FULL_SET, parse_tile
from engine.table import (
    Act,
    AutoPlaySet,
    ClaimAutoPlaySet,
    ClaimTimedOut,
    CreateTable,
    Ready,
    SeatTimedOut,
    Sit,
    Table,
    Timeout,
)
from tests.unit.mahjong.observers import twin_deals

PLAYERS = ["ann", "bob", "cai", "dan"]
OBSERVERS: tuple[int | None, ...] = (0, 1, 2, 3, None)
LATE = "at or after the minimum"  # how long a claimant thinks past it: the tell that remains

Answers = tuple[int | None, ...]  # per seat, when it passes after the window opened (None: silent)


@dataclass
class Clocked:
    """A table driven by a simulated clock; what each observer saw, in order."""

    ruleset: str
    table: Table = field(default_factory=Table)
    now: int = 0  # ms since the latest window (or turn) began
    seen: dict[int | None, list[Any]] = field(default_factory=lambda: {o: [] for o in OBSERVERS})

    def run(self, cmd: Any) -> list[Any] | str:
        """Store `cmd` and then each follow-up as a command of its own; the events, or the code
        of the refusal."""
        try:
            events = tables.decide(self.table, cmd)
        except RuleViolation as exc:
            return exc.code
        self._store(events)
        while (step := tables.follow_up(self.table)) is not None:
            self._store(tables.decide(self.table, step))
        return events

    def _store(self, events: list[Any]) -> None:
        for ev in events:
            self.table = tables.evolve(self.table, ev)
        rs, game = self.table.rules, self.table.game
        deadline = rs.deadline(game)
        public = None if deadline is None else (deadline.timeout_ms, deadline.reason, deadline.min_ms)
        at = self.now if self.now < self.table.options.claim_window_min_ms else LATE
        for observer, batches in self.seen.items():
            shown = [seen for ev in events if (seen := (tables.redact(ev, observer) if tables.is_table_event(ev)
                                                         else rs.redact(ev, observer))) is not None]
            if shown:
                batches.append((at, self.table.seen_by(observer), _uncommitted(shown), rs.view(game, observer), public))

    def window(self, answers: Answers) -> None:
        """The open window as the clock plays it: each seat's pass when `answers` says, then its
        minimum, then the timeout of a claimant still silent (auto-played ones answer by the
        minimum)."""
        options = self.table.options
        least, timeout = options.claim_window_min_ms, options.claim_timeout_ms
        identity = self.table.rules.deadline(self.table.game).window
        self.now = 0
        for delay, seat in sorted((d, s) for s, d in enumerate(answers) if d is not None):
            if self._closed(identity):
                return
            self.now = delay
            answer = self.run(Act(PLAYERS[seat], Pass(seat)))
            for observer in OBSERVERS:
                if observer == seat:  # what its own pass got: only it knows
                    self.seen[observer].append(("pass", delay, answer if isinstance(answer, str) else
                                                [type(ev).__name__ for ev in answer]))
        deadline = self.table.rules.deadline(self.table.game)
        if self._closed(identity):
            return
        owing = [s for s in deadline.defaults if s is not None]
        if owing and all(self.table.answers_claims_for(s) for s in owing):
            self.now = min(self.now + 300, least)  # AUTO_PLAY_DELAY_MS, by the minimum at the latest
            self.run(Timeout(self.table.version, b"", b""))
        elif owing:
            self.now = timeout
            self.run(Timeout(self.table.version, b"", b""))
        if not self._closed(identity):
            self.now = max(self.now, least)
            self.run(Timeout(self.table.version, b"", b""))

    def _closed(self, identity: Any) -> bool:
        deadline = self.table.rules.deadline(self.table.game)
        return deadline is None or deadline.window != identity


def _uncommitted(events: list[Any]) -> list[Any]:
    """The events without the deck commitment (a salted hash that differs with any tile)."""
    return [replace(ev, commitment="") if getattr(ev, "commitment", None) else ev for ev in events]


def play(ruleset: str, options: dict[str, Any], deal: dict[str, Any], schedule: Sequence[Answers],
         discards: int, first: str = "") -> Clocked:
    """Deal `deal`; each seat on turn discards what it drew (the dealer first `first`, or the
    first tile of its hand); the n-th window is answered as `schedule[n]` says (silent after)."""
    game = Clocked(ruleset)
    game.run(CreateTable("t", ruleset, options, "ann", fixed_deal=json.dumps(deal), rules=tables.RULES))
    for p in PLAYERS:
        game.run(Sit(p))
    for p in PLAYERS:
        game.run(Ready(p, b"seed", b"salt"))
    windows = iter(schedule)
    done = 0
    while game.table.status.value == "in_hand":
        deadline = game.table.rules.deadline(game.table.game)
        assert deadline is not None
        if deadline.window is not None:
            game.window(next(windows, (None,) * 4))
            continue
        if done == discards:
            break
        (seat,) = deadline.defaults
        seen = game.table.rules.view(game.table.game, seat)
        game.now = 0
        tile = seen.drawn if seen.drawn is not None else parse_tile(first) if first else seen.hand[0]
        if isinstance(game.run(Act(PLAYERS[seat], Discard(seat, tile))), str):
            game.run(Act(PLAYERS[seat], deadline.defaults[seat]))  # a tile it may not let go
        done += 1
    return game


def until_won(batches: list[Any]) -> int:
    """How many batches came before the first that ends the hand (a silent claimant that could
    win is won for when it times out: its answer, which may differ)."""
    return next((n for n, b in enumerate(batches) if b[0] != "pass" and any(
        type(ev).__name__ in ("HandEnded", "Won") for ev in b[2])), len(batches))


GAMES = {
    "koudian": ({}, FULL_SET, False, 24),
    "wuhan": ({}, FULL_SET, True, 20),
    "jj": ({"wild": "none"}, JJ_DECK, False, 20),
}
ANSWER = st.one_of(st.none(), st.integers(0, CLAIM_WINDOW_MIN_MS - 1))


def _observers_see_alike(ruleset: str, seed: int, seat: int, swaps: int, schedule: Sequence[Answers]) -> None:
    options, deck, indicator, discards = GAMES[ruleset]
    rng = random.Random(seed)
    shuffled = list(deck)
    rng.shuffle(shuffled)
    one, other = twin_deals(shuffled, rng, seat, swaps, indicator=indicator)
    a, b = play(ruleset, options, one, schedule, discards), play(ruleset, options, other, schedule, discards)
    for observer in [o for o in OBSERVERS if o != seat]:
        seen_a, seen_b = a.seen[observer], b.seen[observer]
        cut = min(until_won(seen_a), until_won(seen_b))
        assert seen_a[:cut] == seen_b[:cut]


# Derandomized: CI runs the same examples every time. Random runs found the known leak below.
@pytest.mark.parametrize("ruleset", list(GAMES))
@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), seat=st.sampled_from([1, 2, 3]), swaps=st.integers(1, 13),
       schedule=st.lists(st.tuples(ANSWER, ANSWER, ANSWER, ANSWER), max_size=30))
def test_every_other_observer_sees_the_same_windows_moment_by_moment_whatever_one_seat_holds(
        ruleset, seed, seat, swaps, schedule):
    _observers_see_alike(ruleset, seed, seat, swaps, schedule)


@pytest.mark.xfail(strict=True, reason="known leak (issue 24 stays open): a seat whose claims the "
                   "server answers (two missed windows) is answered AUTO_PLAY_DELAY_MS after a "
                   "discard when it alone owes an answer, but only at the window's timeout when "
                   "another seat also owes one, so its own answer's timing tells it that seat could claim")
def test_a_seat_on_claim_auto_play_is_answered_at_the_same_moment_whoever_else_could_claim():
    _observers_see_alike("jj", 39759, 1, 5, [])


# --- the rules, one by one -------------------------------------------------------------------

# Koudian: seat 2 holds a pair of the dealer's N (A) or not (B); nobody else can claim it.
HANDS = ["1m 4m 7m 2p 5p 8p 3s 4s 7s E S W N C", "2m 5m 8m 3p 6p 9p 2s 5s 7s E S W F",
         "3m 6m 9m 1p 4p 7p 3s 6s 9s N N P P", "1m 4m 7m 2p 5p 8p 3s 4s 7s E S W C"]
NO_PAIR = "3m 6m 9m 1p 4p 7p 3s 6s 9s N P 2m 8m"
N = parse_tile("N")


def _deal(pair: bool) -> dict[str, Any]:
    return {"dealer": 0, "hands": [*HANDS[:2], HANDS[2] if pair else NO_PAIR, HANDS[3]],
            "wall": "9m 9p 5s 1s P 5m 9m 9p 5s 1s", "tail": "6s 6s"}


def first_window(pair: bool, options: dict[str, Any] | None = None, answers: Answers = (None,) * 4) -> Clocked:
    return play("koudian", options or {}, _deal(pair), [answers], discards=1, first="N")


def test_a_table_created_now_keeps_claim_windows_open_a_second_and_tells_a_missed_one_to_that_seat_alone():
    table = first_window(True).table
    assert table.options.claim_window_min_ms == CLAIM_WINDOW_MIN_MS == 1_000
    assert table.options.claim_timeouts == TIMEOUTS_PRIVATE


def test_a_missed_claim_window_is_told_to_the_seat_that_missed_it_alone_and_counted_apart():
    game = first_window(True)
    mine = [ev for b in game.seen[2] if b[0] != "pass" for ev in b[2] if isinstance(ev, ClaimTimedOut | SeatTimedOut)]
    assert mine == [ClaimTimedOut(2, 1)]
    for observer in (0, 1, 3, None):
        assert not any(isinstance(ev, ClaimTimedOut | SeatTimedOut) for b in game.seen[observer] for ev in b[2])
    # Its own count moved; the others' did not.
    assert game.table.seen_by(1) == first_window(False).table.seen_by(1)


def test_two_missed_claim_windows_put_only_that_seats_claims_on_auto_play_and_tell_nobody_else():
    game = play("koudian", {}, {**_deal(True), "wall": "N 9p 5s 1s P 5m 9m 9p 5s 1s"}, [], discards=2,
                first="N")
    # The dealer's N, then seat 1's N (drawn): seat 2 could pong both and said nothing.
    assert game.table.claim_auto == {2} and game.table.auto == frozenset()
    told = [ev for b in game.seen[2] for ev in b[2] if isinstance(ev, ClaimAutoPlaySet | ClaimTimedOut | AutoPlaySet | SeatTimedOut)]
    assert told == [ClaimTimedOut(2, 1), ClaimTimedOut(2, 2), ClaimAutoPlaySet(2, True)]
    assert not any(isinstance(ev, ClaimAutoPlaySet | ClaimTimedOut | AutoPlaySet | SeatTimedOut) for o in (0, 1, 3, None)
                   for b in game.seen[o] for ev in b[2])
    # Its turns stay its player's, timed as everyone sees: only its windows are answered for it.
    assert not game.table.is_auto(2) and game.table.answers_claims_for(2)


def test_a_seat_back_from_missed_claim_windows_is_told_alone_that_its_claims_are_its_own_again():
    game = play("koudian", {}, {**_deal(True), "wall": "N 9p 5s 1s P 5m 9m 9p 5s 1s"}, [], discards=2,
                first="N")
    turn = game.table.rules.deadline(game.table.game)
    assert list(turn.defaults) == [2]  # its own turn, after the two windows it missed
    acted = tables.decide(game.table, Act("cai", turn.defaults[2]))
    assert acted[0] == ClaimAutoPlaySet(2, False)
    assert all(tables.redact(acted[0], o) is None for o in (0, 1, 3, None))


def test_the_window_stays_open_until_its_minimum_whether_or_not_anyone_can_claim():
    for pair in (True, False):
        game = first_window(pair, answers=(None, 0, 200, None))  # seat 2 passes at 200 ms, seat 3 never
        closes = [b for b in game.seen[1] if b[0] != "pass" and any(type(ev).__name__ == "TileDrawn" for ev in b[2])]
        assert closes[0][0] == LATE  # not before the minimum


def test_the_window_closes_as_soon_as_every_other_seat_answered():
    for pair in (True, False):
        game = first_window(pair, answers=(None, 0, 200, 400))
        closes = [b for b in game.seen[1] if b[0] != "pass" and any(type(ev).__name__ == "TileDrawn" for ev in b[2])]
        assert closes[0][0] == 400


def test_a_pass_or_a_claim_from_a_seat_with_no_option_is_answered_alike_whoever_can_claim():
    answers = []
    for pair in (True, False):
        game = play("koudian", {}, _deal(pair), [], discards=0)
        game.run(Act("ann", Discard(0, N)))  # the window is open, for its minimum at least
        table = game.table
        pong = table.rules.parse_command({"seat": 1, "action": "pong", "tile": "N"})
        passed = tables.decide(table, Act("bob", Pass(1)))
        answers.append((refusal(table, Act("bob", pong)), [type(ev).__name__ for ev in passed],
                        [tables.redact(ev, 1) for ev in passed]))
    assert answers[0] == answers[1] == answers[0]
    assert answers[0][:2] == ("cannot_pong", ["ClaimAnswered"])  # taken, for its early close


def refusal(table: Table, cmd: Any) -> str:
    try:
        tables.decide(table, cmd)
    except RuleViolation as exc:
        return exc.code
    return ""


def test_a_table_recorded_before_revision_3_closes_windows_at_once_and_times_out_in_public():
    game = first_window(True, options={"claim_window_min_ms": 0, "claim_timeouts": 1})
    public = [ev for b in game.seen[1] for ev in b[2] if isinstance(ev, SeatTimedOut)]
    assert public == [SeatTimedOut(2, 1)]
    created = tables.decide(Table(), CreateTable("t", "koudian", {}, "ann", rules=2))[0]
    assert "claim_window_min_ms" not in created.options and "claim_timeouts" not in created.options
    assert tables.evolve(Table(), created).options.claim_window_min_ms == 0
