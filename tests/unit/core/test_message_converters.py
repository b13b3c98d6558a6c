"""to_json keeps a converter per class (engine/core/messages.py): it must give what the rules
give value by value, whatever class a value has and whenever the class was registered."""

import dataclasses
import enum
import json

import pytest

from engine.core import messages
from engine.core.messages import event, to_json, value


class Colour(enum.Enum):
    RED = "r"


class Level(enum.IntEnum):
    HIGH = 2


class Name(str):
    pass


@dataclasses.dataclass(frozen=True)
class Plain:  # not registered: a plain dict
    n: int
    t: object


@value("test.converters.Box")
class Box:
    items: tuple[object, ...]
    tags: frozenset[str]
    extra: dict[int, object]


@event("test.converters.Done")
class Done:
    box: Box
    inner: object = None
    raw: bytes = b""


SAMPLES = [None, True, 0, -3, 2**70, 1.5, -0.0, "", "南風", Name("x"), Colour.RED, Level.HIGH,
           b"\x00\xff", (1, (2, None)), [Colour.RED, b"a"], {1: "a", "b": (True,)},
           frozenset({"b", "a", "c"}), {3, 1, 2}, Plain(1, Plain(2, None)),
           Box((1, "a", Colour.RED), frozenset({"z", "y"}), {2: b"x", 1: None}),
           Done(Box((), frozenset(), {}), inner=Done(Box((Level.HIGH,), frozenset(), {}))),
           Done(Box((Plain(0, "é"),), frozenset(), {}), raw=b"\x01")]


@pytest.mark.parametrize("sample", SAMPLES, ids=repr)
def test_a_value_converts_as_the_rules_say_it_does(sample):
    fast = to_json(sample)
    assert json.dumps(fast, ensure_ascii=False) == json.dumps(messages._to_json(sample), ensure_ascii=False)
    assert to_json(sample) == fast  # the second time from the converter the first one made


def test_a_message_nested_in_another_keeps_its_type_name():
    data = to_json(Done(Box((), frozenset(), {}), inner=Done(Box((), frozenset(), {}))))
    assert data["data"]["inner"] == {"type": "test.converters.Done",
                                     "data": {"box": {"items": [], "tags": [], "extra": {}}, "inner": None, "raw": ""}}


def test_a_class_registered_after_its_first_encoding_encodes_with_its_type_name():
    @dataclasses.dataclass(frozen=True)
    class Late:
        n: int

    assert to_json(Late(1)) == {"n": 1}
    event("test.converters.Late")(Late)
    assert to_json(Late(1)) == {"type": "test.converters.Late", "data": {"n": 1}}


def test_what_cannot_be_encoded_is_still_a_type_error():
    with pytest.raises(TypeError, match="cannot encode object"):
        to_json(object())
    with pytest.raises(TypeError, match="cannot encode type"):
        to_json(Plain)
