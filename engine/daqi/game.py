"""create, decide and evolve: the rules of a 打七 hand from the deal to the settlement.

`decide(state, cmd)` checks a command and returns its events or raises RuleViolation, folding
them as it goes; `evolve(state, event)` applies one event and does nothing else (replay is a fold).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.core import errors
from engine.core.contract import HandResult, StartHand
from engine.core.errors import RuleViolation
from engine.core.frozen import replace
from engine.core.log import Log
from engine.core.shuffle import seeded_shuffle
from engine.daqi.bidding import bid_rank, bid_suit
from engine.daqi.cards import CARDS, DECK, Card, format_cards, suit_of
from engine.daqi.combos import classify
from engine.daqi.commands import Bid, Bury, Command, DealNext, FixedDeal, Pass, PlayCards
from engine.daqi.deal import check_fixed_deck, fixed_hand, receiver, shuffled_hand
from engine.daqi.events import (
    BiddingClosed,
    BidMade,
    BottomBuried,
    BottomTaken,
    CardDealt,
    CardsPlayed,
    Event,
    FriendRevealed,
    HandEnded,
    HandStarted,
    Passed,
    PlayStarted,
    TableCreated,
    ThrowFailed,
    TrickWon,
)
from engine.daqi.follow import check_follow, check_lead, failed_throw
from engine.daqi.friend import partnership, reveals_friend
from engine.daqi.options import Options
from engine.daqi.points import points
from engine.daqi.settlement import (
    OUTCOMES,
    deltas,
    grade,
    kou_di_multiplier,
    payments,
    taker_points,
)
from engine.daqi.state import (
    BOTTOM_SIZE,
    DEALT,
    SEATS,
    Bids,
    Burying,
    Deal,
    Dealing,
    FinalBids,
    Hands,
    NoTable,
    Overcalling,
    Playing,
    SeatCards,
    State,
    Table,
    Waiting,
)
from engine.daqi.trick import trick_winner
from engine.daqi.trumps import Trumps

_Log = Log[State, Event]

# ---- helpers on hands ------------------------------------------------------------------------


def holds(hand: Sequence[int], cards: Sequence[int]) -> bool:
    """Whether `hand` contains every card of `cards` (copies counted)."""
    if len(cards) == 1:
        return cards[0] in hand
    need: dict[int, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    return all(hand.count(c) >= n for c, n in need.items())


def without(hand: Sequence[Card], cards: Sequence[int]) -> tuple[Card, ...]:
    """`hand` minus `cards` (one copy per card given)."""
    rest: list[Any] = list(hand)
    for c in cards:
        rest.remove(c)
    return tuple(rest)


def _with(hands: Hands, seat: int, hand: tuple[Card, ...]) -> Hands:
    return hands[:seat] + (hand,) + hands[seat + 1 :]


def _sorted_cards(cards: Sequence[int]) -> tuple[Card, ...]:
    return tuple(CARDS[c] for c in sorted(cards))


def _seat(cmd: Bid | Pass | Bury | PlayCards) -> int:
    return errors.check_seat(cmd.seat, SEATS)


# ---- decide ----------------------------------------------------------------------------------


def deck_order(options: Options, seed: bytes) -> tuple[str, ...]:
    """The deck's order a StartHand with `seed` deals, as notation tokens."""
    return tuple(str(c) for c in seeded_shuffle(DECK, seed))


def create(table_id: str, options: Options) -> list[Event]:
    """The creation event, recording the options."""
    return [TableCreated(table_id, options)]


def decide(state: State, cmd: Command) -> list[Event]:
    """The events `cmd` causes in `state`; RuleViolation when the rules forbid it. The events are
    folded as they are written (engine.core.log), so each step reads the state the last made."""
    handler = _DECIDERS.get((type(state), type(cmd)))
    if handler is None:
        raise _out_of_phase(state, cmd)
    log: _Log = Log(state, evolve)
    handler(state, cmd, log)
    return log.events


def is_legal(state: State, cmd: Command) -> bool:
    """Whether `decide` accepts `cmd` (for UIs and bots checking a play of their own)."""
    try:
        decide(state, cmd)
    except RuleViolation:
        return False
    return True


_PHASE_WORDS = {
    NoTable: "the table does not exist yet",
    Waiting: "no hand is in progress",
    Dealing: "the cards are being dealt",
    FinalBids: "the deal is over and the last bids are being made",
    Burying: "the 庄家 is burying the bottom",
    Overcalling: "the one overcall after burying is going round",
    Playing: "the hand is being played",
}
_COMMAND_CODES = {
    StartHand: errors.HAND_IN_PROGRESS,
    FixedDeal: errors.HAND_IN_PROGRESS,
    DealNext: "not_dealing",
    Bid: "bidding_closed",
    Pass: "nothing_to_pass",
    Bury: "not_burying",
    PlayCards: "not_playing",
}


def _out_of_phase(state: State, cmd: Command) -> RuleViolation:
    code = _COMMAND_CODES.get(type(cmd))
    if code is None:
        return RuleViolation(errors.UNKNOWN_COMMAND, f"{type(cmd).__name__} is not a 打七 command")
    if isinstance(state, Waiting | NoTable) and code != errors.HAND_IN_PROGRESS:
        code = errors.NO_HAND_IN_PROGRESS
    if isinstance(state, NoTable) and code == errors.HAND_IN_PROGRESS:
        code = errors.NO_TABLE
    if isinstance(state, Dealing) and isinstance(cmd, Pass):
        return RuleViolation(
            "nothing_to_pass",
            "while the cards are dealt you may bid at any time: there is nothing to pass",
        )
    return RuleViolation(code, f"not now: {_PHASE_WORDS[type(state)]}")


def _start_hand(state: Waiting, cmd: StartHand, log: _Log) -> None:
    table = state.table
    log.add(shuffled_hand(table.hands_played + 1, table.next_dealer, cmd.seed, cmd.salt))


def _deal_fixed(state: Waiting, cmd: FixedDeal, log: _Log) -> None:
    try:
        check_fixed_deck(cmd.deck, cmd.flip_index, cmd.dealer)
    except ValueError as exc:
        raise RuleViolation(errors.BAD_DEAL, str(exc)) from None
    log.add(fixed_hand(state.table.hands_played + 1, cmd))


def _deal_next(state: Dealing, cmd: DealNext, log: _Log) -> None:
    deal, index = state.deal, state.dealt
    log.add(
        CardDealt(
            index=index,
            seat=receiver(deal.dealer, index),
            card=deal.deck[index],
            face_up=index == deal.flip_index,
        )
    )


def _describe_bid(bid: SeatCards) -> str:
    return f"{format_cards(bid.cards)} (seat {bid.seat})"


def check_bid(hand: Sequence[int], bids: Bids, seat: int, cards: Sequence[int]) -> int:
    """The bid's rank when `seat` may show `cards` over the standing bid; else RuleViolation."""
    rank = bid_rank(cards)
    if rank is None:
        raise RuleViolation(
            "not_a_bid",
            "only a single 7, a pair of identical 7s or a pair of identical jokers can bid",
        )
    if not holds(hand, cards):
        raise RuleViolation("cards_not_held", f"you do not hold {format_cards(cards)}")
    if rank <= bids.best_rank and bids.best is not None:
        best = bids.best
        mine = "your own bid" if best.seat == seat else "the standing bid"
        raise RuleViolation(
            "bid_too_low",
            f"{format_cards(cards)} does not beat {mine} {_describe_bid(best)}:"
            " overcall only with a higher bid (single 7 < ♦7 pair < ♣7 pair < ♥7 pair"
            " < ♠7 pair < SJ pair < BJ pair)",
        )
    return rank


def _bid_made(bids: Bids, seat: int, cards: Sequence[int]) -> BidMade:
    return BidMade(
        seat=seat,
        cards=_sorted_cards(cards),
        overcall=bids.best is not None and bids.best.seat != seat,
    )


def _bid_while_dealing(state: Dealing, cmd: Bid, log: _Log) -> None:
    seat = _seat(cmd)
    check_bid(state.hands[seat], state.bids, seat, cmd.cards)
    log.add(_bid_made(state.bids, seat, cmd.cards))


def _bid_in_window(state: FinalBids, cmd: Bid, log: _Log) -> None:
    seat = _seat(cmd)
    if state.passed[seat]:
        raise RuleViolation(
            "already_passed", "you passed: you may bid again only after another player bids"
        )
    check_bid(state.hands[seat], state.bids, seat, cmd.cards)
    log.add(_bid_made(state.bids, seat, cmd.cards))


def _pass_in_window(state: FinalBids, cmd: Pass, log: _Log) -> None:
    seat = _seat(cmd)
    if state.passed[seat]:
        raise RuleViolation("already_passed", "you have already passed")
    log.add(Passed(seat))
    after = log.state
    assert isinstance(after, FinalBids)
    if not all(after.passed):
        return
    deal, best = after.deal, after.bids.best
    if best is None:
        closed = BiddingClosed(deal.flip_seat, suit_of(deal.flip_card), by_flip=True)
    else:
        closed = BiddingClosed(best.seat, bid_suit(best.cards))
    log.add(closed)
    log.add(BottomTaken(closed.declarer, deal.bottom))


def _bury(state: Burying, cmd: Bury, log: _Log) -> None:
    seat = _seat(cmd)
    if seat != state.declarer:
        raise RuleViolation("not_declarer", "only the 庄家 buries the bottom")
    if len(cmd.cards) != BOTTOM_SIZE:
        raise RuleViolation(
            "wrong_bury_count", f"bury exactly 8 cards (you chose {len(cmd.cards)})"
        )
    if not holds(state.hands[seat], cmd.cards):
        raise RuleViolation("cards_not_held", f"you do not hold {format_cards(cmd.cards)}")
    log.add(BottomBuried(seat, _sorted_cards(cmd.cards)))
    _play_once_everyone_asked(log)


def _play_once_everyone_asked(log: _Log) -> None:
    """Play starts once the extra overcall has gone round (at once when there is none to ask)."""
    after = log.state
    assert isinstance(after, Overcalling)
    if after.asked < SEATS:
        return
    suit = after.trumps.trump_suit
    log.add(
        PlayStarted(after.declarer, suit, partnership(after.declarer, suit, after.hands, after.bottom))
    )


def _overcall_turn(state: Overcalling, cmd: Bid | Pass) -> int:
    seat = _seat(cmd)
    if seat != state.turn:
        raise RuleViolation(
            errors.NOT_YOUR_TURN,
            f"the overcall goes round in play order: it is seat {state.turn}'s turn",
        )
    return seat


def _overcall(state: Overcalling, cmd: Bid, log: _Log) -> None:
    seat = _overcall_turn(state, cmd)
    check_bid(state.hands[seat], state.bids, seat, cmd.cards)
    made = _bid_made(state.bids, seat, cmd.cards)
    log.add(made)
    log.add(BiddingClosed(seat, bid_suit(made.cards)))
    log.add(BottomTaken(seat, state.bottom))


def _overcall_pass(state: Overcalling, cmd: Pass, log: _Log) -> None:
    seat = _overcall_turn(state, cmd)
    log.add(Passed(seat))
    _play_once_everyone_asked(log)


def _play(state: Playing, cmd: PlayCards, log: _Log) -> None:
    seat = _seat(cmd)
    if seat != state.turn:
        raise RuleViolation(errors.NOT_YOUR_TURN, f"it is seat {state.turn}'s turn to play")
    hand = state.hands[seat]
    cards = _sorted_cards(cmd.cards)
    options = state.table.options
    if state.trick:
        check_follow(hand, state.trick[0].cards, cards, state.trumps, options)
    else:
        check_lead(hand, cards, state.trumps, options)
        if options.allow_throw and classify(cards, state.trumps, options) is None:
            others = [h for s, h in enumerate(state.hands) if s != seat]
            forced = failed_throw(cards, others, state.trumps, options)
            if forced is not None:
                log.add(ThrowFailed(seat, cards, forced))
                cards = _sorted_cards(forced)
    log.add(CardsPlayed(seat, cards))
    if not state.revealed and reveals_friend(
        state.partnership, state.declarer, state.trumps.trump_suit, seat, cards
    ):
        log.add(FriendRevealed(seat))
    played = log.state
    assert isinstance(played, Playing)
    if len(played.trick) < SEATS:
        return
    plays = [(s.seat, s.cards) for s in played.trick]
    winner = trick_winner(played.leader, plays, played.trumps, options)
    log.add(TrickWon(played.tricks_done + 1, winner, sum(points(c) for _, c in plays)))
    if any(played.hands):
        return
    lead = played.trick[0].cards
    after = log.state
    assert isinstance(after, Playing)
    log.add(_hand_ended(after, winner, led_pairs=len(set(lead)) < len(lead)))


def _hand_ended(state: Playing, last_winner: int, led_pairs: bool) -> HandEnded:
    """The settlement once the last trick is won (its points already in `state.won`)."""
    declarer, friend = state.declarer, state.partnership.friend
    options = state.table.options
    takers_won_last = last_winner != declarer and last_winner != friend
    multiplier = kou_di_multiplier(takers_won_last, 2 if led_pairs else 1)
    bottom_points = points(state.bottom)
    p = taker_points(state.won, declarer, friend) + bottom_points * multiplier
    g = grade(p, options)
    return HandEnded(
        declarer=declarer,
        friend=friend,
        won=state.won,
        bottom=state.bottom,
        bottom_points=bottom_points,
        kou_di=multiplier,
        taker_points=p,
        grade=g,
        deltas=deltas(g, declarer, friend, SEATS, options.base),
        deck=state.deal.deck,
        salt=state.deal.salt,
    )


_DECIDERS: dict[tuple[type, type], Callable[[Any, Any, _Log], None]] = {
    (Waiting, StartHand): _start_hand,
    (Waiting, FixedDeal): _deal_fixed,
    (Dealing, DealNext): _deal_next,
    (Dealing, Bid): _bid_while_dealing,
    (FinalBids, Bid): _bid_in_window,
    (FinalBids, Pass): _pass_in_window,
    (Burying, Bury): _bury,
    (Overcalling, Bid): _overcall,
    (Overcalling, Pass): _overcall_pass,
    (Playing, PlayCards): _play,
}


# ---- evolve ----------------------------------------------------------------------------------


def evolve(state: State, ev: Event) -> State:
    """The state after `ev`. A log whose events do not fit the phase is corrupt: TypeError."""
    handler = _EVOLVERS.get((type(state), type(ev)))
    if handler is None:
        raise TypeError(f"{type(ev).__name__} cannot apply to a {type(state).__name__} table")
    return handler(state, ev)


def _created(state: NoTable, ev: TableCreated) -> Waiting:
    return Waiting(Table(ev.table_id, ev.options))


def _hand_started(state: Waiting, ev: HandStarted) -> Dealing:
    assert ev.deck is not None and ev.flip_index is not None and ev.salt is not None
    deal = Deal(ev.number, ev.dealer, ev.deck, ev.flip_index, ev.commitment, ev.salt)
    return Dealing(state.table, deal, 0, ((),) * SEATS, Bids())


def _card_dealt(state: Dealing, ev: CardDealt) -> Dealing | FinalBids:
    # Hands grow in the order dealt and are sorted once the deal is complete.
    hands = state.hands
    seat = ev.seat
    hands = (*hands[:seat], (*hands[seat], state.deal.deck[ev.index]), *hands[seat + 1 :])
    if ev.index + 1 < DEALT:
        return Dealing(state.table, state.deal, ev.index + 1, hands, state.bids)
    hands = tuple(tuple(sorted(h)) for h in hands)
    return FinalBids(state.table, state.deal, hands, state.bids, (False,) * SEATS)


def _bids_after(bids: Bids, ev: BidMade) -> Bids:
    shown = SeatCards(ev.seat, ev.cards)
    return Bids(
        shown=(*bids.shown, shown),
        best=shown,
        best_rank=bid_rank(ev.cards) or 0,
        overcalled=bids.overcalled or ev.overcall,
    )


def _bid_during_deal(state: Dealing, ev: BidMade) -> Dealing:
    return replace(state, bids=_bids_after(state.bids, ev))


def _bid_in_final_window(state: FinalBids, ev: BidMade) -> FinalBids:
    # A bid reopens the window: it closes once everyone (the bidder too) has passed since.
    return replace(state, bids=_bids_after(state.bids, ev), passed=(False,) * SEATS)


def _passed_in_window(state: FinalBids, ev: Passed) -> FinalBids:
    passed = state.passed[: ev.seat] + (True,) + state.passed[ev.seat + 1 :]
    return replace(state, passed=passed)


def _closed_after_window(state: FinalBids, ev: BiddingClosed) -> Burying:
    return Burying(
        state.table, state.deal, state.hands, state.bids, ev.declarer, Trumps(ev.trump_suit), False,
        state.deal.bottom,
    )


def _bottom_taken(state: Burying, ev: BottomTaken) -> Burying:
    hand = state.hands[ev.seat]
    hands = _with(state.hands, ev.seat, tuple(sorted((*hand, *state.bottom))))
    return replace(state, hands=hands, bottom=())


def _bottom_buried(state: Burying, ev: BottomBuried) -> Overcalling:
    assert ev.cards is not None
    hands = _with(state.hands, ev.seat, without(state.hands[ev.seat], ev.cards))
    # The extra overcall only when nobody overcalled during bidding and only once; otherwise the
    # round is closed from the start (asked = SEATS) and PlayStarted follows at once.
    closed = state.again or state.bids.overcalled
    return Overcalling(
        state.table, state.deal, hands, state.bids, state.declarer, state.trumps, ev.cards,
        state.declarer, SEATS if closed else 0,
    )


def _overcall_made(state: Overcalling, ev: BidMade) -> Overcalling:
    return replace(state, bids=_bids_after(state.bids, ev))


def _overcall_passed(state: Overcalling, ev: Passed) -> Overcalling:
    return replace(state, turn=(state.turn + 1) % SEATS, asked=state.asked + 1)


def _closed_after_overcall(state: Overcalling, ev: BiddingClosed) -> Burying:
    # The buried cards go to the new 庄家 with BottomTaken, which follows.
    return Burying(
        state.table, state.deal, state.hands, state.bids, ev.declarer, Trumps(ev.trump_suit), True,
        state.bottom,
    )


def _play_started_ev(state: Overcalling, ev: PlayStarted) -> Playing:
    assert ev.partnership is not None
    return Playing(
        table=state.table,
        deal=state.deal,
        hands=state.hands,
        bids=state.bids,
        declarer=state.declarer,
        trumps=state.trumps,
        bottom=state.bottom,
        partnership=ev.partnership,
        revealed=False,
        leader=state.declarer,
        trick=(),
        played=(),
        tricks_done=0,
        won=(0,) * SEATS,
    )


def _cards_played(state: Playing, ev: CardsPlayed) -> Playing:
    # Built field by field: dataclasses.replace is slow for a state changed on every play.
    s = state
    seat = ev.seat
    hand = list(s.hands[seat])
    for c in ev.cards:
        hand.remove(c)
    hands = (*s.hands[:seat], tuple(hand), *s.hands[seat + 1 :])
    return Playing(
        s.table, s.deal, hands, s.bids, s.declarer, s.trumps, s.bottom, s.partnership,
        s.revealed, s.leader, (*s.trick, SeatCards(seat, ev.cards)), s.played, s.tricks_done,
        s.won,
    )


def _throw_failed(state: Playing, ev: ThrowFailed) -> Playing:
    return state  # the attempt is shown to everyone; the hand keeps the cards not played


def _friend_revealed(state: Playing, ev: FriendRevealed) -> Playing:
    return replace(state, partnership=replace(state.partnership, friend=ev.seat), revealed=True)


def _trick_won(state: Playing, ev: TrickWon) -> Playing:
    s = state
    won = list(s.won)
    won[ev.seat] += ev.points
    return Playing(
        s.table, s.deal, s.hands, s.bids, s.declarer, s.trumps, s.bottom, s.partnership,
        s.revealed, ev.seat, (), s.played + s.trick, ev.trick, tuple(won),
    )


def _ended(state: Playing, ev: HandEnded) -> Waiting:
    table = state.table
    result = HandResult(OUTCOMES[ev.grade], ev.taker_points, ev.deltas,
                        payments=payments(ev.grade, ev.declarer, ev.friend, SEATS, table.options.base))
    return Waiting(
        replace(
            table,
            hands_played=table.hands_played + 1,
            next_dealer=ev.declarer,
            scores=tuple(a + b for a, b in zip(table.scores, ev.deltas, strict=True)),
            last=ev,
            last_result=result,
        )
    )


_EVOLVERS: dict[tuple[type, type], Callable[[Any, Any], State]] = {
    (NoTable, TableCreated): _created,
    (Waiting, HandStarted): _hand_started,
    (Dealing, CardDealt): _card_dealt,
    (Dealing, BidMade): _bid_during_deal,
    (FinalBids, BidMade): _bid_in_final_window,
    (FinalBids, Passed): _passed_in_window,
    (FinalBids, BiddingClosed): _closed_after_window,
    (Burying, BottomTaken): _bottom_taken,
    (Burying, BottomBuried): _bottom_buried,
    (Overcalling, Passed): _overcall_passed,
    (Overcalling, BidMade): _overcall_made,
    (Overcalling, BiddingClosed): _closed_after_overcall,
    (Overcalling, PlayStarted): _play_started_ev,
    (Playing, CardsPlayed): _cards_played,
    (Playing, ThrowFailed): _throw_failed,
    (Playing, FriendRevealed): _friend_revealed,
    (Playing, TrickWon): _trick_won,
    (Playing, HandEnded): _ended,
}
