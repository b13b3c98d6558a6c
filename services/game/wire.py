"""Protobuf at the edge: actions and views between gRPC messages and engine values.

Each action family in actions.proto mirrors a group of engine commands field by field (the
`mahjong.Discard` command is `Action.mahjong.discard`), so the translation is generic and a
test checks that every command of every ruleset has its message.
"""

from __future__ import annotations

import re
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from engine.core.messages import is_registered, message_from_json, message_to_json, to_json
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
    data = json_format.MessageToDict(getattr(group, kind), preserving_proto_field_name=True)
    data["seat"] = seat
    try:
        return message_from_json({"type": name, "data": data})
    except (ValueError, TypeError, KeyError) as exc:
        raise BadRequest(f"bad {family} {kind}: {exc}") from None


def command_to_action(cmd: Any) -> actions_pb2.Action:
    """The gRPC form of an engine command (for legal-action lists)."""
    encoded = message_to_json(cmd)
    family, _, cls = encoded["type"].partition(".")
    data = {k: v for k, v in encoded["data"].items() if k != "seat"}
    action = actions_pb2.Action()
    target = getattr(getattr(action, family), _snake(cls))
    target.SetInParent()  # empty kinds (Win, Pass) carry no field that would mark them set
    json_format.ParseDict(data, target)
    return action


def view_to_proto(ruleset: str, view: Any) -> views_pb2.View:
    """A ruleset's view (a frozen dataclass) as its typed message in views.proto."""
    msg = views_pb2.View()
    target: Message = getattr(msg, ruleset)
    target.SetInParent()
    json_format.ParseDict(to_json(view), target)
    return msg
