"""A claimed discard leaves the discarder's river (jj.md, "Play"): a pong or chow takes the tile
into the claimer's meld, so it is seen once, by every client and by 和绝张's count, which counts
the tiles seen before the winning one. Tables recorded before these rules (no
`claimed_tile_leaves_river`, no `last_tile_counts_its_discard`) replay as they were played."""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine import table as tables
from engine.core.messages import decode, encode, message_to_json
from engine.driver import fold
from engine.jj import RULESET
from engine.jj.events import Chowed, Won
from engine.jj.situation import visible
from engine.mahjong.tiles import parse_tile
from engine.scenario import run_scenario
from services.eventstore.records import GlobalPosition, RecordedEvent
from services.game.verify import verify

PLAYERS = ["ann", "bob", "cy", "dee"]
FOLDER = Path(__file__).resolve().parents[2] / "scenarios" / "jj"


def pong_beats_chow(**options: Any):
    """The dealer discards 3p, seat 2 pongs it (tests/scenarios/jj/pong_beats_chow.json)."""
    spec = json.loads((FOLDER / "pong_beats_chow.json").read_text(encoding="utf-8"))
    return run_scenario({**spec, "options": {**spec["options"], **options}})


# Seat 1 chows the dealer's 3s; seat 2 discards the second 3s (the dealer, waiting on 3s, passes);
# the dealer draws the third 3s and wins. Only two 3s were out: it is not the last tile of its kind.
CHOW_THEN_SELF_DRAW = {
    "ruleset": "jj",
    "options": {"wild": "none", "min_fan": 0},
    "deal": {
        "dealer": 0,
        "hands": ["123m 456m 789m 123s 99p",
                  "45s 1p 4p 7p 2p 5p 8p E S W N C",
                  "3s 6s 9s 3p 6p 7s 8s E S W N F P",
                  "2m 3m 5m 6m 8m 9m 1p 2p 4p 5p E S W"],
        "wall": "F N 3s",
    },
    "actions": [
        {"seat": 0, "action": "discard", "tile": "3s"},
        {"seat": 1, "action": "chow", "low": "3s"},
        {"seat": 1, "action": "discard", "tile": "C"},
        {"seat": 2, "action": "discard", "tile": "3s"},
        {"seat": 0, "action": "pass"},
        {"seat": 3, "action": "discard", "tile": "N"},
        {"seat": 0, "action": "win"},
    ],
}


def chow_then_self_draw(**options: Any):
    return run_scenario({**CHOW_THEN_SELF_DRAW, "options": {**CHOW_THEN_SELF_DRAW["options"], **options}})


def rivers(state) -> list[str]:
    return [" ".join(str(t) for t in sh.river) for sh in state.hand.seats]


def test_a_ponged_tile_leaves_the_discarders_river():
    played = pong_beats_chow()
    state = played.after[-1]
    assert rivers(state)[0] == ""
    assert [str(m.tile) for m in state.hand.seats[2].melds] == ["3p"]
    assert RULESET.check(state) == []


def test_a_chowed_tile_leaves_the_discarders_river():
    played = chow_then_self_draw()
    state = played.after[2]  # the chow
    assert rivers(state)[0] == ""
    assert [(str(m.tile), m.kind, m.source) for m in state.hand.seats[1].melds] == [("3s", "chow", 0)]
    assert RULESET.check(state) == []


def test_every_seat_sees_the_claimed_tile_once():
    state = pong_beats_chow().after[-1]
    for seat in range(4):
        view = RULESET.view(state, seat)
        shown = [t for river in view.rivers for t in river] + [t for sh in state.hand.seats for m in sh.melds for t in m.tiles]
        assert shown.count(parse_tile("3p")) == 3


def test_the_last_tile_counts_a_claimed_tile_once_so_a_third_tile_is_not_the_last_of_its_kind():
    played = chow_then_self_draw()
    before_win = played.after[-2]
    assert visible(before_win.hand)[parse_tile("3s")] == 2  # the chowed one and seat 2's discard
    (won,) = [e for e in played.events if isinstance(e, Won)]
    assert won.seat == 0 and won.how == "self_draw"
    assert "和绝张" not in {f.name for f in won.scored.fans}


# The dealer discards 3s, seat 2 pongs it (three 3s seen), seat 3 draws the fourth and discards
# it, and the dealer wins on it: the last tile of its kind.
PONG_THEN_LAST_TILE = {
    "ruleset": "jj",
    "options": {"wild": "none", "min_fan": 0},
    "deal": {
        "dealer": 0,
        "hands": ["123m 456m 789m 123s 99p",
                  "1p 4p 7p 2p 5p 8p 6s 9s E S W N C",
                  "3s 3s 3p 6p 7s 8s E S W N F P C",
                  "2m 3m 5m 6m 8m 9m 1p 2p 4p 5p E S W"],
        "wall": "3s",
    },
    "actions": [
        {"seat": 0, "action": "discard", "tile": "3s"},
        {"seat": 2, "action": "pong", "tile": "3s"},
        {"seat": 2, "action": "discard", "tile": "C"},
        {"seat": 3, "action": "discard", "tile": "3s"},
        {"seat": 0, "action": "win"},
    ],
}
# As CHOW_THEN_SELF_DRAW, but seat 3 draws the third 3s and discards it, and the dealer wins on it.
CHOW_THEN_THIRD_TILE = {
    **CHOW_THEN_SELF_DRAW,
    "deal": {**CHOW_THEN_SELF_DRAW["deal"], "wall": "F 3s"},
    "actions": [*CHOW_THEN_SELF_DRAW["actions"][:5],
                {"seat": 3, "action": "discard", "tile": "3s"}, {"seat": 0, "action": "win"}],
}
OLD_RULES = {"claimed_tile_leaves_river": 0, "last_tile_counts_its_discard": 1}


def won_fans(spec: dict[str, Any], **options: Any) -> set[str]:
    played = run_scenario({**spec, "options": {**spec["options"], **options}})
    (won,) = [e for e in played.events if isinstance(e, Won)]
    return {f.name for f in won.scored.fans}


def test_the_last_tile_on_a_discard_after_a_pong_is_the_fourth_with_three_seen():
    assert "和绝张" in won_fans(PONG_THEN_LAST_TILE)
    # Recorded before: the ponged 3s counted twice and the winning discard once: five "seen".
    assert "和绝张" not in won_fans(PONG_THEN_LAST_TILE, **OLD_RULES)


def test_the_last_tile_does_not_count_the_winning_discard_among_the_tiles_seen():
    assert "和绝张" not in won_fans(CHOW_THEN_THIRD_TILE)  # two 3s seen before it: it is the third
    assert "和绝张" in won_fans(CHOW_THEN_THIRD_TILE, last_tile_counts_its_discard=1)  # as recorded before


def test_a_table_recorded_before_the_rule_keeps_the_claimed_tile_on_the_river_and_scores_as_it_did():
    old = chow_then_self_draw(claimed_tile_leaves_river=0)
    assert rivers(old.after[2])[0] == "3s"
    assert rivers(pong_beats_chow(claimed_tile_leaves_river=0).after[-1])[0] == "3p"
    (won,) = [e for e in old.events if isinstance(e, Won)]
    assert "和绝张" in {f.name for f in won.scored.fans}  # the 3s chowed counted twice, as it was scored


def test_an_old_record_without_the_option_replays_as_it_was_played():
    played = chow_then_self_draw(**OLD_RULES)
    stored = []
    for ev in played.events:
        name, schema, data = encode(ev)
        if name == "jj.TableCreated":  # as recorded before the options existed
            for key, value in OLD_RULES.items():
                assert data["options"].pop(key) == value
        stored.append(decode(name, schema, data))
    assert stored[0].options == RULESET.new_options({"wild": "none", "min_fan": 0, **OLD_RULES})
    assert fold(RULESET, stored) == played.state
    chowed = next(n for n, ev in enumerate(stored) if isinstance(ev, Chowed))
    assert rivers(fold(RULESET, stored[: chowed + 1]))[0] == "3s"


def test_only_a_table_created_now_plays_the_fixed_rules():
    old, new = RULESET.options(), RULESET.new_options()  # a record without the options; a new table
    assert (old.claimed_tile_leaves_river, old.last_tile_counts_its_discard) == (0, 1)
    assert (new.claimed_tile_leaves_river, new.last_tile_counts_its_discard) == (1, 0)


def test_a_table_created_under_the_previous_rules_revision_verifies_as_recorded():
    # Created under rules 1 (claim windows hide who can claim), before this rule: its
    # table.Created holds claim_window but no claimed_tile_leaves_river, and re-deciding the
    # CreateTable must give exactly that.
    steps = played(rules=1)
    options = steps[0][1][0].options
    assert options["claim_window"] == 2 and not set(OLD_RULES) & set(options)
    assert steps[0][1][1].options == RULESET.options({"claim_window": 2})
    check = verify(recorded(steps, before_the_option=True))
    assert check.ok and check.commands_checked == len(steps), check.problems


def test_a_table_created_now_records_that_a_claimed_tile_leaves_the_river_and_verifies():
    steps = played(rules=tables.RULES)
    assert steps[0][1][0].options["claimed_tile_leaves_river"] == 1
    assert steps[0][1][0].options["last_tile_counts_its_discard"] == 0
    assert steps[0][1][1].options == RULESET.new_options()
    check = verify(recorded(steps))
    assert check.ok and check.commands_checked == len(steps), check.problems


def played(rules: int) -> list[tuple[Any, list[Any]]]:
    """A jj table's commands with their events: created, four seated and ready, the first
    decisions left to the clock (auto-play)."""
    table, steps = tables.Table(), []

    def run(cmd: Any) -> None:
        nonlocal table
        events = tables.decide(table, cmd)
        steps.append((cmd, events))
        table = functools.reduce(tables.evolve, events, table)

    run(tables.CreateTable("t", "jj", {}, "ann", private=False, rules=rules))
    for p in PLAYERS:
        run(tables.Sit(p))
    for n, p in enumerate(PLAYERS):
        run(tables.Ready(p, bytes([n + 7]) * 16, b"salt"))
    for _ in range(30):
        run(tables.Timeout(table.version, b"seed", b"salt"))
    return steps


def recorded(steps: list[tuple[Any, list[Any]]], before_the_option: bool = False) -> list[RecordedEvent]:
    """The steps as the event store holds them, each command in its first event's metadata;
    `before_the_option`: the creation events without the options of rules revision 2."""
    out, version = [], 0
    for cmd, events in steps:
        for i, ev in enumerate(events):
            version += 1
            name, schema, data = encode(ev)
            if before_the_option and name in ("table.Created", "jj.TableCreated"):
                options = {k: v for k, v in data["options"].items() if k not in OLD_RULES}
                data = {**data, "options": options}
            meta = {"command": message_to_json(cmd)} if i == 0 else {}
            out.append(RecordedEvent("t", version, GlobalPosition(0, version), name, schema, data, meta,
                                     datetime.now(UTC)))
    return out
