"""Checks every request before it reaches a database, so bad input never half-writes anything.

Both backends run the same checks, which is what keeps their contracts identical.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from services import json_text

from .errors import (
    InvalidInput,
    InvalidStreamId,
    InvalidVersion,
    NotSerialisable,
    PayloadTooLarge,
    UnknownEventType,
)
from .records import GlobalPosition, NewEvent

MAX_PAYLOAD_BYTES = 1024 * 1024
MAX_STREAM_ID_LENGTH = 200
MAX_COMMAND_ID_LENGTH = 200
MAX_TYPE_LENGTH = 200
# Versions are stored as bigint; anything above this is a bug in the caller, not a real stream.
MAX_VERSION = 2**62


def stream_id(value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidStreamId(f"stream id must be text, got {type(value).__name__}")
    if not value:
        raise InvalidStreamId("stream id must not be empty")
    if len(value) > MAX_STREAM_ID_LENGTH:
        raise InvalidStreamId(
            f"stream id is {len(value)} characters long; the limit is {MAX_STREAM_ID_LENGTH}"
        )
    if value.isprintable():  # no control character, no lone surrogate: the usual case, in C
        return value
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise InvalidStreamId(f"stream id {value!r} contains a control character")
    if not value.isprintable() and any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
        raise InvalidStreamId(f"stream id {value!r} is not valid Unicode text")
    return value


def version(value: Any, name: str, minimum: int = 0) -> int:
    # bool is an int subclass; True as a version is always a mistake.
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidVersion(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise InvalidVersion(f"{name} must be >= {minimum}, got {value}")
    if value > MAX_VERSION:
        raise InvalidVersion(f"{name} {value} is out of range (max {MAX_VERSION})")
    return value


def optional_text(value: Any, name: str, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"{name} must be non-empty text or None, got {value!r}")
    if len(value) > limit:
        raise InvalidInput(f"{name} is {len(value)} characters long; the limit is {limit}")
    if value.isprintable():  # no control character: the usual case, checked in C
        return value
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):  # Postgres text cannot hold NUL
        raise InvalidInput(f"{name} {value[:40]!r} contains a control character")
    return value


def name(value: Any, what: str, limit: int) -> str:
    text = optional_text(value, what, limit)
    if text is None:
        raise InvalidInput(f"{what} must be non-empty text, got None")
    return text


def type_name(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_TYPE_LENGTH:
        raise InvalidInput(f"type must be non-empty text of at most {MAX_TYPE_LENGTH} characters, got {value!r}")
    return value


def to_json(value: Any, what: str) -> str:
    """Compact JSON text of a dict, or `NotSerialisable` naming `what` and the reason."""
    return _json(value, what)[0]


# Compact, as json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
# writes it: an encoder per call was a third of an append's checks.
_encode = json_text.encoder(compact=True, allow_nan=False)
_NOTHING = object()


def _json(value: Any, what: str, *args: Any) -> tuple[str, int]:
    """`to_json`'s text and its size in UTF-8 bytes (encoded once: it is every append's cost).
    `what.format(*args)` names the value in an error: put into words only for one."""
    if not isinstance(value, dict):
        raise NotSerialisable(f"{_what(what, args)} must be a dict, got {type(value).__name__}")
    try:
        text = _encode(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise NotSerialisable(f"{_what(what, args)} is not JSON-serialisable: {exc}") from None
    if text.isascii():  # no lone surrogate can hide in ASCII, and its size is its length
        size = len(text)
    else:
        try:
            size = len(text.encode())
        except UnicodeEncodeError as exc:
            raise NotSerialisable(
                f"{_what(what, args)} is not JSON-serialisable: not valid Unicode ({exc.reason})") from None
    # Postgres jsonb cannot hold NUL; refusing it on both backends keeps them interchangeable.
    if "\\u0000" in text:
        raise NotSerialisable(f"{_what(what, args)} contains a NUL character, which jsonb cannot store")
    return text, size


def _what(what: str, args: tuple[Any, ...]) -> str:
    return what.format(*args) if args else what


def sized_json(value: Any, what: str, whole: str) -> str:
    """`to_json(value, what)`, refused with `PayloadTooLarge` naming `whole` if over the limit
    (its size counted as it is encoded, not again)."""
    text, size = _json(value, what)
    _limit(size, whole)
    return text


def _limit(size: int, what: str) -> None:
    if size > MAX_PAYLOAD_BYTES:
        raise PayloadTooLarge(f"{what} is {size} bytes of JSON; the limit is {MAX_PAYLOAD_BYTES}")


def new_events(
    events: Sequence[NewEvent], known_type: Callable[[str], bool]
) -> list[tuple[str, int, str, str]]:
    """`(type, schema_version, data_json, metadata_json)` per event, all checked."""
    if isinstance(events, NewEvent) or not isinstance(events, Sequence):
        raise InvalidInput("events must be a list of NewEvent")
    if not events:
        raise InvalidInput("an append needs at least one event")
    rows = []
    # The events of one command after its first share one metadata dict (see the game's
    # `CommandPipeline.records`): encoded once.
    last_metadata: Any = _NOTHING
    metadata, metadata_size = "", 0
    for index, event in enumerate(events):
        if not isinstance(event, NewEvent):
            raise InvalidInput(f"event #{index} is a {type(event).__name__}, not a NewEvent")
        name = type_name(event.type)
        if not known_type(name):
            raise UnknownEventType(name)
        schema = event.schema_version
        if type(schema) is not int or not 1 <= schema <= MAX_VERSION:  # the usual case, inline
            version(schema, f"schema version of event #{index} ({name})", 1)
        data, data_size = _json(event.data, "data of event #{} ({})", index, name)
        if event.metadata is not last_metadata:
            metadata, metadata_size = _json(event.metadata, "metadata of event #{} ({})", index, name)
            last_metadata = event.metadata
        if data_size + metadata_size > MAX_PAYLOAD_BYTES:
            _limit(data_size + metadata_size, f"event #{index} ({name})")
        rows.append((name, schema, data, metadata))
    return rows


def position(value: Any) -> GlobalPosition:
    if not isinstance(value, GlobalPosition):
        raise InvalidInput(f"a global position must be a GlobalPosition, got {value!r}")
    return value


def limit(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100_000:
        raise InvalidInput(f"limit must be an integer from 1 to 100000, got {value!r}")
    return value
