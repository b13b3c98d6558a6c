"""Building 打七 tables for the game tests: scripted deals in compact notation, and commands run
the way the service runs them (decide, then evolve each event)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from engine.core.contract import StartHand, Status
from engine.daqi import RULESET
from engine.daqi.cards import DECK, Card, parse_cards
from engine.daqi.commands import Bid, Bury, DealNext, FixedDeal, Pass, PlayCards
from engine.daqi.deal import receiver
from engine.daqi.friend import Partnership
from engine.daqi.state import Bids, Deal, Dealing, FinalBids, Playing
from engine.daqi.trumps import Trumps
from engine.driver import bot_command

SALT = b"test-salt"


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def table(**options: Any) -> Any:
    """A fresh table (Waiting for its first hand)."""
    opts = RULESET.options({"deal_interval_ms": 0, **options})
    state = RULESET.initial()
    for ev in RULESET.create("t", opts):
        state = RULESET.evolve(state, ev)
    return state


def fixed_deal(
    hands: Mapping[int, str] | None = None,
    bottom: str = "",
    flip: tuple[int, int] = (0, 19),
    dealer: int = 0,
) -> FixedDeal:
    """A scripted deal: each seat receives its given cards first (in the order written), then
    filler from the rest of the deck; `bottom` likewise. `flip` = (seat, n): the n-th card
    (0-based) seat receives is the 翻牌. Filler goes out low cards first; the 7s and jokers
    nobody was given go last, so they fill the bottom and the ends of the hands."""
    given = {s: list(parse_cards(t)) for s, t in (hands or {}).items()}
    bottom_given = list(parse_cards(bottom))
    rest = Counter(DECK)
    rest.subtract(Counter(c for cs in given.values() for c in cs))
    rest.subtract(Counter(bottom_given))
    if any(n < 0 for n in rest.values()):
        raise ValueError("a card is given more than twice")
    bidding = {c for c in rest if c >= 52 or c % 13 == 5}
    filler = sorted(rest.elements(), key=lambda c: (c in bidding, c))
    bottom_cards = bottom_given + [filler.pop() for _ in range(8 - len(bottom_given))]
    seat_cards = []
    for seat in range(5):
        mine = given.get(seat, [])
        seat_cards.append(mine + [filler.pop(0) for _ in range(20 - len(mine))])
    deck = tuple(seat_cards[receiver(dealer, i)][i // 5] for i in range(100)) + tuple(bottom_cards)
    seat, nth = flip
    return FixedDeal(deck, nth * 5 + (seat - dealer) % 5, dealer, SALT)


def run(state: Any, *commands: Any) -> tuple[Any, list[Any]]:
    """Apply commands in order; the state after and every event they caused."""
    events: list[Any] = []
    for cmd in commands:
        for ev in RULESET.decide(state, cmd):
            events.append(ev)
            state = RULESET.evolve(state, ev)
    return state, events


def deal(state: Any, n: int | None = None) -> tuple[Any, list[Any]]:
    """Deal `n` cards (all that are left when None)."""
    events: list[Any] = []
    while isinstance(state, Dealing) and (n is None or n > 0):
        state, evs = run(state, DealNext())
        events += evs
        n = None if n is None else n - 1
    return state, events


def pass_all(state: Any) -> tuple[Any, list[Any]]:
    """Every seat that has not passed in the final window passes."""
    assert isinstance(state, FinalBids)
    return run(state, *(Pass(s) for s in range(5) if not state.passed[s]))


def started(deal_cmd: FixedDeal, **options: Any) -> Any:
    return run(table(**options), deal_cmd)[0]


def to_burying(deal_cmd: FixedDeal, bids: Iterable[Bid] = (), **options: Any) -> Any:
    """Deal everything, make `bids` in the final window, everyone passes: the 庄家 buries."""
    state, _ = deal(started(deal_cmd, **options))
    state, _ = run(state, *bids)
    state, _ = pass_all(state)
    return state


def bury(state: Any, text: str | None = None) -> tuple[Any, list[Any]]:
    """The 庄家 buries `text` (default: the safe burial the timeout would choose)."""
    seat = state.declarer
    if text is None:
        return run(state, RULESET.deadline(state).defaults[seat])
    return run(state, Bury(seat, cards(text)))


def pass_round(state: Any) -> tuple[Any, list[Any]]:
    """Everyone passes the extra overcall."""
    events: list[Any] = []
    while type(state).__name__ == "Overcalling":
        state, evs = run(state, Pass(state.turn))
        events += evs
    return state, events


def finish_by_defaults(state: Any) -> tuple[Any, list[Any]]:
    """Play every remaining decision by its timeout default (托管) until the hand ends."""
    events: list[Any] = []
    while RULESET.status(state) is Status.IN_HAND:
        deadline = RULESET.deadline(state)
        state, evs = run(state, next(iter(deadline.defaults.values())))
        events += evs
    return state, events


def play(state: Any, seat: int, text: str) -> tuple[Any, list[Any]]:
    return run(state, PlayCards(seat, cards(text)))


def random_hand(
    seed: int, bot: Any = "random", state: Any = None, **options: Any
) -> tuple[Any, list[Any]]:
    """One hand played by bots (a name or a bot function) the way `qipai selfplay` drives it;
    the state and the whole log."""
    rng = random.Random(seed)
    log: list[Any] = []
    if state is None:
        opts = RULESET.options({"deal_interval_ms": 0, **options})
        log = list(RULESET.create("t", opts))
        state = RULESET.initial()
        for ev in log:
            state = RULESET.evolve(state, ev)
    choose = RULESET.bots[bot] if isinstance(bot, str) else bot
    state, evs = run(state, StartHand(seed.to_bytes(8, "big"), b"salt%d" % seed))
    log += evs
    while RULESET.status(state) is Status.IN_HAND:
        state, evs = run(state, bot_command(RULESET, state, 5, choose, rng))
        log += evs
    return state, log


def endgame(
    hands: Mapping[int, str],
    *,
    declarer: int,
    leader: int,
    trump_suit: int | None,
    partnership: Partnership | None = None,
    bottom: str = "♣3 ♣4 ♣6 ♣8 ♣9 ♣J ♣Q ♣A",
    won: tuple[int, ...] = (0, 0, 0, 0, 0),
    revealed: bool = False,
    **options: Any,
) -> Playing:
    """A hand near its end: the given cards left in each hand, `leader` to lead. For rules about
    the last tricks; the earlier tricks are not recorded (only their points, `won`)."""
    waiting = table(**options)
    deal_info = Deal(1, 0, DECK, 0, "commitment", SALT)
    return Playing(
        table=waiting.table,
        deal=deal_info,
        hands=tuple(tuple(sorted(parse_cards(hands.get(s, "")))) for s in range(5)),
        bids=Bids(),
        declarer=declarer,
        trumps=Trumps(trump_suit),
        bottom=tuple(sorted(parse_cards(bottom))),
        partnership=partnership or Partnership("alone"),
        revealed=revealed,
        leader=leader,
        trick=(),
        played=(),
        tricks_done=19,
        won=won,
    )
