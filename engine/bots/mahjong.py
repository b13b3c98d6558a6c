"""The strong mahjong player, configured per ruleset by a `Profile`.

On its turn it wins when it may, declares ready when the ruleset wants it (with the discard that
leaves the most valuable live waits), kongs when the hand stays as close to ready, and otherwise
discards by shanten first and 受入 second (a ready hand: its live waits weighed by what they are
worth), among equals the least connected tile, and of lone tiles the one with the fewest unseen
tiles to grow with (an isolated honour before a lone number tile). Against a threat (safety.threats) it weighs each
discard's danger in: far from ready it folds to the safest tile, close to ready it still pushes
but not into a likely wait. On another seat's discard it claims only what takes the hand closer
(a ruleset where every opening pays claims what keeps it as close), and never while folding.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.bots import safety
from engine.bots.acceptance import Shanten, acceptance
from engine.bots.visible import unseen
from engine.mahjong.actions import Chow, DeclareReady, Discard, Kong, Pass, Pong, Win
from engine.mahjong.bots import keep_value
from engine.mahjong.hand import waits
from engine.mahjong.shanten import shanten as plain_shanten
from engine.mahjong.tiles import counts


def _always(t: int) -> bool:
    return True


def _one(view: Any, h: Hand, t: int) -> float:
    return 1.0


@dataclass
class Hand:
    """The seat's concealed tiles without wilds, its wilds and its melds; `worths` remembers,
    for this one decision, what each wait of each 13-tile hand tried is worth."""

    c: list[int]
    wilds: int
    melds: int
    worths: dict[tuple[int, ...], float] = field(default_factory=dict)

    def wait_worth(self, view: Any, profile: Profile, t: int) -> float:
        key = (*self.c, self.wilds, t)
        known = self.worths.get(key)
        if known is None:
            known = self.worths[key] = profile.wait_worth(view, self, t)
        return known


@dataclass(frozen=True)
class Profile:
    """What a ruleset changes in the strong player."""

    wild: Callable[[Any], int | None] = lambda view: None  # the kind that is wild (赖子, 混)
    shanten: Shanten = plain_shanten  # the ruleset's shape (wuhan: a 2-5-8 pair)
    # What waiting on a kind is worth to the 13-tile hand (0: it may not win on it).
    wait_worth: Callable[[Any, Hand, int], float] = _one
    winnable: Callable[[int], bool] = _always  # whether anyone may win on this kind off a discard
    declares_ready: bool = False  # 报听 is how the hand wins (koudian)
    eager_claims: bool = False  # claim whatever keeps the hand as close (wuhan: each 开口 doubles)
    untouchable: Callable[[Any], frozenset[int]] = field(default=lambda view: frozenset())  # never discard


def split(view: Any, profile: Profile) -> Hand:
    """The seat's hand as the player counts it: wilds set apart."""
    c = counts(view.hand)
    wild = profile.wild(view)
    wilds = 0
    if wild is not None:
        wilds, c[wild] = min(c[wild], 4), 0
    return Hand(c, wilds, len(view.melds[view.seat]))


def play(view: Any, legal: Sequence[Any], rng: random.Random, profile: Profile) -> Any:
    """The strong player's command (see the module docstring)."""
    for a in legal:
        if isinstance(a, Win):
            return a
    h = split(view, profile)
    left = unseen(view)
    against = safety.threats(view)
    discards = [a for a in legal if isinstance(a, Discard)]
    if not discards:
        return _claim(view, legal, h, against, profile)
    ready = [a for a in legal if isinstance(a, DeclareReady)]
    if ready and profile.declares_ready:
        worth, best = max(((_ready_worth(view, h, a.tile, left, profile), -a.tile), a) for a in ready)
        if worth[0] > 0:
            return best
    choice = best_discard(view, h, discards, left, against, profile, rng)
    for k in legal:
        if isinstance(k, Kong) and h.c[k.tile] and not against and _kong_keeps(h, k.tile, choice.tile, profile):
            return k
    return choice


def _ready_worth(view: Any, h: Hand, t: int, left: Sequence[int], profile: Profile) -> float:
    h.c[t] -= 1
    w = sum(left[x] * h.wait_worth(view, profile, x) for x in waits(h.c, h.wilds, h.melds) if left[x])
    h.c[t] += 1
    return w


def evaluate(view: Any, h: Hand, t: int, left: Sequence[int], profile: Profile) -> tuple[int, float]:
    """(shanten, worth) of the hand after discarding `t`: worth is its live waits weighed by
    their value when ready, else its 受入."""
    h.c[t] -= 1
    s = profile.shanten(h.c, h.wilds, h.melds)
    if s <= 0:
        worth = sum(left[x] * h.wait_worth(view, profile, x) for x in waits(h.c, h.wilds, h.melds) if left[x])
        if worth == 0 and s == 0:
            s = 1  # ready on nothing it may win with: as good as one step away
    else:
        plain = plain_shanten(h.c, h.wilds, h.melds)
        worth = float(acceptance(h.c, h.wilds, h.melds, left, plain, plain_shanten))
    h.c[t] += 1
    return s, worth


def best_discard(view: Any, h: Hand, discards: Sequence[Discard], left: Sequence[int],
                 against: Sequence[int], profile: Profile, rng: random.Random) -> Discard:
    """The discard with the lowest shanten, then the most 受入, weighed against its danger."""
    banned = profile.untouchable(view)
    kinds = sorted({a.tile for a in discards if a.tile not in banned}) or sorted({a.tile for a in discards})
    shanten_of = {}
    for t in kinds:
        h.c[t] -= 1
        shanten_of[t] = profile.shanten(h.c, h.wilds, h.melds)
        h.c[t] += 1
    floor = min(shanten_of.values())
    # Without a threat only the tiles tied at the lowest shanten need their 受入 counted.
    tried = kinds if against else [t for t in kinds if shanten_of[t] == floor]
    scored: list[tuple[float, int, int, float, int]] = []
    total = max(1, sum(left))
    for t in tried:
        s, worth = evaluate(view, h, t, left, profile)
        risk = safety.danger(view, t, left, against, profile.winnable) if against else 0.0
        # Folding: far from ready, nothing but safety counts; one step away, a likely wait costs
        # about as much as a step; ready, the hand pushes unless the tile is very likely a wait.
        weight = 100.0 if floor >= 2 else 2.0 if floor == 1 else 0.7
        score = -s - weight * risk + worth / total
        scored.append((score, -keep_value(h.c, t), -potential(t, left), rng.random(), t))
    chosen = max(scored)[-1]
    return next(a for a in discards if a.tile == chosen)


def potential(t: int, left: Sequence[int]) -> int:
    """The unseen tiles a lone `t` could still grow with: its own kind, and its suit within two
    (an honour only pairs up, so among equals it goes first)."""
    if t >= 27:
        return left[t]
    low = t - t % 9
    return sum(left[u] for u in range(max(low, t - 2), min(low + 8, t + 2) + 1))


def _kong_keeps(h: Hand, t: int, discard: int, profile: Profile) -> bool:
    """A kong is worth it when the hand is as close to ready after it as after the best discard."""
    after = list(h.c)
    concealed = after[t] == 4
    after[t] -= 4 if concealed else 1
    h.c[discard] -= 1
    best = profile.shanten(h.c, h.wilds, h.melds)
    h.c[discard] += 1
    return profile.shanten(after, h.wilds, h.melds + concealed) <= best


def _after_claim(h: Hand, removed: Sequence[int], profile: Profile) -> int:
    """The lowest shanten after taking the claim (its tiles out of the hand) and discarding."""
    c = list(h.c)
    for t in removed:
        c[t] -= 1
    best = 9
    for t, n in enumerate(c):
        if n:
            c[t] -= 1
            best = min(best, profile.shanten(c, h.wilds, h.melds + 1))
            c[t] += 1
    return best


def _claim(view: Any, legal: Sequence[Any], h: Hand, against: Sequence[int],
           profile: Profile) -> Any:
    """The claim that takes the hand closest (see the module docstring), else Pass."""
    now = profile.shanten(h.c, h.wilds, h.melds)
    folding = bool(against) and now >= 2
    passing = next((a for a in legal if isinstance(a, Pass)), legal[0])
    if folding:
        return passing
    eager = profile.eager_claims
    best: tuple[int, Any] | None = None
    for a in legal:
        if isinstance(a, Kong) and h.c[a.tile] >= 3:
            c = list(h.c)
            c[a.tile] -= 3
            if profile.shanten(c, h.wilds, h.melds + 1) <= now:
                return a
        elif isinstance(a, Pong) and h.c[a.tile] >= 2:
            s = _after_claim(h, (a.tile, a.tile), profile)
            if best is None or s < best[0]:
                best = (s, a)
        elif isinstance(a, Chow):
            run = [a.low, a.low + 1, a.low + 2]
            mine = [t for t in run if t != view.claim_tile]
            if len(mine) == 2 and all(h.c[t] for t in mine):
                s = _after_claim(h, mine, profile)
                if best is None or s < best[0]:
                    best = (s, a)
    if best is not None and (best[0] < now or (eager and best[0] <= now)):
        return best[1]
    return passing
