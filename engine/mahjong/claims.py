"""Claim windows: after a discard (or an added kong) every eligible seat claims or passes.

A window lists, per eligible seat, the claims it may make. Answers come in any order; the window
is decided as soon as no pending answer could beat the best claim already made, so a seat waiting
on a lower-priority claim never blocks a higher one. Priority comes from the ruleset (usually win >
pong = kong > chow); between equal claims the seat first in turn order after the source wins
(head bump, 截胡). Rulesets that let several seats win one discard ask for every winning claim.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, overload

from engine.core.contract import Deadline
from engine.core.errors import RuleViolation
from engine.core.frozen import replace
from engine.core.messages import value
from engine.mahjong.actions import Chow, CloseClaims, Kong, Pass, Pong, Win
from engine.mahjong.tiles import Tile
from engine.mahjong.wall import Wall

WIN = "win"
KONG = "kong"
PONG = "pong"
CHOW = "chow"
PASS = "pass"

# The `claim_window` option: when a claim window opens (engine.core.options.revised).
WINDOW_WHEN_CLAIMABLE = 1
"""Only when some seat can claim, resolved by the last answer: tables created before issue 11
(whether a window opened told everybody that someone could claim)."""
WINDOW_ALWAYS = 2
"""After every face-up discard and every kong that could be robbed, whoever can claim; seats that
cannot are taken to have passed, and when nobody is left to answer the table closes it with a
step of its own (`CloseClaims`): docs/hidden-information.md."""

# The `claim_timeouts` option (rules revision 3): who is told that a seat missed a claim window.
TIMEOUTS_PUBLIC = 1
"""Every seat (tables recorded before revision 3): a timeout names a seat that could claim."""
TIMEOUTS_PRIVATE = 2
"""That seat alone (and operators, through the log): who is asked is hidden, so is who missed it."""

CLAIM_WINDOW_MIN_MS = 1_000
"""The `claim_window_min_ms` of tables created now: the pause a physical table leaves after a
discard for a call, long enough for most claimants to decide within it (docs/rules/koudian.md,
"Options")."""

STANDARD_PRIORITY: Mapping[str, int] = {WIN: 3, KONG: 2, PONG: 2, CHOW: 1}
"""Win beats pong and kong, which beat chow."""


@value("mahjong.ClaimWindow")
class ClaimWindow:
    """The open question "does anyone want this tile?".

    `options` pairs each eligible seat with the claims it may make; `answers` pairs each seat that
    answered with its claim (or PASS), in the order the answers came. Equal claims go to the
    seat first in turn order after the source, or from `order_from` when set (wuhan's 截胡
    counts from the dealer).
    """

    tile: Tile
    source: int
    seats: int
    options: tuple[tuple[int, tuple[str, ...]], ...]
    answers: tuple[tuple[int, str], ...] = ()
    order_from: int | None = None

    def options_of(self, seat: int) -> tuple[str, ...]:
        """The claims `seat` may still make (empty once it answered or if it is not eligible)."""
        if any(s == seat for s, _ in self.answers):
            return ()
        for s, kinds in self.options:
            if s == seat:
                return kinds
        return ()

    def pending(self) -> tuple[int, ...]:
        """Eligible seats that have not answered yet, in turn order after the source."""
        if not self.options:  # most windows (one opens after every discard): nobody to ask
            return ()
        answered = {s for s, _ in self.answers}
        return tuple(s for s, _ in sorted(self.options, key=lambda o: self._distance(o[0])) if s not in answered)

    def all_answered(self) -> bool:
        """Whether every seat but the source has answered (a pass counts, asked or not)."""
        answered = {s for s, _ in self.answers}
        return all(s in answered for s in range(self.seats) if s != self.source)

    def answered(self, seat: int, claim: str) -> ClaimWindow:
        """The window after `seat` answers `claim` (one of its options, or PASS)."""
        return replace(self, answers=(*self.answers, (seat, claim)))

    def _distance(self, seat: int) -> int:
        return (seat - (self.source if self.order_from is None else self.order_from)) % self.seats

    def _rank(self, seat: int, claim: str, priority: Mapping[str, int]) -> tuple[int, int]:
        # Higher is better: claim priority first, then nearness in turn order after the source.
        return priority.get(claim, 0), -self._distance(seat)

    def best(self, priority: Mapping[str, int] = STANDARD_PRIORITY) -> tuple[int, str] | None:
        """The strongest claim made so far (seat, claim), or None if every answer was a pass."""
        made = [(s, c) for s, c in self.answers if c != PASS]
        if not made:
            return None
        return max(made, key=lambda sc: self._rank(sc[0], sc[1], priority))

    def decided(self, priority: Mapping[str, int] = STANDARD_PRIORITY, multiple_wins: bool = False) -> bool:
        """Whether the outcome is fixed: no pending seat could still beat the best claim made
        (nor, with `multiple_wins`, still join a win)."""
        waiting = self.pending()
        if not waiting:
            return True
        if multiple_wins and any(WIN in self.options_of(s) for s in waiting):
            return False
        best = self.best(priority)
        if best is None:
            return False
        top = self._rank(best[0], best[1], priority)
        for seat in waiting:
            for claim in self.options_of(seat):
                if self._rank(seat, claim, priority) > top:
                    return False
        return True

    def winners(self, priority: Mapping[str, int] = STANDARD_PRIORITY, multiple_wins: bool = False) -> tuple[tuple[int, str], ...]:
        """The claims that take the tile once decided: the best one, or with `multiple_wins` every
        win claim (in turn order) when the best is a win. Empty when everyone passed."""
        best = self.best(priority)
        if best is None:
            return ()
        if multiple_wins and best[1] == WIN:
            wins = [(s, c) for s, c in self.answers if c == WIN]
            return tuple(sorted(wins, key=lambda sc: self._distance(sc[0])))
        return (best,)



def window_id(reason: str, hand_number: int, wall: Wall, window: ClaimWindow) -> tuple[object, ...]:
    """What tells one claim window from every other (the contract's `Deadline.window`): the same
    for as long as it stays open, whatever is answered, and never the same for the next one (a
    draw moves the wall between them; after a claim the next discard has another source)."""
    return (reason, hand_number, wall.front, wall.back, window.source, window.tile)


@overload
def answers(window: ClaimWindow, seat: int) -> list[Win | Pong | Kong | Pass]: ...


@overload
def answers(window: ClaimWindow, seat: int, chow_lows: Callable[[], Iterable[Tile]]) -> list[Win | Pong | Kong | Chow | Pass]: ...


def answers(window: ClaimWindow, seat: int, chow_lows: Callable[[], Iterable[Tile]] = tuple) -> list[Any]:
    """The commands `seat` may answer `window` with: each claim it may make (a chow into every run
    `chow_lows()` gives), then Pass; none when it is not asked."""
    kinds = window.options_of(seat)
    if not kinds:
        return []
    t = window.tile
    acts: list[Any] = []
    for kind in kinds:
        if kind == WIN:
            acts.append(Win(seat))
        elif kind == PONG:
            acts.append(Pong(seat, t))
        elif kind == KONG:
            acts.append(Kong(seat, t))
        elif kind == CHOW:
            acts.extend(Chow(seat, low) for low in chow_lows())
    acts.append(Pass(seat))
    return acts


def window_deadline(reason: str, hand_number: int, wall: Wall, window: ClaimWindow, timeout_ms: int,
                    default: Callable[[int], Any], priority: Mapping[str, int] = STANDARD_PRIORITY,
                    min_ms: int = 0, private: bool = False) -> Deadline:
    """The deadline of an open window: every seat still to answer, with its 托管 `default(seat)`;
    once decided, the table's own close (taken at once as the ruleset's follow_up when
    `closes_now`, else by the clock at the window's minimum `min_ms`, never past `timeout_ms`).
    `private`: a seat's timeout is told to that seat alone (option `claim_timeouts`)."""
    identity = window_id(reason, hand_number, wall, window)
    least = min(min_ms, timeout_ms)
    if window.decided(priority):
        return Deadline({None: CloseClaims()}, timeout_ms, reason, identity, least, private)
    return Deadline({s: default(s) for s in window.pending()}, timeout_ms, reason, identity, least, private)


def minimum_ms(options: Any) -> int:
    """A mahjong table's `claim_window_min_ms` where it applies: windows after every discard."""
    return int(options.claim_window_min_ms) if options.claim_window == WINDOW_ALWAYS else 0


def timeouts_private(options: Any) -> bool:
    """Whether a mahjong table tells a missed claim window to that seat alone."""
    return bool(options.claim_timeouts == TIMEOUTS_PRIVATE)


def closes_now(window: ClaimWindow, priority: Mapping[str, int] = STANDARD_PRIORITY, min_ms: int = 0) -> bool:
    """Whether a window closes as soon as it is decided: with no minimum, once a claim takes the
    tile (the claim is public the moment it resolves anyway), or once every seat but the source
    answered. Else it stays open until `min_ms` after it opened, whoever could claim, so that
    nobody learns from when it closed that nobody could (docs/hidden-information.md)."""
    return not min_ms or window.best(priority) is not None or window.all_answered()


def to_record(window: ClaimWindow, seat: int, claim: str, always: bool, refusal: Callable[[str, Tile], RuleViolation],
              unasked: str = "", paced: bool = False) -> bool:
    """Whether `seat`'s answer `claim` (a claim kind or PASS) to `window` is to be recorded; else
    RuleViolation, `refusal(claim, tile)` for a claim the seat may not make. With `always` (the
    window opens after every discard, WINDOW_ALWAYS) every seat but the source answers alike
    whether or not another seat can claim: the pass of a seat that was not asked is taken, and is
    not recorded (it changes nothing: it has passed already) unless `paced` (the window has a
    minimum, which every seat answering ends early); its claim is refused for its own reason.
    `unasked` ends the refusal of a seat that was not asked otherwise."""
    allowed = window.options_of(seat)
    if not allowed and always and not any(s == seat for s, _ in window.answers):
        if seat == window.source:
            raise RuleViolation("own_tile", f"You cannot claim your own {window.tile}.")
        if claim == PASS:
            return paced
        raise refusal(claim, window.tile)
    if not allowed:
        raise RuleViolation("cannot_claim", f"You cannot claim {window.tile}{unasked}.")
    if claim != PASS and claim not in allowed:
        raise refusal(claim, window.tile)
    return True
