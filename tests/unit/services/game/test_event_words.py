"""A Watch stream's event data_json is json.dumps(data, ensure_ascii=False) to the byte
(clients and the web page parse it; nothing may tell it was made by a faster path)."""

import json

import pytest

from engine.core.messages import encode
from services.game import servicer
from tests.unit.table.test_numbering import played

DATA = [{}, {"a": None, "b": True, "c": False}, {"tile": "5m", "seat": 0, "n": -2**70},
        {"x": 1.5, "y": -0.0, "z": 1e300, "w": 0.1}, {"南": "風", "emoji": "🀄", "esc": "\"\\\n\t\u2028"},
        {"nested": [[], [1, [2, {"k": "v"}]], {"": ""}]}, {"3": 1, "1": 2, "2": 3}]


@pytest.mark.parametrize("data", DATA, ids=repr)
def test_the_text_is_what_json_dumps_writes(data):
    assert servicer._JSON(data) == json.dumps(data, ensure_ascii=False)


@pytest.mark.parametrize("ruleset", ["koudian", "daqi"])
def test_every_event_of_a_played_table_is_put_into_the_words_json_dumps_gives(ruleset):
    _, log = played(ruleset)
    encoded: dict = {}
    for n, ev in enumerate(log):
        name, _, data = encode(ev)
        assert servicer._event_fields(n + 1, ev, encoded) == {
            "version": n + 1, "type": name, "data_json": json.dumps(data, ensure_ascii=False)}


def test_what_json_cannot_write_is_still_refused():
    with pytest.raises(TypeError):
        servicer._JSON({"a": object()})
    assert servicer._JSON({"a": float("nan")}) == json.dumps({"a": float("nan")}, ensure_ascii=False)
