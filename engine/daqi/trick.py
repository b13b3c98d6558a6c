"""Who wins a trick (daqi.md, "Winning a trick").

The highest play of the led suit with the lead's shape wins; a play of trumps with the lead's
shape (毙) beats every play of the led suit and any lower trump play of that shape. Anything
else (mixed cards, other suits, the led suit in another shape) cannot win. Between equal plays
the one played first wins.

A throw (甩牌, option `allow_throw`) is beaten only by a play all of the led suit or all trumps
that covers every part of the throw with a combination of the same shape (`combos.cover`: a
tractor also serves as pairs), ranked by what covers the throw's largest part.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.daqi.combos import classify, components, cover
from engine.daqi.options import Options
from engine.daqi.trumps import TRUMP, Trumps


def winning_index(plays: Sequence[Sequence[int]], trumps: Trumps, options: Options) -> int:
    """Index of the winning play among `plays` in play order (the lead first)."""
    if not plays:
        raise ValueError("a trick needs at least its lead")
    lead = classify(plays[0], trumps, options)
    if lead is None:
        return _throw_winner(plays, trumps, options)
    best, best_key = 0, (lead.suit == TRUMP, lead.top)
    for i in range(1, len(plays)):
        combo = classify(plays[i], trumps, options)
        if combo is None or not combo.same_shape(lead):
            continue
        if combo.suit != lead.suit and combo.suit != TRUMP:
            continue
        key = (combo.suit == TRUMP, combo.top)
        if key > best_key:
            best, best_key = i, key
    return best


def _throw_winner(plays: Sequence[Sequence[int]], trumps: Trumps, options: Options) -> int:
    found = components(plays[0], trumps, options) if options.allow_throw else None
    if not found:
        raise ValueError("the lead of a trick must be a single, a pair, a tractor or a throw")
    shape = [combo for combo, _ in found]
    suit = shape[0].suit
    follow = trumps.follow_suits
    best, best_key = 0, (suit == TRUMP, shape[0].top)
    for i in range(1, len(plays)):
        play_suit = follow[plays[i][0]]
        if play_suit not in (suit, TRUMP) or any(follow[c] != play_suit for c in plays[i]):
            continue
        covered = cover(shape, plays[i], trumps, options)
        if covered is None:
            continue
        key = (play_suit == TRUMP, covered[0])
        if key > best_key:
            best, best_key = i, key
    return best


def trick_winner(
    lead_seat: int, plays: Sequence[tuple[int, Sequence[int]]], trumps: Trumps, options: Options
) -> int:
    """The seat that wins a trick; `plays` are `(seat, cards)` in play order, the lead first."""
    if not plays or plays[0][0] != lead_seat:
        raise ValueError(f"the first play of the trick must be the lead, by seat {lead_seat}")
    return plays[winning_index([cards for _, cards in plays], trumps, options)][0]
