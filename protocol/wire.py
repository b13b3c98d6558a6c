"""Protobuf at the edge: actions and views between gRPC messages and engine values.

Each action family in actions.proto mirrors a group of engine commands field by field (the
`mahjong.Discard` command is `Action.mahjong.discard`), so the translation is generic and a
test checks that every command of every ruleset has its message.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

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


MAX_REMEMBERED_ACTIONS = 20_000
_ACTIONS: dict[Any, actions_pb2.Action] = {}


def _action(cmd: Any) -> actions_pb2.Action:
    family, _, cls = type_name(cmd).partition(".")
    action = actions_pb2.Action()
    target = getattr(getattr(action, family), _snake(cls))
    target.SetInParent()  # empty kinds (Win, Pass) carry no field that would mark them set
    _fill(target, cmd, skip="seat")
    return action


def view_to_proto(ruleset: str, view: Any) -> views_pb2.View:
    """A ruleset's view (a frozen dataclass) as its typed message in views.proto."""
    msg = views_pb2.View()
    target: Message = getattr(msg, ruleset)
    target.SetInParent()
    try:
        _fill(target, view)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{type(view).__qualname__} does not fit {target.DESCRIPTOR.full_name}: {exc}") from None
    return msg


def _fill(msg: Any, obj: Any, skip: str = "") -> None:
    """Copy a dataclass into a message field by field (the hot path of every view sent, so no
    detour through JSON, and a plan per pair of types). None means "not set"; a tuple of tuples
    fills a repeated message whose only field is itself repeated (a row per seat); a hidden
    entry in a list of scalars is the type's empty value."""
    for name, kind, extra in _plan(type(obj), msg.DESCRIPTOR, skip):
        value = getattr(obj, name)
        if value is None:
            continue
        if kind is _SCALAR:
            setattr(msg, name, _scalar(value))
        elif kind is _SCALARS:
            getattr(msg, name).extend([extra if v is None else _scalar(v) for v in value])
        elif kind is _MESSAGE:
            part = getattr(msg, name)
            part.SetInParent()
            _fill(part, value)
        else:
            container = getattr(msg, name)
            for item in value:
                entry = container.add()
                if kind is _MESSAGES or not isinstance(item, tuple):
                    _fill(entry, item)
                elif kind is _ROWS_OF_SCALARS:
                    row_name, empty = extra
                    getattr(entry, row_name).extend([empty if v is None else _scalar(v) for v in item])
                else:
                    rows = getattr(entry, extra)
                    for cell in item:
                        _fill(rows.add(), cell)


_SCALAR, _SCALARS, _MESSAGE, _MESSAGES, _ROWS_OF_SCALARS, _ROWS_OF_MESSAGES = (
    "scalar", "scalars", "message", "messages", "rows of scalars", "rows of messages")
_PLANS: dict[tuple[type, str, str], tuple[tuple[str, str, Any], ...]] = {}




def _plan(cls: type, descriptor: Any, skip: str) -> tuple[tuple[str, str, Any], ...]:
    """How each field of `cls` but `skip` goes into the message `descriptor`: (name, kind, extra)."""
    key = (cls, descriptor.full_name, skip)
    plan = _PLANS.get(key)
    if plan is not None:
        return plan
    steps: list[tuple[str, str, Any]] = []
    for name in (f.name for f in dataclasses.fields(cls) if f.name != skip):
        field = descriptor.fields_by_name[name]
        sub = field.message_type
        if sub is None:
            steps.append((name, _SCALARS, _DEFAULTS.get(field.type, "")) if field.is_repeated
                         else (name, _SCALAR, None))
        elif not field.is_repeated:
            steps.append((name, _MESSAGE, None))
        elif len(sub.fields) == 1 and sub.fields[0].is_repeated:
            row = sub.fields[0]
            if row.message_type is None:
                steps.append((name, _ROWS_OF_SCALARS, (row.name, _DEFAULTS.get(row.type, ""))))
            else:
                steps.append((name, _ROWS_OF_MESSAGES, row.name))
        else:
            steps.append((name, _MESSAGES, None))
    plan = _PLANS[key] = tuple(steps)
    return plan


_TEXT: dict[Any, Any] = {}  # tiles and cards as notation: a few hundred values, made once each


def _scalar(value: Any) -> Any:
    kind = type(value)
    if kind is int or kind is str or kind is bool or kind is float:
        return value
    key = (kind, value)  # a tile and a card may be equal as numbers, never as notation
    text = _TEXT.get(key)
    if text is None:
        text = to_json(value)  # tiles and cards as notation, bytes as hex, enums by value
        if len(_TEXT) < 10_000:
            _TEXT[key] = text
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


def options_from_struct(struct: Any) -> dict[str, Any]:
    """Ruleset option overrides from a protobuf Struct (whose numbers are all doubles)."""
    data = json_format.MessageToDict(struct)
    return {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in data.items()}


# A hidden entry in a list of scalars (a face-down discard) travels as the type's empty value.
_DEFAULTS = {FieldDescriptor.TYPE_STRING: "", FieldDescriptor.TYPE_INT32: -1,
             FieldDescriptor.TYPE_INT64: -1, FieldDescriptor.TYPE_BOOL: False}
