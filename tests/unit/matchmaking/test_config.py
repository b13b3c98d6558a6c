"""The queues file (services/matchmaking/config.py): sensible defaults for every ruleset, and
mistakes named at start."""

from __future__ import annotations

import dataclasses

import pytest

from engine import rulesets
from engine.bots.levels import level_of
from services.matchmaking.config import (
    SEATS,
    QueuesConfigError,
    load_queues,
    parse_queues,
    problems,
)
from services.matchmaking.seating import bot_id


def test_the_shipped_queues_offer_every_ruleset_and_every_preset_is_valid_for_its_ruleset():
    config = load_queues()
    assert set(config.rulesets()) == set(rulesets.available())
    assert problems(config) == {}
    assert config.find("koudian", "", "").name == "koudian/standard/bronze"


def test_a_table_has_four_seats_for_mahjong_and_five_for_daqi_as_the_engine_says():
    for name in rulesets.available():
        rs = rulesets.get(name)
        assert SEATS[name] == rs.seats(rs.options({}))
    assert SEATS["daqi"] == 5 and {SEATS[r] for r in ("koudian", "wuhan", "jj")} == {4}


def test_a_preset_its_ruleset_refuses_is_a_problem_naming_it():
    config = parse_queues({"rulesets": {"koudian": {"presets": {"odd": {"rounds_per_match": 999}},
                                                    "tiers": {"bronze": {"stake": 1}}}}})
    assert "rounds_per_match" in problems(config)["koudian/odd/bronze"]


@pytest.mark.parametrize("data, words", [
    ({"rulesets": {"poker": {"presets": {"s": {}}, "tiers": {"t": {}}}}}, "poker"),
    ({"rulesets": {"daqi": {"presets": {}, "tiers": {"t": {}}}}}, "at least one preset"),
    ({"rulesets": {"daqi": {"presets": {"s": {}}, "tiers": {"t": {"stake": -1}}}}}, "stake"),
    ({"rulesets": {"daqi": {"presets": {"s": {}}, "tiers": {"t": {"colour": "red"}}}}}, "colour"),
    ({}, "no queues"),
])
def test_a_mistake_in_the_queues_file_is_refused_naming_it(data, words):
    with pytest.raises(QueuesConfigError, match=words):
        parse_queues(data)


def test_the_band_widens_with_the_wait_up_to_its_most():
    spec = dataclasses.replace(load_queues().queues["daqi/standard/bronze"], band_start=100,
                               band_widen_per_s=50, band_max=400)
    assert [spec.band(ms) for ms in (0, 999, 1000, 4000, 60_000)] == [100, 149, 150, 300, 400]


def test_a_queue_names_the_level_of_the_bots_that_fill_its_tables():
    base = {"rulesets": {"koudian": {"presets": {"standard": {}}, "tiers": {"bronze": {"stake": 1}}}}}
    assert parse_queues(base).queues["koudian/standard/bronze"].bot_level == "easy"
    chosen = parse_queues({**base, "defaults": {"bot_level": "strong"}})
    assert chosen.queues["koudian/standard/bronze"].bot_level == "strong"


def test_an_unknown_bot_level_is_refused_naming_the_levels():
    bad = {"defaults": {"bot_level": "hard"},
           "rulesets": {"koudian": {"presets": {"standard": {}}, "tiers": {"bronze": {"stake": 1}}}}}
    with pytest.raises(QueuesConfigError, match="easy, normal, strong"):
        parse_queues(bad)


def test_a_bot_seat_s_id_names_its_level_and_old_ids_read_as_easy():
    assert bot_id("m-0123456789ab", 2) == "bot-0123456789ab-2"
    assert bot_id("m-0123456789ab", 2, "strong") == "bot-strong-0123456789ab-2"
    assert level_of(bot_id("m-0123456789ab", 2, "strong")) == "strong"
    assert level_of("bot-m1-1") == "easy"
