"""What may be led and how a lead must be followed, with the reason a play is illegal.

Following (daqi.md, "Play"): play as many cards of the led suit as the lead has, if you have
them, else all you have of it and any other cards; to a pair, a pair of the led suit if you hold
one; to a tractor of n pairs, a tractor of n pairs of the led suit if you hold one (option
`must_follow_tractor`), else as many pairs of the led suit as you hold (up to n), then singles of it.

`legal_leads` and `legal_follows` build plays from the hand's structure (pairs, tractors), never
from all subsets of the hand. Every play is a tuple of cards sorted by id. The structural choices
(which single, pair, tractor or set of pairs) are always listed in full. Where the rules leave
cards free (singles of the led suit after the pairs, any cards once the led suit runs out),
`legal_follows` lists every distinct play when the free cards allow at most `limit` choices;
beyond that, representatives: the cheapest cards, the most points, the cards that keep pairs,
and every trump play of the lead's shape (毙) for a void player. `is_legal_follow` /
`check_follow` remain the judge of any other play.

甩牌 (option `allow_throw`): any cards of one suit may be led at once; they split into
combinations (`combos.components`). The game must first ask `failed_throw` whether another
player could beat a part, and if so play only that part. A throw is followed by suit and by
pairs: as many pairs of the led suit as the throw holds (a thrown tractor counting its pairs).
`legal_leads` lists no throws (there are too many); `check_lead` judges them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from engine.core.errors import RuleViolation
from engine.daqi.cards import CARDS, SUIT_SYMBOLS, Card, format_cards
from engine.daqi.combos import (
    Combo,
    classify,
    components,
    cover,
    longest_tractor,
    tractor_top,
    tractors_in,
)
from engine.daqi.options import Options
from engine.daqi.points import POINTS
from engine.daqi.trumps import TRUMP, Trumps

Play = tuple[Card, ...]
DEFAULT_LIMIT = 64


def suit_name(suit: int) -> str:
    """How a follow suit reads in a message: "♠" ... "♦", or "trumps"."""
    return "trumps" if suit == TRUMP else SUIT_SYMBOLS[suit]


def _pairs_phrase(count: int, name: str) -> str:
    return f"a pair of {name}" if count == 1 else f"{count} pairs of {name}"


def _check_held(hand: Sequence[int], play: Sequence[int]) -> None:
    held: dict[int, int] = {}
    for c in hand:
        held[c] = held.get(c, 0) + 1
    missing = []
    for c in play:
        left = held.get(c, 0)
        if left == 0:
            missing.append(CARDS[c])
        held[c] = left - 1
    if missing:
        owned = set(hand)
        words = [str(c) if c not in owned else f"a second {c}" for c in missing]
        raise RuleViolation("cards_not_held", f"you do not hold {', '.join(words)}")


def check_lead(hand: Sequence[int], play: Sequence[int], trumps: Trumps, options: Options) -> None:
    """None when `play` may lead a trick, else RuleViolation saying why."""
    if not play:
        raise RuleViolation("wrong_card_count", "you must play at least one card")
    _check_held(hand, play)
    if classify(play, trumps, options) is not None:
        return
    follow = trumps.follow_suits
    if len({follow[c] for c in play}) > 1:
        raise RuleViolation(
            "not_a_combination", "a lead must be all of one suit (trumps count as one suit)"
        )
    if options.allow_throw:
        return
    raise RuleViolation(
        "not_a_combination",
        f"{format_cards(play)} is not a single, a pair or a tractor: lead one of those",
    )


def lead_combo(lead: Sequence[int], trumps: Trumps, options: Options) -> Combo:
    """The combination a lead forms; for a throw (several combinations of one suit), a
    combination of kind "throw" with the throw's suit, its pairs counted and its largest part's
    top; ValueError when the cards are no lead."""
    combo = classify(lead, trumps, options)
    if combo is not None:
        return combo
    parts = components(lead, trumps, options) if options.allow_throw else None
    if parts is None:
        raise ValueError(f"{format_cards(lead)} is not a lead")
    return Combo("throw", parts[0][0].suit, sum(c.pairs for c, _ in parts), parts[0][0].top)


def check_follow(
    hand: Sequence[int], lead: Sequence[int], play: Sequence[int], trumps: Trumps, options: Options
) -> None:
    """None when `play` follows `lead` legally from `hand`, else RuleViolation saying why."""
    combo = lead_combo(lead, trumps, options)
    size = len(lead)
    _check_held(hand, play)
    if len(play) != size:
        cards = "card" if size == 1 else "cards"
        raise RuleViolation(
            "wrong_card_count", f"the lead has {size} {cards}: you must play {size} {cards}"
        )
    suit = combo.suit
    follow = trumps.follow_suits
    held = _suit_counts(hand, suit, follow)
    held_count = sum(held.values())
    played = _suit_counts(play, suit, follow)
    if sum(played.values()) < min(size, held_count):
        name = suit_name(suit)
        raise RuleViolation("must_follow_suit", f"you still hold {name}: play {name} before other suits")
    if combo.kind == "single" or held_count <= size:
        return
    held_pairs = [k for k, n in held.items() if n == 2]
    if not held_pairs:
        return
    played_pairs = sum(1 for n in played.values() if n == 2)
    name = suit_name(suit)
    if combo.kind == "pair":
        if not played_pairs:
            raise RuleViolation("must_follow_pair", f"you hold a pair of {name}: you must play a pair")
        return
    n = combo.pairs
    if (
        combo.kind == "tractor"
        and options.must_follow_tractor
        and longest_tractor(held_pairs, suit, trumps, options) >= n
    ):
        answer = classify(play, trumps, options)
        if answer is None or answer.kind != "tractor" or answer.pairs != n:
            raise RuleViolation(
                "must_follow_tractor",
                f"you hold a {n}-pair tractor of {name}: you must play a {n}-pair tractor",
            )
        return
    need = min(n, len(held_pairs))
    if played_pairs < need:
        raise RuleViolation(
            "must_follow_pairs",
            f"you hold {_pairs_phrase(len(held_pairs), name)}: you must play "
            + ("a pair" if need == 1 else f"{need} pairs"),
        )


def is_legal_follow(
    hand: Sequence[int], lead: Sequence[int], play: Sequence[int], trumps: Trumps, options: Options
) -> bool:
    try:
        check_follow(hand, lead, play, trumps, options)
    except RuleViolation:
        return False
    return True


def is_legal_lead(hand: Sequence[int], play: Sequence[int], trumps: Trumps, options: Options) -> bool:
    try:
        check_lead(hand, play, trumps, options)
    except RuleViolation:
        return False
    return True


def _suit_counts(cards: Sequence[int], suit: int, follow: Sequence[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for c in cards:
        if follow[c] == suit:
            counts[c] = counts.get(c, 0) + 1
    return counts


def _play(cards: Sequence[int]) -> Play:
    return tuple(CARDS[c] for c in sorted(cards))


def legal_leads(hand: Sequence[int], trumps: Trumps, options: Options) -> list[Play]:
    """Every distinct single, pair and tractor in `hand`."""
    kinds = sorted(set(hand))
    plays: list[Play] = [(CARDS[k],) for k in kinds]
    counts: dict[int, int] = {}
    for c in hand:
        counts[c] = counts.get(c, 0) + 1
    plays += [(CARDS[k], CARDS[k]) for k in kinds if counts[k] == 2]
    plays += tractors_in(hand, trumps, options)
    return plays


def legal_follows(
    hand: Sequence[int],
    lead: Sequence[int],
    trumps: Trumps,
    options: Options,
    limit: int = DEFAULT_LIMIT,
) -> list[Play]:
    """Legal answers to `lead` built from the hand's structure; complete when the rules leave at
    most `limit` choices for the free cards, else representatives (see the module docstring)."""
    combo = lead_combo(lead, trumps, options)
    size = len(lead)
    follow = trumps.follow_suits
    in_suit = sorted(c for c in hand if follow[c] == combo.suit)
    if len(in_suit) <= size:
        rest = [c for c in hand if follow[c] != combo.suit]
        plays = set(_fills(in_suit, rest, size - len(in_suit), limit, trumps))
        if not in_suit and combo.kind == "throw":
            plays.update(_trump_throw_answer(rest, lead, trumps, options))
        elif not in_suit and combo.kind != "single" and len(rest) > len(set(rest)):
            plays.update(_trump_answers(rest, combo, trumps, options))
        return sorted(plays)
    counts: dict[int, int] = {}
    for c in in_suit:
        counts[c] = counts.get(c, 0) + 1
    kinds = sorted(counts)
    pairs = [k for k in kinds if counts[k] == 2]
    if combo.kind == "single":
        return [(CARDS[k],) for k in kinds]
    if combo.kind == "pair":
        if pairs:
            return [(CARDS[k], CARDS[k]) for k in pairs]
        return sorted(set(_fills([], kinds, 2, limit, trumps)))
    n = combo.pairs
    if combo.kind == "throw":
        return _throw_follows(in_suit, counts, pairs, size, n, limit, trumps)
    if options.must_follow_tractor and longest_tractor(pairs, combo.suit, trumps, options) >= n:
        return tractors_in(in_suit, trumps, options, pairs=n)
    if len(pairs) >= n:
        return [_play(chosen * 2) for chosen in itertools.combinations(pairs, n)]
    singles = [k for k in kinds if counts[k] == 1]
    forced = [k for k in pairs for _ in (0, 1)]
    return sorted(set(_fills(forced, singles, size - len(forced), limit, trumps)))


def _throw_follows(
    in_suit: Sequence[int],
    counts: dict[int, int],
    pairs: Sequence[int],
    size: int,
    thrown_pairs: int,
    limit: int,
    trumps: Trumps,
) -> list[Play]:
    """Answers to a throw from more cards of the led suit than it has: as many pairs as the
    throw holds (or as held), the rest any cards of the led suit."""
    need = min(thrown_pairs, len(pairs))
    plays: set[Play] = set()
    for chosen in itertools.combinations(pairs, need):
        left = dict(counts)
        for k in chosen:
            del left[k]
        pool = [k for k, n in left.items() for _ in range(n)]
        plays.update(_fills([k for k in chosen for _ in (0, 1)], pool, size - 2 * need, limit, trumps))
        if len(plays) > limit:
            break
    return sorted(plays)


def _trump_throw_answer(
    pool: Sequence[int], lead: Sequence[int], trumps: Trumps, options: Options
) -> list[Play]:
    """A void player's trump play covering the throw's shape with the highest trumps held."""
    parts = components(lead, trumps, options) or ()
    covered = cover([c for c, _ in parts], [c for c in pool if trumps.is_trump(c)], trumps, options)
    return [] if covered is None else [covered[1]]


def failed_throw(
    throw: Sequence[int], other_hands: Sequence[Sequence[int]], trumps: Trumps, options: Options
) -> Play | None:
    """For a throw (甩牌), the part the leader must play instead because another player holds a
    higher combination of its shape in the led suit: the smallest such part (fewest cards, then
    lowest); None when the whole throw stands."""
    parts = components(throw, trumps, options)
    if parts is None:
        raise ValueError(f"{format_cards(throw)} is not of one suit")
    beaten = [
        (combo.size, combo.top, cards)
        for combo, cards in parts
        if any(_beats(hand, combo, trumps, options) for hand in other_hands)
    ]
    return min(beaten)[2] if beaten else None


def _beats(hand: Sequence[int], combo: Combo, trumps: Trumps, options: Options) -> bool:
    """Whether `hand` holds a higher combination of `combo`'s shape and suit."""
    follow = trumps.follow_suits
    strength = trumps.strengths
    held = _suit_counts(hand, combo.suit, follow)
    if combo.kind == "single":
        return any(strength[k] > combo.top for k in held)
    pairs = [k for k, n in held.items() if n == 2]
    if combo.kind == "pair":
        return any(strength[k] > combo.top for k in pairs)
    return any(
        (tractor_top(t[::2], combo.suit, trumps, options) or 0) > combo.top
        for t in tractors_in([k for k in pairs for _ in (0, 1)], trumps, options, pairs=combo.pairs)
    )


def _trump_answers(pool: Sequence[int], combo: Combo, trumps: Trumps, options: Options) -> list[Play]:
    """The void player's trump plays of the lead's shape (毙)."""
    trumps_held = [c for c in pool if trumps.follow_suits[c] == TRUMP]
    if combo.kind == "pair":
        counts: dict[int, int] = {}
        for c in trumps_held:
            counts[c] = counts.get(c, 0) + 1
        return [(CARDS[k], CARDS[k]) for k, n in counts.items() if n == 2]
    return tractors_in(trumps_held, trumps, options, pairs=combo.pairs)


def _fills(
    forced: Sequence[int], pool: Sequence[int], free: int, limit: int, trumps: Trumps
) -> Iterator[Play]:
    """`forced` plus `free` cards from `pool`: every choice when there are at most `limit`,
    else a few representative choices."""
    if free == 0:
        yield _play(forced)
        return
    counts: dict[int, int] = {}
    for c in pool:
        counts[c] = counts.get(c, 0) + 1
    if _count_choices(list(counts.values()), free) <= limit:
        for chosen in _choices(sorted(counts.items()), free):
            yield _play([*forced, *chosen])
        return
    strength = trumps.strengths
    follow = trumps.follow_suits
    orders = (
        # cheapest: keep trumps and points, give away low cards
        lambda c: (follow[c] == TRUMP, POINTS[c] > 0, strength[c]),
        # most points, for a trick the partner wins
        lambda c: (-POINTS[c], follow[c] == TRUMP, strength[c]),
        # keep pairs whole
        lambda c: (counts[c] == 2, follow[c] == TRUMP, POINTS[c] > 0, strength[c]),
    )
    for order in orders:
        yield _play([*forced, *sorted(pool, key=order)[:free]])


def _count_choices(counts: list[int], free: int) -> int:
    """How many distinct multisets of `free` cards a pool with these per-kind counts offers."""
    ways = [1] + [0] * free
    for count in counts:
        ways = [sum(ways[j - t] for t in range(min(count, j) + 1)) for j in range(free + 1)]
    return ways[free]


def _choices(items: Sequence[tuple[int, int]], free: int) -> Iterator[list[int]]:
    if free == 0:
        yield []
        return
    if not items:
        return
    (kind, count), rest = items[0], items[1:]
    for take in range(min(count, free), -1, -1):
        for chosen in _choices(rest, free - take):
            yield [kind] * take + chosen
