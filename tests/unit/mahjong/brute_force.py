"""Obviously-correct (and slow) reference checkers the fast hand analysis is tested against.

`brute_is_win` takes the lowest natural tile left and tries every group it could belong to, wilds
filling any gap; it knows nothing of tables or costs.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement


def _groups_with(i: int) -> list[tuple[int, ...]]:
    """Every set (pung or run) containing tile kind i, as its three kinds."""
    groups = [(i, i, i)]
    if i < 27:
        for low in (i - 2, i - 1, i):
            if 0 <= low and low // 9 == i // 9 and low % 9 <= 6:
                groups.append((low, low + 1, low + 2))
    return groups


def _only_sets(c: list[int], wilds: int) -> bool:
    """Whether the naturals in `c` plus `wilds` split into sets only."""
    return _only_sets_of(tuple(c), wilds)


@cache
def _only_sets_of(key: tuple[int, ...], wilds: int) -> bool:
    c = list(key)
    if not any(c):
        return wilds % 3 == 0
    i = next(j for j, n in enumerate(c) if n)
    for group in _groups_with(i):
        for use in _natural_choices(c, group, i):
            need = 3 - len(use)
            if need <= wilds:
                for t in use:
                    c[t] -= 1
                ok = _only_sets_of(tuple(c), wilds - need)
                for t in use:
                    c[t] += 1
                if ok:
                    return True
    return False


def _natural_choices(c: list[int], group: tuple[int, ...], i: int) -> list[list[int]]:
    """Which tiles of `group` to take from the hand (always one copy of i), the rest left to wilds."""
    others = list(group)
    others.remove(i)
    choices: list[list[int]] = []
    for mask in range(4):
        use = [i]
        for bit, t in enumerate(others):
            if mask >> bit & 1:
                use.append(t)
        if all(c[t] >= use.count(t) for t in use):
            choices.append(use)
    return choices


def brute_is_win(c: list[int], wilds: int = 0, melds: int = 0) -> bool:
    """Standard shape by trying every pair, then every set for the lowest tile, recursively."""
    if sum(c) + wilds != 14 - 3 * melds:
        return False
    c = list(c)
    if wilds >= 2 and _only_sets(c, wilds - 2):
        return True
    for t in range(34):
        for naturals in (1, 2):
            if c[t] >= naturals and wilds >= 2 - naturals:
                c[t] -= naturals
                ok = _only_sets(c, wilds - (2 - naturals))
                c[t] += naturals
                if ok:
                    return True
    return False


def substituted_is_win(c: list[int], wilds: int = 0, melds: int = 0) -> bool:
    """Standard shape by trying every assignment of tiles to the wilds, then a wild-free check."""
    for stand_ins in combinations_with_replacement(range(34), wilds):
        filled = list(c)
        for t in stand_ins:
            filled[t] += 1
        if brute_is_win(filled, 0, melds):
            return True
    return False


def brute_waits(c: list[int], wilds: int = 0, melds: int = 0) -> frozenset[int]:
    """Tiles that complete the hand, leaving out a fifth copy of a tile (there are four of each)."""
    found = set()
    for t in range(34):
        if c[t] == 4:
            continue
        added = list(c)
        added[t] += 1
        if brute_is_win(added, wilds, melds):
            found.add(t)
    return frozenset(found)


def _removals(c: list[int], r: int, start: int = 0):
    """Every multiset of r tiles that can be taken out of c, as lists of tile ids."""
    if r == 0:
        yield []
        return
    for t in range(start, 34):
        if c[t]:
            c[t] -= 1
            for rest in _removals(c, r - 1, t):
                yield [t, *rest]
            c[t] += 1


def brute_shanten(c: list[int], wilds: int = 0, melds: int = 0, most: int = 2) -> int | None:
    """Shanten by brute force: the fewest tiles to swap for wilds (plus the tiles missing to fill the
    hand) so it wins, minus one; None if that is more than `most`."""
    target = 14 - 3 * melds
    short = target - sum(c) - wilds  # 1 for a 13-tile hand, 0 for a 14-tile one
    for r in range(most + 2 - short):
        for removed in _removals(list(c), r):
            kept = list(c)
            for t in removed:
                kept[t] -= 1
            if brute_is_win(kept, wilds + r + short, melds):
                return r + short - 1
    return None
