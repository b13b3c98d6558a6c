"""Domain errors to gRPC status codes, by category (services.errors): one table, one place."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from random import getrandbits as _random_bits
from typing import Any, TypeVar, cast

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import DecodeError
from google.rpc import code_pb2, status_pb2
from grpc_status import rpc_status
from structlog.contextvars import bind_contextvars

from engine.core.errors import RuleViolation
from protocol.wire import BadRequest
from qipai.v1 import common_pb2
from services.errors import (
    AlreadyExists,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    NotImplementedYet,
    Refused,
    TooManyRequests,
    Unavailable,
)
from services.observability import log

# First match wins.
CODES: tuple[tuple[type[Exception], grpc.StatusCode], ...] = (
    (Invalid, grpc.StatusCode.INVALID_ARGUMENT),
    (Forbidden, grpc.StatusCode.PERMISSION_DENIED),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (Conflict, grpc.StatusCode.ABORTED),
    (Refused, grpc.StatusCode.FAILED_PRECONDITION),
    (AlreadyExists, grpc.StatusCode.ALREADY_EXISTS),
    (TooManyRequests, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (Unavailable, grpc.StatusCode.UNAVAILABLE),
    (NotImplementedYet, grpc.StatusCode.UNIMPLEMENTED),
)

# Error type -> the protobuf message the status carries in its details (what a client needs to
# act: the balance and the need, the transfer already stored). The servicers register these, so
# the domain errors stay free of protobuf.
DETAILS: dict[type[Exception], Callable[[Any], Any]] = {}


def status_of(exc: BaseException) -> tuple[grpc.StatusCode, str] | None:
    """The status code and message for `exc`, or None when it is a bug (INTERNAL)."""
    for category, code in CODES:
        if isinstance(exc, category):
            # A KeyError's str() is its repr (quoted); its message is its first argument.
            message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
            return code, short(message)
    return None


MAX_MESSAGE = 300


def short(message: str) -> str:
    """`message`, cut to MAX_MESSAGE characters: a message echoes the request's bad part, which
    may be huge, and a status message travels in a header the client limits (8 KiB)."""
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


async def _abort(context: grpc.aio.ServicerContext[Any, Any], exc: BaseException) -> None:
    if isinstance(exc, RuleViolation):
        detail = any_pb2.Any()
        detail.Pack(common_pb2.RuleViolation(code=exc.code, message=short(exc.message)))
        status = status_pb2.Status(code=code_pb2.FAILED_PRECONDITION,
                                   message=short(f"{exc.code}: {exc.message}"), details=[detail])
        await context.abort_with_status(rpc_status.to_status(status))
    mapped = status_of(exc)
    detail_of = next((fn for kind, fn in DETAILS.items() if isinstance(exc, kind)), None)
    if mapped is not None and detail_of is not None:
        detail = any_pb2.Any()
        detail.Pack(detail_of(exc))
        await context.abort_with_status(rpc_status.to_status(
            status_pb2.Status(code=mapped[0].value[0], message=mapped[1], details=[detail])))
    if mapped is None:
        log.exception("rpc_failed", error=repr(exc))
        await context.abort(grpc.StatusCode.INTERNAL, "internal error; it has been logged")
    else:
        log.debug("rpc_refused", code=mapped[0].name, error=mapped[1])
        await context.abort(*mapped)


TRACE_HEADERS = ("x-trace-id", "traceparent")

# Request type -> which of its fields name its command: asking a protobuf message for a field it
# does not have raises (and catches) an AttributeError, a costly probe to make on every call.
_COMMAND_FIELDS: dict[type, tuple[str, ...]] = {}
COMMAND_FIELDS = ("action_id", "request_id")


def _command_fields(kind: type) -> tuple[str, ...]:
    known = _COMMAND_FIELDS.get(kind)
    if known is None:
        declared = getattr(getattr(kind, "DESCRIPTOR", None), "fields_by_name", None)
        if declared is None:  # not a protobuf message: its attributes may be its instances' own
            return COMMAND_FIELDS
        known = _COMMAND_FIELDS[kind] = tuple(f for f in COMMAND_FIELDS if f in declared)
    return known


def request_context(servicer: Any, request: Any, context: Any) -> dict[str, Any]:
    """The log fields every line of one request carries: the RPC, the node, the table and
    command it names, and a trace id (the caller's `x-trace-id` or `traceparent`, else new)."""
    fields: dict[str, Any] = {}
    tables = getattr(servicer, "tables", None)
    if tables is not None:
        fields["node"] = tables.node_id
    table_id = getattr(request, "table_id", "")
    if table_id:
        fields["table_id"] = table_id
    command_id = ""
    for name in _command_fields(type(request)):
        command_id = getattr(request, name, "")
        if command_id:
            break
    if command_id:
        fields["command_id"] = command_id
    trace = ""
    for key, value in context.invocation_metadata() or ():
        if key in TRACE_HEADERS:
            trace = str(value)
            break
    # A log correlation id, not a secret: 128 random bits without uuid4's os.urandom system call.
    fields["trace_id"] = trace or f"{_random_bits(128):032x}"
    return fields


S = TypeVar("S")
R = TypeVar("R")
T = TypeVar("T")

# grpc.aio runs each call in a task of its own, started in a copy of the server's context: what
# a handler binds to the log context dies with its call and reaches no other. So the wrappers
# bind without unbinding (structlog's bound_contextvars would also read the whole context to
# save what it overwrites, on every call).


CUT_OFF = "qipai: stream cut off"
"""The message a stream's task is cancelled with when its client reads nothing (feed.py)."""


class Undecodable:
    """A request whose bytes did not parse (nested deeper than protobuf decodes: an options
    Struct ~30 levels deep): the handler answers INVALID_ARGUMENT instead of grpc's UNKNOWN."""

    def __init__(self, message: str) -> None:
        self.message = message

    def refuse(self) -> BadRequest:
        return BadRequest(short(f"the request cannot be decoded: {self.message}"))


def decoding(deserialize: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """`deserialize`, answering an Undecodable rather than raising."""
    def decode(data: bytes) -> Any:
        try:
            return deserialize(data)
        except DecodeError as exc:
            return Undecodable(str(exc))

    return decode


def unary(fn: Callable[[S, R, Any], Awaitable[T]]) -> Callable[[S, R, Any], Awaitable[T]]:
    """Map a unary handler's domain errors to status codes."""
    rpc = fn.__name__

    @functools.wraps(fn)
    async def wrapper(self: S, request: R, context: Any) -> T:
        bind_contextvars(rpc=rpc, **request_context(self, request, context))
        try:
            if isinstance(request, Undecodable):
                raise request.refuse()
            return await fn(self, request, context)
        except (grpc.aio.AbortError, KeyboardInterrupt):
            raise
        except Exception as exc:  # every domain error becomes a status, never a crash
            await _abort(context, exc)
            raise  # abort always raises; this keeps the type checker informed

    return wrapper


def streaming(fn: Callable[[S, R, Any], AsyncIterator[T]]) -> Callable[[S, R, Any], AsyncIterator[T]]:
    """Map a server-streaming handler's domain errors to status codes.

    The wrapper writes the handler's messages itself (grpc.aio's reader-writer API) rather than
    being an async generator around the handler's: grpc would iterate it and write each message
    just the same, and every message and every wake-up of the stream would pass through one more
    generator frame. (Typed as the servicer stubs declare the method; grpc tells the two kinds
    apart by whether the function is a coroutine function.)"""
    rpc = fn.__name__

    @functools.wraps(fn)
    async def wrapper(self: S, request: R, context: Any) -> None:
        bind_contextvars(rpc=rpc, **request_context(self, request, context))
        try:
            if isinstance(request, Undecodable):
                raise request.refuse()
            write = context.write
            async for item in fn(self, request, context):
                await write(item)
        except (grpc.aio.AbortError, KeyboardInterrupt):
            raise
        except asyncio.CancelledError as exc:
            if exc.args != (CUT_OFF,):
                raise
            # A client that reads nothing: its stream ends (the status is for a client that
            # reads again some time; one that never does is gone all the same).
            await context.abort(grpc.StatusCode.UNAVAILABLE, "this stream was cut off: its client "
                                "read nothing for too long; call again to resume")
        except Exception as exc:
            await _abort(context, exc)
            raise

    return cast(Callable[[S, R, Any], AsyncIterator[T]], wrapper)
