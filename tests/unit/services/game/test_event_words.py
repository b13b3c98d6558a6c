"""A Watch stream's event data_json is json.dumps(data, ensure_ascii=False) to the byte
(clients and the web page parse it; nothing may tell it was made by a faster path)."""

import json

import pytest

from engine.core.messages import encode
from engine.table import Table, evolve
from services.game import feed, servicer
from services.game.feed import Batch
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
        assert servicer._event_fields(n + 1, [servicer._words(ev, encoded)]) == [{
            "version": n + 1, "type": name, "data_json": json.dumps(data, ensure_ascii=False)}]


@pytest.mark.parametrize("ruleset", ["koudian", "daqi"])
def test_a_watch_update_is_what_each_seat_may_see_numbered_as_it_counts(ruleset):
    # Seats that see the same events alike share one message: each must still get exactly its own.
    table, log = played(ruleset)
    seats = [None, *range(len(table.seats))]
    streams = {seat: servicer._Updates(seat, "nobody", False, 0, None) for seat in seats}
    state, told = Table(), {seat: 0 for seat in seats}
    for n, ev in enumerate(log):
        state = evolve(state, ev)
        batch = Batch(state.version, [(n + 1, ev)], state)
        for seat in seats:
            shown = feed.shown(state, seat, batch.events)
            update = streams[seat].after(Batch(batch.version, shown, state, encoded=batch.encoded))
            if not shown:
                assert update is None
                continue
            seen = state.seen_by(seat)
            name, _, data = encode(shown[0][1])
            assert seen == told[seat] + 1
            assert update.version == seen and [(e.version, e.type, e.data_json) for e in update.events] == [
                (seen, name, json.dumps(data, ensure_ascii=False))]
            told[seat] = seen


def test_what_json_cannot_write_is_still_refused():
    with pytest.raises(TypeError):
        servicer._JSON({"a": object()})
    assert servicer._JSON({"a": float("nan")}) == json.dumps({"a": float("nan")}, ensure_ascii=False)
