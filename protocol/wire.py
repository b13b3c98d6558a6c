"""Protobuf at the edge: actions and views between gRPC messages and engine values.

Each action family in actions.proto mirrors a group of engine commands field by field (the
`mahjong.Discard` command is `Action.mahjong.discard`), so the translation is generic and a
test checks that every command of every ruleset has its message.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import typing
from collections.abc import Callable, Iterable
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor

from engine.core.messages import (
    from_json,
    is_registered,
    message_from_json,
    to_json,
    type_name,
)
from qipai.v1 import actions_pb2, views_pb2

FAMILIES = ("mahjong", "daqi")


class BadRequest(ValueError):
    """A request that cannot mean anything (INVALID_ARGUMENT); the message says what is wrong."""


def _camel(snake: str) -> str:
    return "".join(part.capitalize() for part in snake.split("_"))


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def action_to_command(action: actions_pb2.Action, seat: int) -> Any:
    """The engine command for `action`, acting for `seat`; BadRequest when it is incomplete."""
    family = action.WhichOneof("family")
    if family is None:
        raise BadRequest("the action is empty: set one of " + ", ".join(FAMILIES))
    group = getattr(action, family)
    kind = group.WhichOneof("kind")
    if kind is None:
        raise BadRequest(f"the {family} action names no kind")
    name = f"{family}.{_camel(kind)}"
    if not is_registered(name, "command"):
        raise BadRequest(f"{name} is not an action this server knows")
    data = _to_dict(getattr(group, kind), every_field=False)
    data["seat"] = seat
    try:
        return message_from_json({"type": name, "data": data})
    except (ValueError, TypeError, KeyError) as exc:
        raise BadRequest(f"bad {family} {kind}: {exc}") from None


def command_to_action(cmd: Any) -> actions_pb2.Action:
    """The gRPC form of an engine command (for legal-action lists). Remembered: a seat's legal
    actions are the same few commands again and again, and one goes out with every decision.
    The message returned is shared, so callers copy it (a repeated field's `extend` does)."""
    try:
        known = _ACTIONS.get(cmd)
    except TypeError:  # a field that does not hash: built each time
        return _action(cmd)
    if known is None:
        if len(_ACTIONS) >= MAX_REMEMBERED_ACTIONS:
            _ACTIONS.clear()  # rare, and only costs building them again
        known = _ACTIONS[cmd] = _action(cmd)
    return known


def encoded_actions(number: int, cmds: Iterable[Any]) -> bytes:
    """Commands as the wire bytes of the repeated `Action` field `number` of some message (a
    view's legal actions), to merge into it with `MergeFromString`: upb copies a message given
    to a constructor by serializing and parsing it, so bytes made once per command are cheaper."""
    out = []
    for cmd in cmds:
        try:
            known = _ACTION_BYTES.get((cmd, number))
        except TypeError:  # a field that does not hash: encoded each time
            out.append(field_bytes(number, _action(cmd).SerializeToString()))
            continue
        if known is None:
            if len(_ACTION_BYTES) >= MAX_REMEMBERED_ACTIONS:
                _ACTION_BYTES.clear()
            known = _ACTION_BYTES[(cmd, number)] = field_bytes(number, _action(cmd).SerializeToString())
        out.append(known)
    return b"".join(out)


MAX_REMEMBERED_ACTIONS = 20_000
_ACTIONS: dict[Any, actions_pb2.Action] = {}
_ACTION_BYTES: dict[tuple[Any, int], bytes] = {}


def _action(cmd: Any) -> actions_pb2.Action:
    name = type_name(cmd)
    where = _KINDS.get(name)
    if where is None:
        family, _, cls = name.partition(".")
        kind = _snake(cls)
        group: Any = actions_pb2.Action.DESCRIPTOR.fields_by_name[family].message_type
        where = _KINDS[name] = (family, kind, group.fields_by_name[kind].message_type)
    family, kind, descriptor = where
    fields, parts = _fields(cmd, descriptor, "seat")
    # An empty kind (Win, Pass) is set all the same: its empty dict marks it.
    arguments: dict[str, Any] = {family: {kind: fields}}
    action = actions_pb2.Action(**arguments)
    if parts:
        getattr(getattr(action, family), kind).MergeFromString(parts)
    return action


_KINDS: dict[str, tuple[str, str, Any]] = {}  # command name: its family, kind and message


def view_to_proto(ruleset: str, view: Any) -> views_pb2.View:
    """A ruleset's view (a frozen dataclass) as its typed message in views.proto."""
    fields, parts = view_parts(ruleset, view)
    arguments: dict[str, Any] = {ruleset: fields}
    msg = views_pb2.View(**arguments)
    if parts:
        getattr(msg, ruleset).MergeFromString(parts)
    return msg


def view_parts(ruleset: str, view: Any) -> tuple[dict[str, Any], bytes]:
    """A ruleset's view as its message in views.proto: the constructor arguments of its plain
    fields, and the wire bytes of its message fields to merge in after (`MergeFromString`).
    Both are cheaper than setting fields one by one; the bytes of the parts that stay the same
    objects from one view to the next (a river, the options, a trick's plays) are made once."""
    target: Any = views_pb2.View.DESCRIPTOR.fields_by_name[ruleset].message_type
    try:
        return _fields(view, target)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{type(view).__qualname__} does not fit {target.full_name}: {exc}") from None


def field_bytes(number: int, payload: bytes) -> bytes:
    """A length-delimited field (a message) of `number` holding `payload`, in wire format."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


Converter = Callable[[Any], tuple[dict[str, Any], bytes]]


def _fields(obj: Any, descriptor: Any, skip: str = "") -> tuple[dict[str, Any], bytes]:
    """A dataclass as the message `descriptor`: the constructor arguments of its scalar fields,
    and the wire bytes of its message fields. None means "not set"; a tuple of tuples fills a
    repeated message whose only field is itself repeated (a row per seat); a hidden entry in a
    list of scalars is the type's empty value."""
    key = (type(obj), descriptor, skip)
    convert = _CONVERTERS.get(key)
    if convert is None:
        convert = _CONVERTERS[key] = _converter(type(obj), descriptor, skip)
    return convert(obj)


_CONVERTERS: dict[tuple[type, Any, str], Converter] = {}


def _converter(cls: type, descriptor: Any, skip: str) -> Converter:
    """The function turning a `cls` into `descriptor`'s arguments and bytes, as Python source
    compiled once (the hot path of every view sent): each field read by name, no plan walked."""
    lines = ["def convert(obj):", "    out = {}", "    parts = []"]
    env: dict[str, Any] = {"_scalar": _scalar, "_scalars": _scalars, "_part": _part, "_repeated": _repeated}
    for n, name in enumerate(f.name for f in dataclasses.fields(cls) if f.name != skip):
        field = descriptor.fields_by_name[name]
        sub = field.message_type
        env[f"d{n}"] = (sub, field.number)
        lines += [f"    v = obj.{name}", "    if v is not None:"]
        if sub is None and not field.is_repeated:
            lines.append("        v = v if type(v) is int or type(v) is str else _scalar(v)")
            if field.has_presence or field.type in _FLOATS:  # -0.0 is falsy, yet it is sent
                lines.append(f"        out[{name!r}] = v")
            else:  # a field at its default is left out: upb's constructor costs per argument
                lines += ["        if v or type(v) is not int and type(v) is not str and type(v) is not bool:",
                          f"            out[{name!r}] = v"]
        elif sub is None:
            env[f"e{n}"] = _DEFAULTS.get(field.type, "")
            lines += ["        if v:", f"            out[{name!r}] = _scalars(v, e{n})"]
        elif not field.is_repeated:
            lines.append(f"        parts.append(_part(v, d{n}))")
        elif len(sub.fields) == 1 and sub.fields[0].is_repeated:
            row = sub.fields[0]
            env[f"r{n}"] = (row.name, row.message_type, row.number, _DEFAULTS.get(row.type, ""))
            lines.append(f"        parts.append(_repeated(v, d{n}, r{n}))")
        else:
            lines.append(f"        parts.append(_repeated(v, d{n}, None))")
    lines.append("    return out, b''.join(parts)")
    exec("\n".join(lines), env)  # noqa: S102 - the source is made here from field names only
    return typing.cast(Converter, env["convert"])


def _scalars(values: Any, empty: Any) -> list[Any]:
    """A list of scalars as the message takes it: tiles and cards as notation, a hidden entry
    (None) as the type's empty value. A list of one kind (a hand) is looked up in C."""
    kinds = set(map(type, values))
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind is int or kind is str or kind is bool or kind is float:
            return list(values)
        texts = _TEXTS.get(kind)
        if texts is not None:
            try:
                return list(map(texts.__getitem__, values))
            except KeyError:  # a value not yet seen: made below
                pass
    return [empty if v is None else _scalar(v) for v in values]


# The parts of a view that stay the same objects from one view to the next (a seat's river,
# the options, another seat's melds: the engine's states share them) are encoded once: found
# by identity, holding the object so that its id stays its own while remembered.
_PARTS: dict[tuple[Any, ...], tuple[Any, bytes]] = {}
MAX_REMEMBERED_PARTS = 20_000


def _remember(key: tuple[Any, ...], obj: Any, encoded: bytes) -> bytes:
    if len(_PARTS) >= MAX_REMEMBERED_PARTS:
        _PARTS.clear()  # rare, and only costs encoding them again
    _PARTS[key] = (obj, encoded)
    return encoded


def _message_class(descriptor: Any) -> Any:
    cls = _CLASSES.get(descriptor)
    if cls is None:
        cls = _CLASSES[descriptor] = message_factory.GetMessageClass(descriptor)
    return cls


_CLASSES: dict[Any, Any] = {}


def _part(obj: Any, field: tuple[Any, int]) -> bytes:
    """`obj` as the message field `field` (its type and number), in wire format."""
    key = (id(obj), field)  # one object may fill two kinds of field (an empty tuple)
    known = _PARTS.get(key)
    if known is not None and known[0] is obj:
        return known[1]
    descriptor, number = field
    fields, parts = _fields(obj, descriptor)
    encoded = field_bytes(number, _message_class(descriptor)(**fields).SerializeToString() + parts)
    return _remember(key, obj, encoded) if _frozen(type(obj)) else encoded


def _frozen(cls: type) -> bool:
    """Whether values of `cls` never change, so that their bytes may be remembered: a frozen
    dataclass (as the engine's values are), a scalar (a tile, a card, an enum) or a tuple, whose
    items are asked of in turn."""
    frozen = _FROZEN.get(cls)
    if frozen is None:
        params = getattr(cls, "__dataclass_params__", None)
        frozen = _FROZEN[cls] = (bool(params.frozen) if params is not None else issubclass(
            cls, int | str | float | bytes | enum.Enum | tuple | type(None)))
    return frozen


_FROZEN: dict[type, bool] = {}


def _repeated(items: Any, field: tuple[Any, int], row: tuple[str, Any, int, Any] | None) -> bytes:
    """A repeated message field (`row`: of rows), in wire format. The whole list is found by
    identity too: every seat's view of one state holds the same tuple of a trick's plays."""
    key = (id(items), field, "all")  # not one row: the empty tuple is both
    known = _PARTS.get(key)
    if known is not None and known[0] is items:
        return known[1]
    if row is None:
        encoded = b"".join([_part(x, field) for x in items])
    else:
        encoded = b"".join([_row(x, field, row) for x in items])
    lasting = type(items) is tuple and _lasting(items) and (
        row is None or row[1] is None or all(_lasting(x) for x in items if type(x) is tuple))
    return _remember(key, items, encoded) if lasting else encoded


def _lasting(values: Any) -> bool:
    """Whether none of `values` may change (each of a class `_frozen` says so)."""
    return all(_frozen(kind) for kind in set(map(type, values)))


def _row(item: Any, field: tuple[Any, int], row: tuple[str, Any, int, Any]) -> bytes:
    """A tuple as the field `field` of a message whose only field `row` is repeated."""
    if not isinstance(item, tuple):
        return _part(item, field)
    key = (id(item), field)
    known = _PARTS.get(key)
    if known is not None and known[0] is item:
        return known[1]
    descriptor, number = field
    name, cell, cell_number, empty = row
    if cell is None:
        payload = _message_class(descriptor)(**{name: _scalars(item, empty)}).SerializeToString()
    else:
        payload = b"".join([_part(c, (cell, cell_number)) for c in item])
    encoded = field_bytes(number, payload)
    return _remember(key, item, encoded) if cell is None or _lasting(item) else encoded


# Tiles and cards as notation, per class (a tile and a card may be equal as numbers, never as
# notation): a few hundred values, made once each.
_TEXTS: dict[type, dict[Any, Any]] = {}
MAX_TEXTS = 10_000


def _scalar(value: Any) -> Any:
    kind = type(value)
    if kind is int or kind is str or kind is bool or kind is float:
        return value
    texts = _TEXTS.get(kind)
    if texts is None:
        texts = _TEXTS[kind] = {}
    text = texts.get(value)
    if text is None:
        text = to_json(value)  # tiles and cards as notation, bytes as hex, enums by value
        if len(texts) < MAX_TEXTS:
            texts[value] = text
    return text


def view_from_proto(ruleset: str, msg: views_pb2.View, view_cls: type) -> Any:
    """The engine view back from its message (the Python reference client feeds it to bots)."""
    target = getattr(msg, ruleset)
    data = _unshape(_to_dict(target, every_field=True), target.DESCRIPTOR)
    for f in dataclasses.fields(view_cls):
        # A repeated field cannot say "not shown" apart from "empty": where the view's own
        # default is None (the bottom you may not see), empty means not shown.
        if f.default is None and data.get(f.name) == []:
            data[f.name] = None
    return from_json(view_cls, data)


def _to_dict(msg: Any, every_field: bool) -> dict[str, Any]:
    """A message as a dict by field name, like json_format.MessageToDict with proto field names
    (`every_field`: with fields that have no presence at their defaults) but several times
    faster, and with integers left integers. Unset fields with presence are left out."""
    out: dict[str, Any] = {}
    for field in msg.DESCRIPTOR.fields:
        name = field.name
        if field.is_repeated:
            value = getattr(msg, name)
            if not value and not every_field:
                continue
            out[name] = ([_to_dict(v, every_field) for v in value] if field.message_type is not None
                         else list(value))
        elif field.has_presence:
            if msg.HasField(name):
                value = getattr(msg, name)
                out[name] = _to_dict(value, every_field) if field.message_type is not None else value
        elif every_field or getattr(msg, name) != field.default_value:
            out[name] = getattr(msg, name)
    return out


def _unshape(data: Any, descriptor: Any) -> Any:
    if not isinstance(data, dict):
        return data
    out = {}
    for key, value in data.items():
        field = descriptor.fields_by_name[key]
        sub = field.message_type
        if field.is_repeated and sub is None:
            out[key] = [None if v == "" else v for v in value] if field.type == field.TYPE_STRING else value
        elif field.is_repeated and len(sub.fields) == 1 and sub.fields[0].is_repeated:
            inner = sub.fields[0]
            out[key] = [_unshape({inner.name: row.get(inner.name, [])}, sub)[inner.name] for row in value]
        elif field.is_repeated:
            out[key] = [_unshape(v, sub) for v in value]
        elif sub is not None:
            out[key] = _unshape(value, sub)
        else:
            out[key] = value
    for field in descriptor.fields:  # unset optional fields and messages are None in the engine
        if field.name not in out and not field.is_repeated and field.has_presence:
            out[field.name] = None
    return out


# What an options Struct may hold (docs/operations.md "Abuse limits"): every ruleset's options
# are a flat map of scalars and short lists, so these bounds are far above any real request and
# far below what would cost the server (recursion, huge integers, megabytes stored per table).
MAX_OPTIONS_DEPTH = 4  # the Struct itself is level 1; a list of lists inside it is level 3
MAX_OPTIONS_ENTRIES = 64  # keys of one Struct, items of one list
MAX_OPTION_KEY = 64
MAX_OPTION_STRING = 256
MAX_OPTION_NUMBER = 2.0**53  # beyond it a double no longer holds every integer exactly


def options_from_struct(struct: Any, field: str = "options") -> dict[str, Any]:
    """Ruleset option overrides from a protobuf Struct (whose numbers are all doubles; those
    that are whole become ints). BadRequest, naming the offending path under `field`, for a
    NaN or infinite number, nesting deeper than MAX_OPTIONS_DEPTH, or too many or
    too long entries."""
    return _struct_value(struct, field, 1)


def _struct_value(struct: Any, path: str, depth: int) -> dict[str, Any]:
    if depth > MAX_OPTIONS_DEPTH:
        raise BadRequest(f"{path}: nested deeper than {MAX_OPTIONS_DEPTH} levels")
    if len(struct.fields) > MAX_OPTIONS_ENTRIES:
        raise BadRequest(f"{path}: more than {MAX_OPTIONS_ENTRIES} entries")
    out: dict[str, Any] = {}
    for key in sorted(struct.fields):
        if len(key) > MAX_OPTION_KEY:
            raise BadRequest(f"{path}: a key longer than {MAX_OPTION_KEY} characters ({key[:20]!r}…)")
        out[key] = _plain(struct.fields[key], f"{path}.{key}", depth)
    return out


def _plain(value: Any, path: str, depth: int) -> Any:
    """A google.protobuf.Value as plain Python, within the bounds above."""
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        number = value.number_value
        if number != number or abs(number) == float("inf"):
            raise BadRequest(f"{path}: {number} is not a finite number")
        # Beyond ±2^53 a double no longer holds every integer: such a number stays a float, which
        # the option's own check then refuses naming the option and its range.
        return int(number) if number.is_integer() and abs(number) <= MAX_OPTION_NUMBER else number
    if kind == "string_value":
        if len(value.string_value) > MAX_OPTION_STRING:
            raise BadRequest(f"{path}: a string longer than {MAX_OPTION_STRING} characters")
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return _struct_value(value.struct_value, path, depth + 1)
    if kind == "list_value":
        if depth + 1 > MAX_OPTIONS_DEPTH:
            raise BadRequest(f"{path}: nested deeper than {MAX_OPTIONS_DEPTH} levels")
        items = value.list_value.values
        if len(items) > MAX_OPTIONS_ENTRIES:
            raise BadRequest(f"{path}: more than {MAX_OPTIONS_ENTRIES} entries")
        return [_plain(item, f"{path}[{n}]", depth + 1) for n, item in enumerate(items)]
    return None  # null_value, or no kind set: JSON null, as MessageToDict reads it


# A hidden entry in a list of scalars (a face-down discard) travels as the type's empty value.
_FLOATS = (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE)
_DEFAULTS = {FieldDescriptor.TYPE_STRING: "", FieldDescriptor.TYPE_INT32: -1,
             FieldDescriptor.TYPE_INT64: -1, FieldDescriptor.TYPE_BOOL: False}
