"""Signed bearer tokens and the interceptor that checks them on every RPC but login.

A token is `base64url(claims JSON) . base64url(HMAC-SHA256(secret, claims))`. A real deployment
plugs its own identity provider in by issuing tokens with the same claims and secret.
"""

from __future__ import annotations

import base64
import contextvars
import hashlib
import hmac
import json
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

PLAYER, ADMIN = "player", "admin"
TOKEN_TTL_S = 24 * 3600

# Methods anyone may call: logging in, health checks and reflection (so grpcurl works).
PUBLIC_PREFIXES = ("/qipai.v1.Auth/", "/grpc.health.v1.Health/", "/grpc.reflection.")


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
    return _verified(secret, token, now)[0]


def _verified(secret: str, token: str, now: float | None = None) -> tuple[Identity, int]:
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


MAX_NAME_LENGTH = 32
_UNSHOWABLE = {"Cc", "Cs", "Co", "Cn"}  # controls, lone surrogates, private use, unassigned
_BIDI_CONTROLS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class InvalidName(ValueError):
    """A display name a player cannot be shown under; the message says why."""


def guest_name(name: str) -> str:
    """`name` without surrounding spaces, if it is fit to show other players; raises InvalidName.

    Control characters are refused: a NUL, an escape sequence or a newline in a name would
    rewrite other players' terminals and logs; so are bidirectional overrides, which reorder
    what follows them. Other format characters stay (the joiner inside an emoji).
    """
    name = name.strip()
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise InvalidName(f"a name is 1 to {MAX_NAME_LENGTH} characters")
    bad = next((c for c in name if unicodedata.category(c) in _UNSHOWABLE or c in _BIDI_CONTROLS), None)
    if bad is not None:
        raise InvalidName(f"a name cannot contain control characters (found U+{ord(bad):04X})")
    return name


_current: contextvars.ContextVar[Identity] = contextvars.ContextVar("qipai_identity")


def current() -> Identity:
    """The caller of the RPC being handled (set by `AuthInterceptor`)."""
    return _current.get()


def _bearer(metadata: Any) -> str | None:
    for key, value in metadata or ():
        if key == "authorization":
            scheme, _, token = str(value).partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Rejects calls without a valid token (UNAUTHENTICATED) and exposes the caller via `current()`."""

    CACHE_SIZE = 100_000

    def __init__(self, secret: str) -> None:
        self.secret = secret
        # token -> (identity, expiry): a player's every call carries the same token, so its
        # signature is checked once, not per call.
        self._known: OrderedDict[str, tuple[Identity, float]] = OrderedDict()

    def identify(self, token: str) -> Identity:
        """The identity `token` carries (verified once, then remembered until it expires)."""
        known = self._known.get(token)
        if known is not None and known[1] >= time.time():
            return known[0]
        identity, exp = _verified(self.secret, token)
        self._known[token] = (identity, exp)
        if len(self._known) > self.CACHE_SIZE:
            self._known.popitem(last=False)
        return identity

    async def intercept_service(self, continuation: Callable, details: grpc.HandlerCallDetails) -> Any:
        handler = await continuation(details)
        if handler is None or details.method.startswith(PUBLIC_PREFIXES):
            return handler
        token = _bearer(details.invocation_metadata)
        try:
            if token is None:
                raise InvalidToken("missing 'authorization: Bearer <token>' metadata: log in first")
            identity = self.identify(token)
        except InvalidToken as exc:
            return _reject(handler, str(exc))
        return _with_identity(handler, identity)


def _with_identity(handler: grpc.RpcMethodHandler, identity: Identity) -> grpc.RpcMethodHandler:
    if handler.unary_unary:
        inner_uu = handler.unary_unary

        async def unary_unary(request: Any, context: Any) -> Any:
            _current.set(identity)
            return await inner_uu(request, context)

        return grpc.unary_unary_rpc_method_handler(
            unary_unary, handler.request_deserializer, handler.response_serializer)
    if handler.unary_stream:
        inner_us = handler.unary_stream

        async def unary_stream(request: Any, context: Any) -> Any:
            _current.set(identity)
            async for item in inner_us(request, context):
                yield item

        return grpc.unary_stream_rpc_method_handler(
            unary_stream, handler.request_deserializer, handler.response_serializer)
    return handler


def _reject(handler: grpc.RpcMethodHandler, message: str) -> grpc.RpcMethodHandler:
    async def deny(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    async def deny_stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)
        yield  # pragma: no cover - makes this an async generator

    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(
            deny_stream, handler.request_deserializer, handler.response_serializer)
    return grpc.unary_unary_rpc_method_handler(
        deny, handler.request_deserializer, handler.response_serializer)
