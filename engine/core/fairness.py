"""The fair-deal derivation (docs/fairness.md): how a hand's deck seed follows from the server's
seed and one nonce per seat, and the commitments that fix each input before anyone sees another.

Every function is a plain sha256 over byte strings so that a player can recompute it with any
sha256 tool; the byte layouts are documented in docs/fairness.md and must never change (hands
already played are checked against them).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

NONCE_BYTES = 32  # a seat's nonce: too long to guess from its commitment


def server_commitment(seed: bytes, salt: bytes) -> str:
    """What the server publishes before the deal: sha256(seed || salt), hex."""
    return hashlib.sha256(seed + salt).hexdigest()


def nonce_commitment(nonce: bytes) -> str:
    """What a seat sends with Ready: sha256(nonce), hex."""
    return hashlib.sha256(nonce).hexdigest()


def server_nonce(seed: bytes, seat: int) -> bytes:
    """The nonce of a seat that committed none or withheld its reveal: sha256("qipai-seat-nonce\\0"
    || seed || seat as one byte). Fixed by the server's committed seed, so not chosen later."""
    return hashlib.sha256(b"qipai-seat-nonce\x00" + seed + bytes([seat])).digest()


def deck_seed(seed: bytes, nonces: Sequence[bytes]) -> bytes:
    """The seed the ruleset shuffles with: sha256("qipai-deal\\0" || seed || nonce_0 || nonce_1 ...),
    the nonces in seat order."""
    return hashlib.sha256(b"qipai-deal\x00" + seed + b"".join(nonces)).digest()


def is_commitment(text: str) -> bool:
    """Whether `text` has the form of a commitment (64 lowercase hex digits)."""
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)
