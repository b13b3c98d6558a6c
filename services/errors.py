"""One place that turns domain errors into gRPC status codes (DESIGN.md, gRPC conventions)."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from grpc_status import rpc_status

from engine.core.errors import RuleViolation
from engine.rulesets import UnknownRuleset
from qipai.v1 import common_pb2
from services.observability import log


class Forbidden(Exception):
    """The caller may not do this (another seat, another table, not an operator)."""


class NotFound(LookupError):
    """The thing asked for does not exist."""


class Conflict(Exception):
    """A version conflict the client may retry after refreshing."""


class TooManyRequests(Exception):
    """The caller exceeded its rate limit."""


class Unavailable(Exception):
    """Try again shortly (another node, a node taking a table over, a node draining)."""


def _classify(exc: BaseException) -> tuple[grpc.StatusCode, str] | None:
    from services.eventstore import EventStoreError, StoreUnavailable, WrongExpectedVersion
    from services.game.leases import NotHolder
    from services.game.tables import TableNotFound, VersionConflict
    from services.game.wire import BadRequest
    from services.live.base import LiveStateUnavailable

    if isinstance(exc, BadRequest | UnknownRuleset):
        return grpc.StatusCode.INVALID_ARGUMENT, str(exc)
    if isinstance(exc, Forbidden):
        return grpc.StatusCode.PERMISSION_DENIED, str(exc)
    if isinstance(exc, NotFound | TableNotFound):
        # A KeyError's str() is its repr (quoted); its message is its first argument.
        return grpc.StatusCode.NOT_FOUND, str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    if isinstance(exc, Conflict | VersionConflict | WrongExpectedVersion):
        return grpc.StatusCode.ABORTED, str(exc)
    if isinstance(exc, TooManyRequests):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc)
    if isinstance(exc, StoreUnavailable | LiveStateUnavailable | Unavailable | NotHolder):
        return grpc.StatusCode.UNAVAILABLE, str(exc)
    if isinstance(exc, EventStoreError):
        return grpc.StatusCode.INVALID_ARGUMENT, str(exc)
    return None


async def _abort(context: grpc.aio.ServicerContext, exc: BaseException) -> None:
    if isinstance(exc, RuleViolation):
        detail = any_pb2.Any()
        detail.Pack(common_pb2.RuleViolation(code=exc.code, message=short(exc.message)))
        status = status_pb2.Status(code=code_pb2.FAILED_PRECONDITION,
                                   message=short(f"{exc.code}: {exc.message}"), details=[detail])
        await context.abort_with_status(rpc_status.to_status(status))
    mapped = _classify(exc)
    if mapped is None:
        log.exception("rpc_failed", error=repr(exc))
        await context.abort(grpc.StatusCode.INTERNAL, "internal error; it has been logged")
    else:
        await context.abort(mapped[0], short(mapped[1]))


MAX_MESSAGE = 300


def short(message: str) -> str:
    """`message`, cut to MAX_MESSAGE characters: a message echoes the request's bad part, which
    may be huge, and a status message travels in a header the client limits (8 KiB)."""
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def unary(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Map a unary handler's domain errors to status codes."""

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await fn(self, request, context)
        except (grpc.aio.AbortError, KeyboardInterrupt):
            raise
        except Exception as exc:  # every domain error becomes a status, never a crash
            await _abort(context, exc)

    return wrapper


def streaming(fn: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
    """Map a server-streaming handler's domain errors to status codes."""

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        try:
            async for item in fn(self, request, context):
                yield item
        except (grpc.aio.AbortError, KeyboardInterrupt):
            raise
        except Exception as exc:
            await _abort(context, exc)

    return wrapper
