"""Signed bearer tokens: `base64url(claims JSON) . base64url(HMAC-SHA256(secret, claims))`.

Shared by the server (which checks them) and the operator tools (which sign their own with the
server's secret). A real deployment plugs its own identity provider in by issuing tokens with
the same claims and secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass

PLAYER, ADMIN = "player", "admin"
TOKEN_TTL_S = 24 * 3600


@dataclass(frozen=True, slots=True)
class Identity:
    player_id: str
    role: str
    name: str = ""

    @property
    def is_admin(self) -> bool:
        return self.role == ADMIN


class InvalidToken(Exception):
    """A token that is missing, malformed, forged or expired; the message says which."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def issue(secret: str, player_id: str, role: str = PLAYER, name: str = "",
          ttl_s: int = TOKEN_TTL_S, now: float | None = None) -> tuple[str, int]:
    """A signed token for `player_id` and its expiry (unix seconds)."""
    exp = int((time.time() if now is None else now) + ttl_s)
    claims = _b64(json.dumps({"sub": player_id, "role": role, "name": name, "exp": exp},
                             separators=(",", ":")).encode())
    sig = _b64(hmac.new(secret.encode(), claims.encode(), hashlib.sha256).digest())
    return f"{claims}.{sig}", exp


def verify(secret: str, token: str, now: float | None = None) -> Identity:
    """The identity a token carries; raises InvalidToken."""
    return checked(secret, token, now)[0]


def checked(secret: str, token: str, now: float | None = None) -> tuple[Identity, int]:
    """The identity a token carries and its expiry (unix seconds); raises InvalidToken."""
    claims, sep, sig = token.partition(".")
    if not sep or not claims or not sig:
        raise InvalidToken("malformed token")
    expected = _b64(hmac.new(secret.encode(), claims.encode(), hashlib.sha256).digest())
    if not hmac.compare_digest(expected, sig):
        raise InvalidToken("bad token signature")
    try:
        data = json.loads(_unb64(claims))
        player_id, role, exp = data["sub"], data["role"], int(data["exp"])
    except (ValueError, KeyError, TypeError, OverflowError):  # OverflowError: "exp": 1e400
        raise InvalidToken("malformed token claims") from None
    if not isinstance(player_id, str) or not player_id:
        raise InvalidToken("malformed token claims: 'sub' must be a non-empty string")
    if not isinstance(role, str):
        raise InvalidToken("malformed token claims: 'role' must be a string")
    if exp < (time.time() if now is None else now):
        raise InvalidToken("token expired: log in again")
    if role not in (PLAYER, ADMIN):
        raise InvalidToken("unknown role in token")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise InvalidToken("malformed token claims: 'name' must be a string")
    return Identity(player_id, role, name), exp
