"""Seeded shuffles with a public commitment.

The service picks the seed and salt (server-side secrets); the engine only ever derives the deck
order from them, so a replay deals the same cards. Players get `commitment(order, salt)` when the
hand starts and the order and salt when it ends, and can check the deal was fixed before play.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def seeded_shuffle(items: Sequence[T], seed: bytes) -> tuple[T, ...]:
    """A permutation of `items` fixed by `seed` (a private RNG instance, never the global one)."""
    rng = random.Random(hashlib.sha256(b"qipai-shuffle\x00" + seed).digest())
    order = list(items)
    rng.shuffle(order)
    return tuple(order)


def derived_rng(seed: bytes, purpose: str) -> random.Random:
    """A private RNG for one purpose of one hand (dice, seat draws), independent of the shuffle."""
    return random.Random(hashlib.sha256(purpose.encode() + b"\x00" + seed).digest())


def commitment(order: Sequence[str], salt: bytes) -> str:
    """sha256 over the deck order (space-separated notation tokens) followed by the salt, as hex."""
    return hashlib.sha256(" ".join(order).encode() + salt).hexdigest()
