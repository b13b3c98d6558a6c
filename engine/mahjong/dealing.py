"""How a mahjong hand is dealt: who deals, the deck order (a seeded shuffle or a scenario's
stacked deck), the dice that break the wall, the public commitment and each seat's tiles.

Every mahjong ruleset deals the same way and records it in its own events (`DealerChosen` when
the match's first dealer is chosen, then `HandStarted`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from engine.core import errors
from engine.core.contract import StartHand
from engine.core.errors import RuleViolation
from engine.core.shuffle import commitment, derived_rng, seeded_shuffle
from engine.mahjong.tiles import FULL_SET, Tile
from engine.mahjong.wall import Dice, deal, roll_dice, roll_for_dealer

Rolls = tuple[tuple[tuple[int, int], ...], ...]
E = TypeVar("E")


@dataclass(frozen=True, slots=True)
class Dealt:
    """A dealt hand. `rolls` is set when this deal chose the match's first dealer (each round of
    dice; none for a fixed deal), None when the table already had a dealer."""

    dealer: int
    order: tuple[Tile, ...]
    commitment: str
    hands: tuple[tuple[Tile, ...], ...]
    rolls: Rolls | None = None
    seed: bytes | None = None
    dice: Dice | None = None


def shuffled(dealer: int | None, seats: int, seed: bytes, salt: bytes) -> Dealt:
    """A hand from the seeded shuffle; with no dealer yet, the dice choose one."""
    rolls = None
    if dealer is None:
        rolls, dealer = roll_for_dealer(derived_rng(seed, "dealer"), seats)
    order = shuffled_order(seed)
    return Dealt(dealer, order, _commit(order, salt), deal(order, dealer, seats), rolls, seed, roll_dice(seed, dealer, seats))


def shuffled_order(seed: bytes) -> tuple[Tile, ...]:
    """The wall's order a hand with `seed` is dealt from."""
    return seeded_shuffle(FULL_SET, seed)


def deck_order(options: object, seed: bytes) -> tuple[str, ...]:
    """The ruleset contract's `deck_order` for every ruleset dealing the 136 tiles this way."""
    return tuple(str(t) for t in shuffled_order(seed))


def fixed(dealer: int | None, seats: int, asked: int, order: Sequence[Tile], salt: bytes) -> Dealt:
    """A scenario's stacked deck dealt by seat `asked` (who becomes the first dealer of a fresh
    table); RuleViolation when another seat deals this hand or the deck is not the full set."""
    rolls: Rolls | None = None
    if dealer is None:
        dealer, rolls = asked, ()
    elif dealer != asked:
        raise RuleViolation("wrong_dealer", f"Seat {dealer} deals this hand, not seat {asked}.")
    if sorted(order) != sorted(FULL_SET):
        raise RuleViolation(errors.BAD_DEAL, "A fixed deal must stack all 136 tiles exactly once.")
    stacked = tuple(order)
    return Dealt(dealer, stacked, _commit(stacked, salt), deal(stacked, dealer, seats), rolls)


def _commit(order: tuple[Tile, ...], salt: bytes) -> str:
    return commitment([str(t) for t in order], salt)


class StackedDeal(Protocol):
    """A ruleset's `FixedDeal`: a scenario's stacked deck, dealt by `dealer`."""

    @property
    def dealer(self) -> int: ...

    @property
    def order(self) -> tuple[Tile, ...]: ...

    @property
    def salt(self) -> bytes: ...


def started(
    cmd: StartHand | StackedDeal,
    dealer: int | None,
    number: int,
    seats: int,
    dealer_chosen: Callable[[Rolls, int], E],
    hand_started: Callable[..., E],
) -> list[E]:
    """The events that deal hand `number` as `cmd` asks (a shuffle, or a stacked deck), in the
    ruleset's own event types: `DealerChosen(rolls, dealer)` when this deal chose the match's
    first dealer, then `HandStarted`. RuleViolation as `fixed` says."""
    if isinstance(cmd, StartHand):
        dealt = shuffled(dealer, seats, cmd.seed, cmd.salt)
    else:
        dealt = fixed(dealer, seats, cmd.dealer, cmd.order, cmd.salt)
    chosen = [] if dealt.rolls is None else [dealer_chosen(dealt.rolls, dealt.dealer)]
    return [
        *chosen,
        hand_started(
            number=number,
            dealer=dealt.dealer,
            commitment=dealt.commitment,
            dealt=dealt.hands,
            dice=dealt.dice,
            order=dealt.order,
            seed=dealt.seed,
            salt=cmd.salt,
        ),
    ]
