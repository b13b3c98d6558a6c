"""Room codes: six random digits, and the share string `qipai://room/<code>` that carries one.

Random, not sequential, so knowing one room's code tells nothing about another's; uniqueness
among live rooms is the store's (a code is taken only where no live room holds it).
"""

from __future__ import annotations

import secrets

DIGITS = 6
SHARE_PREFIX = "qipai://room/"


def new_code(randbelow: object = secrets.randbelow) -> str:
    """Six random digits (leading zeros kept)."""
    assert callable(randbelow)
    return f"{randbelow(10**DIGITS):0{DIGITS}d}"


def share(code: str) -> str:
    """The string a player sends their friends."""
    return SHARE_PREFIX + code


def parse(text: str) -> str | None:
    """The code in `text` (six digits, or a share string), or None when it holds none."""
    text = text.strip()
    if text.lower().startswith(SHARE_PREFIX):
        text = text[len(SHARE_PREFIX):].rstrip("/")
    if len(text) == DIGITS and text.isascii() and text.isdigit():
        return text
    return None
