"""Commands and events: frozen dataclasses registered under a stable type name and schema version.

`encode` turns one into `(type, schema_version, data)` with JSON-safe data; `decode` turns it back,
running upcasters first when the stored schema version is older than the current one. The store and
the wire only ever see these names, so a class can be renamed or moved without breaking old logs.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")



@dataclasses.dataclass(frozen=True)
class _Entry:
    cls: type
    name: str
    version: int
    kind: str


_by_name: dict[str, _Entry] = {}
_by_class: dict[type, _Entry] = {}
_upcasters: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]] = {}
_hints: dict[type, dict[str, Any]] = {}
_scalars: dict[type, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {}


class UnknownMessageType(LookupError):
    """A stored or received type name that no registered class answers to."""


def _register(kind: str, name: str, version: int) -> Callable[[type[T]], type[T]]:
    if version < 1:
        raise ValueError(f"schema version of {name} must be >= 1")

    def wrap(cls: type[T]) -> type[T]:
        if not dataclasses.is_dataclass(cls):
            cls = dataclasses.dataclass(frozen=True, slots=True)(cls)
        params = getattr(cls, "__dataclass_params__", None)
        if params is None or not params.frozen:
            raise TypeError(f"{cls.__qualname__} must be a frozen dataclass")
        existing = _by_name.get(name)
        if existing is not None and existing.cls.__qualname__ != cls.__qualname__:
            raise ValueError(f"type name {name!r} is already used by {existing.cls.__qualname__}")
        entry = _Entry(cls, name, version, kind)
        _by_name[name] = entry
        _by_class[cls] = entry
        _converters.clear()  # a class seen before may now encode with its type name
        return cls

    return wrap


@typing.dataclass_transform(frozen_default=True)
def command(name: str, version: int = 1) -> Callable[[type[T]], type[T]]:
    """Register a command class (an order: `Discard`, `Bid`)."""
    return _register("command", name, version)


@typing.dataclass_transform(frozen_default=True)
def event(name: str, version: int = 1) -> Callable[[type[T]], type[T]]:
    """Register an event class (a fact: `TileDiscarded`, `BidMade`)."""
    return _register("event", name, version)


@typing.dataclass_transform(frozen_default=True)
def value(name: str, version: int = 1) -> Callable[[type[T]], type[T]]:
    """Register a value class that travels inside messages or views (options, melds, views)."""
    return _register("value", name, version)


Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def upcaster(name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register a function turning data of `name` at `from_version` into `from_version + 1`."""

    def wrap(fn: Upcaster) -> Upcaster:
        _upcasters[(name, from_version)] = fn
        return fn

    return wrap


def scalar(cls: type, dump: Callable[[Any], Any], load: Callable[[Any], Any]) -> None:
    """Store values of `cls` as `dump(value)` and read them back with `load` (tiles as "5m",
    cards as "♠A"), so stored events stay readable to an operator in SQL."""
    _scalars[cls] = (dump, load)
    _converters.clear()


def type_name(obj_or_cls: Any) -> str:
    """The registered stable name of a message or message class."""
    cls = obj_or_cls if isinstance(obj_or_cls, type) else type(obj_or_cls)
    try:
        return _by_class[cls].name
    except KeyError:
        raise UnknownMessageType(f"{cls.__qualname__} is not a registered message") from None


def schema_version(name: str) -> int:
    """The current schema version of a registered type name."""
    return _entry(name).version


def is_registered(name: str, kind: str | None = None) -> bool:
    """Whether `name` is a registered type (optionally of one kind: command, event, value)."""
    entry = _by_name.get(name)
    return entry is not None and (kind is None or entry.kind == kind)


def _entry(name: str) -> _Entry:
    try:
        return _by_name[name]
    except KeyError:
        raise UnknownMessageType(f"unknown message type {name!r}") from None


def encode(message: Any) -> tuple[str, int, dict[str, Any]]:
    """`(type name, schema version, JSON-safe data)` for a registered message."""
    entry = _by_class.get(type(message))
    if entry is None:
        raise UnknownMessageType(f"{type(message).__qualname__} is not a registered message")
    return entry.name, entry.version, _fields_to_json(message)


def decode(name: str, version: int, data: dict[str, Any]) -> Any:
    """Rebuild a message from its stored form, upcasting old schema versions first."""
    entry = _entry(name)
    if version > entry.version:
        raise ValueError(f"{name} schema version {version} is newer than this code knows ({entry.version})")
    while version < entry.version:
        step = _upcasters.get((name, version))
        if step is None:
            raise ValueError(f"no upcaster for {name} from schema version {version}")
        data = step(dict(data))
        version += 1
    return _from_json(entry.cls, data)


def to_json(obj: Any) -> Any:
    """Any value a message may hold, as JSON-safe data (dataclasses become dicts)."""
    convert = _converters.get(type(obj))
    if convert is None:
        convert = _converter(type(obj))
        if convert is None:
            return _to_json(obj)
    return convert(obj)


def _to_json(obj: Any) -> Any:
    """to_json by the rules themselves, for the values no converter is kept for (classes, and
    what cannot be encoded: the TypeError says so)."""
    codec = _scalars.get(type(obj))
    if codec is not None:
        return codec[0](obj)
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, bytes):
        return obj.hex()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        entry = _by_class.get(type(obj))
        data = _fields_to_json(obj)
        if entry is not None and entry.kind != "value":
            # Messages nested in other messages (a default command in a deadline) keep their type.
            return {"type": entry.name, "data": data}
        return data
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    if isinstance(obj, tuple | list | frozenset | set):
        items = [to_json(v) for v in obj]
        return sorted(items, key=repr) if isinstance(obj, frozenset | set) else items
    raise TypeError(f"cannot encode {type(obj).__qualname__}")


# Encoding is every event's cost (stored, fanned out, shown to each seat), so the rules of
# `_to_json` are applied once per class, not per value: each class gets the function its values
# take, and a dataclass one compiled from its field names. The classes are fixed at import; a
# registration clears them all the same.
_converters: dict[type, Callable[[Any], Any]] = {}
_field_converters: dict[type, Callable[[Any], dict[str, Any]]] = {}


def _same(obj: Any) -> Any:
    return obj


def _converter(cls: type) -> Callable[[Any], Any] | None:
    codec = _scalars.get(cls)
    convert: Callable[[Any], Any]
    if codec is not None:
        convert = codec[0]
    elif cls is type(None) or issubclass(cls, bool | int | float | str):
        convert = _same
    elif issubclass(cls, enum.Enum):
        convert = _enum_value
    elif issubclass(cls, bytes):
        convert = bytes.hex
    elif dataclasses.is_dataclass(cls) and not issubclass(cls, type):
        fields = _field_converter(cls)
        entry = _by_class.get(cls)
        if entry is not None and entry.kind != "value":
            name = entry.name

            def convert(obj: Any) -> Any:
                return {"type": name, "data": fields(obj)}
        else:
            convert = fields
    elif issubclass(cls, dict):
        convert = _dict_to_json
    elif issubclass(cls, tuple | list):
        convert = _list_to_json
    elif issubclass(cls, frozenset | set):
        convert = _set_to_json
    else:
        return None
    _converters[cls] = convert
    return convert


def _enum_value(obj: Any) -> Any:
    return obj.value


def _dict_to_json(obj: Any) -> Any:
    return {str(k): to_json(v) for k, v in obj.items()}


def _list_to_json(obj: Any) -> Any:
    return [to_json(v) for v in obj]


def _set_to_json(obj: Any) -> Any:
    return sorted([to_json(v) for v in obj], key=repr)


def _fields_to_json(obj: Any) -> dict[str, Any]:
    convert = _field_converters.get(type(obj))
    if convert is None:
        convert = _field_converter(type(obj))
    return convert(obj)


def _field_converter(cls: type) -> Callable[[Any], dict[str, Any]]:
    """`{field: to_json(value)}` for a dataclass, as Python source compiled once: the fields
    read by name, and the values that are their own JSON (ints, text, None) kept without a call."""
    items = [f"{f.name!r}: (v if (t := type(v := obj.{f.name})) is int or t is str or v is None "
             f"or t is bool else to_json(v))" for f in dataclasses.fields(cls)]
    env: dict[str, Any] = {"to_json": to_json}
    exec(f"def convert(obj):\n    return {{{', '.join(items)}}}", env)  # noqa: S102 - field names only
    convert = typing.cast(Callable[[Any], dict[str, Any]], env["convert"])
    _field_converters[cls] = convert
    return convert


def _hints_of(cls: type) -> dict[str, Any]:
    hints = _hints.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        _hints[cls] = hints
    return hints


def _from_json(tp: Any, data: Any) -> Any:
    if tp is Any:
        return data
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if data is None and type(None) in args:
            return None
        last: Exception | None = None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _from_json(arg, data)
            except (TypeError, ValueError, KeyError) as exc:
                last = exc
        raise ValueError(f"{data!r} does not fit {tp}") from last
    if origin is typing.Literal:
        if data not in typing.get_args(tp):
            raise ValueError(f"{data!r} is not one of {typing.get_args(tp)}")
        return data
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(data, list | tuple):
            raise TypeError(f"expected a list for {tp}, got {type(data).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_json(args[0], v) for v in data)
        if len(args) != len(data):
            raise ValueError(f"expected {len(args)} items for {tp}, got {len(data)}")
        return tuple(_from_json(a, v) for a, v in zip(args, data, strict=True))
    if origin is frozenset:
        (arg,) = typing.get_args(tp)
        return frozenset(_from_json(arg, v) for v in data)
    if origin is dict or origin is typing.Mapping or tp is dict:
        args = typing.get_args(tp) or (str, Any)
        if not isinstance(data, dict):
            raise TypeError(f"expected an object for {tp}")
        key_tp = args[0]
        return {(int(k) if key_tp is int else k): _from_json(args[1], v) for k, v in data.items()}
    if isinstance(tp, type):
        codec = _scalars.get(tp)
        if codec is not None:
            return codec[1](data)
        if dataclasses.is_dataclass(tp):
            if not isinstance(data, dict):
                raise TypeError(f"expected an object for {tp.__qualname__}")
            if "type" in data and "data" in data and _by_class.get(tp, None) is not None and _by_class[tp].kind != "value":
                data = data["data"]
            hints = _hints_of(tp)
            kwargs = {}
            for f in dataclasses.fields(tp):
                if f.name in data:
                    kwargs[f.name] = _from_json(hints[f.name], data[f.name])
                elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise ValueError(f"{tp.__qualname__} needs field {f.name!r}")
            unknown = set(data) - {f.name for f in dataclasses.fields(tp)}
            if unknown:
                raise ValueError(f"{tp.__qualname__} has no field(s) {sorted(unknown)}")
            return tp(**kwargs)
        if issubclass(tp, enum.Enum):
            return tp(data)
        if tp is bytes:
            if not isinstance(data, str):
                raise TypeError("expected hex text for bytes")
            return bytes.fromhex(data)
        if tp is bool:
            if not isinstance(data, bool):
                raise TypeError(f"expected a boolean, got {data!r}")
            return data
        if tp is int:
            if isinstance(data, bool) or not isinstance(data, int):
                raise TypeError(f"expected an integer, got {data!r}")
            return data
        if tp is float:
            if isinstance(data, bool) or not isinstance(data, int | float):
                raise TypeError(f"expected a number, got {data!r}")
            return float(data)
        if tp is str:
            if not isinstance(data, str):
                raise TypeError(f"expected text, got {data!r}")
            return data
    # A message nested by its base class (e.g. `default: object` holding any command).
    if isinstance(data, dict) and "type" in data and "data" in data:
        entry = _entry(data["type"])
        return _from_json(entry.cls, data["data"])
    raise TypeError(f"cannot decode into {tp!r}")


def from_json(cls: type[T], data: Any) -> T:
    """A value of `cls` (any dataclass with type hints) from its JSON form."""
    return typing.cast(T, _from_json(cls, data))


def message_from_json(data: dict[str, Any]) -> Any:
    """Decode `{"type": name, "data": {...}}` (current schema version) into its message."""
    if not isinstance(data, dict) or "type" not in data:
        raise ValueError("expected an object with 'type' and 'data'")
    entry = _entry(data["type"])
    return _from_json(entry.cls, data.get("data", {}))


def message_to_json(message: Any) -> dict[str, Any]:
    """`{"type": name, "data": {...}}` for a registered message."""
    name, _, data = encode(message)
    return {"type": name, "data": data}
