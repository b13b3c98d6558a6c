"""The interceptor that checks a signed bearer token (protocol/tokens.py) on every RPC but login."""

from __future__ import annotations

import contextvars
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import grpc

from protocol.tokens import (
    ADMIN,
    PLAYER,
    TOKEN_TTL_S,
    Identity,
    InvalidToken,
    checked,
    issue,
    verify,
)
from services.status import decoding

__all__ = ["ADMIN", "PLAYER", "TOKEN_TTL_S", "AuthInterceptor", "Identity", "InvalidName", "InvalidToken",
           "current", "guest_name", "issue", "verify"]

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


# Methods anyone may call: logging in, health checks and reflection (so grpcurl works).
PUBLIC_PREFIXES = ("/qipai.v1.Auth/", "/grpc.health.v1.Health/", "/grpc.reflection.")


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
        self._decoders: dict[int, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    def identify(self, token: str) -> Identity:
        """The identity `token` carries (verified once, then remembered until it expires)."""
        known = self._known.get(token)
        if known is not None and known[1] >= time.time():
            return known[0]
        identity, exp = checked(self.secret, token)
        self._known[token] = (identity, exp)
        if len(self._known) > self.CACHE_SIZE:
            self._known.popitem(last=False)
        return identity

    async def intercept_service(self, continuation: Callable[..., Any], details: grpc.HandlerCallDetails) -> Any:
        handler = await continuation(details)
        if handler is None:
            return handler
        handler = self._decoding(handler)
        if details.method.startswith(PUBLIC_PREFIXES):
            return handler
        token = _bearer(details.invocation_metadata)
        try:
            if token is None:
                raise InvalidToken("missing 'authorization: Bearer <token>' metadata: log in first")
            identity = self.identify(token)
        except InvalidToken as exc:
            return _reject(handler, str(exc))
        # grpc.aio runs the interceptors and then the handler in one task per call, so the
        # identity set here is the handler's, and no other call's. Setting it here rather than
        # in a wrapper around the handler saves a handler and a coroutine per call, and for a
        # stream a generator step per message.
        _current.set(identity)
        return handler

    def _decoding(self, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        """`handler`, its request deserializer answering status.Undecodable rather than raising
        (made once per method: each method has one handler)."""
        known = self._decoders.get(id(handler))
        if known is None or known[0] is not handler:
            if handler.request_deserializer is None:
                return handler
            wrapped = handler._replace(request_deserializer=decoding(handler.request_deserializer))
            known = self._decoders[id(handler)] = (handler, wrapped)
        return known[1]


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
