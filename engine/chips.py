"""A table's chips: its chip options, the events that record each seat's stack, and a finished
hand settled into chips between the seats.

`stake` (chips a point; 0: a free table, 练习场, where seats bring no chips and hands move
none), `buy_in` (chips a seat brings; 0 means 100 × stake) and
`score_minimisation` (积分最小化, on by default) are options of the table, not of a ruleset:
`split_options` takes them out of the options a table is created with. The table records
`StackBoughtIn` when a player sits, `HandSettled` when a hand ends (its payments, in points,
turned into chips and capped against the recorded stacks by `engine.core.payments.settle`) and
`StackCashedOut` when the stack goes back. Each event carries everything the ledger's settlement
needs (players, ruleset, amounts), so the ledger derives each transfer from one event alone.

A seat kept for a player who left during the match (docs/rules/payments.md, "Kept seats") is
still theirs: since rules revision 3 what it wins is paid to them (`payee_player`) and its stack
goes back to them (`StackCashedOut` with `kept`) when they sit down again, the match ends or the
table closes, so no chips stay on a table that is over.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.contract import HandResult
from engine.core.frozen import replace
from engine.core.messages import event, value
from engine.core.payments import settle

DEFAULT_BUY_IN_POINTS = 100
MAX_CHIPS = 2**53  # amounts travel as JSON numbers: above 2^53 they would silently round


@value("table.Stakes")
class Stakes:
    stake: int = 1
    buy_in: int = 0
    score_minimisation: bool = True

    @property
    def free(self) -> bool:
        """A free table: nobody buys in, every payment is worth nothing."""
        return self.stake == 0

    @property
    def chips_to_sit(self) -> int:
        """What a seat brings to the table."""
        return 0 if self.free else self.buy_in or DEFAULT_BUY_IN_POINTS * self.stake


KEYS = ("stake", "buy_in", "score_minimisation")


@event("table.StackBoughtIn")
class StackBoughtIn:
    """`player_id` sat down at `seat` with `chips` from their account, their `n`th buy-in at
    this table. The service moves the chips before the event is stored, so a player short of
    chips never sits."""

    seat: int
    player_id: str
    chips: int
    n: int


@value("table.SeatPayment")
class SeatPayment:
    payer: int
    payee: int
    chips: int
    reason: str
    payer_player: str
    payee_player: str


@event("table.HandSettled")
class HandSettled:
    """Hand `hand` ended; each payment moves chips between two seats' stacks (capped by
    积分最小化 when the table has it on, so no stack goes below zero)."""

    hand: int
    ruleset: str
    payments: tuple[SeatPayment, ...]


@event("table.StackCashedOut")
class StackCashedOut:
    """The stack of `seat` (`chips`) went back to `player_id`: they left, the match ended or the
    table closed. `kept`: what the seat won while kept for `player_id` after they left it, paid
    after the cash-out of their `n`th buy-in (a transfer of its own)."""

    seat: int
    player_id: str
    chips: int
    n: int
    kept: bool = False


def split_options(options: Mapping[str, Any] | None) -> tuple[Stakes, dict[str, Any]]:
    """The table's chip options and the rest (the ruleset's); a bad chip option raises
    ValueError naming it."""
    rest = dict(options or {})
    given = {k: rest.pop(k) for k in KEYS if k in rest}
    for key, least in (("stake", 0), ("buy_in", 0)):
        if key in given:
            v = given[key]
            if isinstance(v, bool) or not isinstance(v, int) or not least <= v <= MAX_CHIPS:
                raise ValueError(f"table option {key!r} must be a whole number of chips >= {least}, not {v!r}")
    if "score_minimisation" in given and not isinstance(given["score_minimisation"], bool):
        raise ValueError("table option 'score_minimisation' must be true or false,"
                         f" not {given['score_minimisation']!r}")
    if given.get("stake") == 0 and given.get("buy_in"):
        raise ValueError("table option 'buy_in' must be 0 at a free table (stake 0): seats bring no chips")
    return Stakes(**given), rest


def settle_hand(hand: int, ruleset: str, result: HandResult, stacks: tuple[int, ...],
                players: tuple[str | None, ...], stakes: Stakes) -> HandSettled:
    """The hand's payments in chips, capped against `stacks`."""
    paid = settle(result.payments, stacks, stakes.stake, stakes.score_minimisation)
    return HandSettled(hand, ruleset, tuple(
        SeatPayment(p.payer, p.payee, p.chips, p.reason, players[p.payer] or "", players[p.payee] or "")
        for p in paid if p.chips > 0))


def after(stacks: tuple[int, ...], settled: HandSettled) -> tuple[int, ...]:
    """The stacks once `settled` is paid."""
    out = list(stacks)
    for p in settled.payments:
        out[p.payer] -= p.chips
        out[p.payee] += p.chips
    return tuple(out)


@value("table.Chips")
class Chips:
    """A table's chip state: its options, each seat's stack and buy-in number (0: none), how
    many buy-ins the table has seen, and the seats whose player left mid-hand (cashed out when
    the hand ends)."""

    stakes: Stakes = Stakes()
    stacks: tuple[int, ...] = ()
    buy_in_no: tuple[int, ...] = ()
    buy_ins: int = 0
    leaving: tuple[tuple[int, str], ...] = ()

    @classmethod
    def for_table(cls, stakes: Stakes, seats: int) -> Chips:
        return cls(stakes, (0,) * seats, (0,) * seats)

    def bought_in(self, ev: StackBoughtIn) -> Chips:
        return replace(self, stacks=_put(self.stacks, ev.seat, ev.chips),
                       buy_in_no=_put(self.buy_in_no, ev.seat, ev.n), buy_ins=max(self.buy_ins, ev.n))

    def settled(self, ev: HandSettled) -> Chips:
        return replace(self, stacks=after(self.stacks, ev))

    def cashed_out(self, ev: StackCashedOut) -> Chips:
        return replace(self, stacks=_put(self.stacks, ev.seat, 0),
                       leaving=tuple(x for x in self.leaving if x[0] != ev.seat))

    def left_mid_hand(self, seat: int, player_id: str) -> Chips:
        return replace(self, leaving=(*self.leaving, (seat, player_id)))

    def buy_in(self, seat: int, player_id: str) -> StackBoughtIn:
        """The buy-in of `player_id` sitting down at `seat`."""
        return StackBoughtIn(seat, player_id, self.stakes.chips_to_sit, self.buy_ins + 1)

    def cash_out(self, seat: int, player_id: str, kept: bool = False) -> StackCashedOut:
        """The stack of `seat` going back to `player_id` (`kept`: a kept seat's winnings)."""
        return StackCashedOut(seat, player_id, self.stacks[seat], self.buy_in_no[seat], kept)


def _put(items: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return (*items[:index], value, *items[index + 1:])
