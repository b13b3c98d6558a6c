"""The wall: one seeded deck order, drawn live from the front and for replacements from the tail.

The deck order is fixed before the hand starts (a seeded shuffle, or a scenario's fixed deal), so
the wall only tracks how far each end has been taken. Rules that stop play before the wall is empty
keep a `reserve` of standing tiles at the tail that live draws may never take (koudian: 12 tiles
plus 2 per kong); replacement draws still come from that tail. A flower laid out (jj) is
replaced the same way as a kong: `next_replacement()`, then `drawn(from_tail=True)`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.core.frozen import replace
from engine.core.messages import value
from engine.core.shuffle import derived_rng
from engine.mahjong.tiles import Tile


@value("mahjong.Wall")
class Wall:
    """A deck order and how much of it is gone: `front` tiles dealt or drawn, `back` from the tail."""

    order: tuple[Tile, ...]
    front: int = 0
    back: int = 0
    reserve: int = 0

    @property
    def standing(self) -> int:
        """Tiles still in the wall, the reserve included."""
        return len(self.order) - self.front - self.back

    @property
    def live(self) -> int:
        """Tiles live draws may still take before the wall reaches the reserve."""
        return self.standing - self.reserve

    def next_live(self) -> Tile:
        """The tile the next live draw takes (the engine decides with it; events carry it)."""
        if self.live <= 0:
            raise IndexError("the live wall is exhausted")
        return self.order[self.front]

    def next_replacement(self) -> Tile:
        """The tile the next replacement draw takes from the tail."""
        if self.standing <= 0:
            raise IndexError("the wall is empty")
        return self.order[len(self.order) - 1 - self.back]

    def drawn(self, from_tail: bool) -> Wall:
        """The wall after one draw from the front (live) or the tail (replacement)."""
        if from_tail:
            return Wall(self.order, self.front, self.back + 1, self.reserve)
        return Wall(self.order, self.front + 1, self.back, self.reserve)

    def reserving(self, extra: int) -> Wall:
        """The wall with `extra` more standing tiles kept back at the tail."""
        return replace(self, reserve=self.reserve + extra)

    def take_indicator(self) -> tuple[Tile, Wall]:
        """Turn over the next tail tile as an indicator (wild-card rules: jj's 混, wuhan's 赖子)."""
        return self.next_replacement(), self.drawn(from_tail=True)

    def remaining_tiles(self) -> tuple[Tile, ...]:
        """The standing tiles, front first (for conservation checks and the end-of-hand reveal)."""
        return self.order[self.front : len(self.order) - self.back]


@value("mahjong.Dice")
class Dice:
    """How the wall was broken, display only: the shuffle already fixed the order of tiles.

    The dealer rolls two dice and counts seats from the dealer to find the wall side; that side's
    owner rolls again and the wall is broken `first + second` stacks from that side's right end.
    """

    first: tuple[int, int]
    second: tuple[int, int]
    side: int
    stack: int


def roll_dice(seed: bytes, dealer: int, seats: int) -> Dice:
    """The recorded dice of a hand, from the hand's own RNG stream (independent of the shuffle)."""
    rng = derived_rng(seed, "dice")
    first = (rng.randint(1, 6), rng.randint(1, 6))
    second = (rng.randint(1, 6), rng.randint(1, 6))
    side = (dealer + sum(first) - 1) % seats
    return Dice(first, second, side, sum(first) + sum(second))


def roll_for_dealer(rng: random.Random, seats: int) -> tuple[tuple[tuple[tuple[int, int], ...], ...], int]:
    """Each seat rolls two dice; the highest total deals first, the tied seats rolling again.

    Returns every round of rolls (a seat that did not roll in a round shows (0, 0)) and the seat.
    """
    rounds: list[tuple[tuple[int, int], ...]] = []
    contenders = list(range(seats))
    while True:
        rolls = [(0, 0)] * seats
        for s in contenders:
            rolls[s] = (rng.randint(1, 6), rng.randint(1, 6))
        rounds.append(tuple(rolls))
        best = max(sum(rolls[s]) for s in contenders)
        contenders = [s for s in contenders if sum(rolls[s]) == best]
        if len(contenders) == 1:
            return tuple(rounds), contenders[0]


def deal_order(dealer: int, seats: int, hand_size: int = 13) -> tuple[int, ...]:
    """Which seat takes each of the first dealt tiles, in deck order.

    Rounds of four tiles per seat from the dealer, then one tile each, the dealer taking one extra
    (the seed's 跳牌: the dealer takes two, the others one each).
    """
    seat_of: list[int] = []
    for _ in range(hand_size // 4):
        for i in range(seats):
            seat_of.extend([(dealer + i) % seats] * 4)
    rest = hand_size % 4
    for i in range(seats):
        take = rest + 1 if i == 0 else rest
        seat_of.extend([(dealer + i) % seats] * take)
    return tuple(seat_of)


def deal(order: Sequence[Tile], dealer: int, seats: int, hand_size: int = 13) -> tuple[tuple[Tile, ...], ...]:
    """Each seat's dealt tiles (the dealer's one extra included), in seat order."""
    hands: list[list[Tile]] = [[] for _ in range(seats)]
    for tile, seat in zip(order, deal_order(dealer, seats, hand_size), strict=False):
        hands[seat].append(tile)
    return tuple(tuple(h) for h in hands)


def dealt_count(seats: int, hand_size: int = 13) -> int:
    """Tiles the deal takes from the front of the wall."""
    return seats * hand_size + 1


def stacked(
    hands: Sequence[Sequence[Tile]],
    live: Sequence[Tile],
    tail: Sequence[Tile],
    dealer: int,
    full_set: Sequence[Tile],
    hand_size: int = 13,
) -> tuple[Tile, ...]:
    """The deck order that deals `hands`, then draws `live` in order, and gives `tail` as the first
    replacement draws; every other tile of `full_set` stands in between in sorted order.

    This is how a scenario's fixed deal becomes a wall. Raises ValueError when the tiles do not fit
    the set (a fifth copy) or a hand has the wrong size.
    """
    seats = len(hands)
    seat_of = deal_order(dealer, seats, hand_size)
    for seat, hand in enumerate(hands):
        want = hand_size + (1 if seat == dealer else 0)
        if len(hand) != want:
            raise ValueError(f"seat {seat} must be dealt {want} tiles, not {len(hand)}")
    left = list(full_set)
    for tiles in (*hands, live, tail):
        for t in tiles:
            try:
                left.remove(t)
            except ValueError:
                raise ValueError(f"the deal uses more than {full_set.count(t)} of {t}") from None
    queues = [list(h) for h in hands]
    dealt = [queues[seat].pop(0) for seat in seat_of]
    left.sort()
    return (*dealt, *live, *left, *reversed(tail))
