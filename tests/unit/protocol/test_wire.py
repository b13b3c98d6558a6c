"""The gRPC edge mirrors the engine: every command has its action message, every view fits."""

import random

import pytest
from google.protobuf import struct_pb2

from engine import rulesets
from engine.core.contract import StartHand, Status
from engine.core.messages import _by_name
from engine.driver import apply, fold
from engine.selfplay import hand_secrets
from protocol import wire

RULESETS = ["koudian", "daqi", "wuhan", "jj"]


def _commands_of(family: str) -> list[type]:
    return [e.cls for name, e in _by_name.items() if e.kind == "command" and name.startswith(family + ".")]


def _games(name: str, hands: int = 2, seed: int = 3):
    """Every state of a few random-bot hands, with the commands that led there."""
    rs = rulesets.get(name)
    opts = rs.options({})
    rng = random.Random(seed)
    log = list(rs.create("t", opts))
    state = fold(rs, log)
    for hand in range(1, hands + 1):
        state = apply(rs, state, StartHand(*hand_secrets(seed, hand)), log)
        while rs.status(state) is Status.IN_HAND:
            yield rs, state
            deadline = rs.deadline(state)
            seat = next(iter(deadline.defaults))
            if seat is None:
                cmd = deadline.defaults[None]
            else:
                cmd = rs.bots["random"](rs.view(state, seat), rs.legal_actions(state, seat), rng)
            state = apply(rs, state, cmd, log)


@pytest.mark.parametrize("name", RULESETS)
def test_every_legal_action_travels_to_the_wire_and_back_unchanged(name):
    seen = set()
    for rs, state in _games(name):
        for seat in range(rs.seats(rs.options({}))):
            for cmd in rs.legal_actions(state, seat)[:50]:
                if type(cmd) in seen and len(seen) > 3:
                    continue
                seen.add(type(cmd))
                assert wire.action_to_command(wire.command_to_action(cmd), seat) == cmd


@pytest.mark.parametrize("name", RULESETS)
def test_every_view_of_a_random_game_fits_its_message(name):
    for rs, state in _games(name):
        for seat in [None, *range(rs.seats(rs.options({})))]:
            wire.view_to_proto(name, rs.view(state, seat))


@pytest.mark.parametrize("family", ["mahjong", "daqi"])
def test_every_player_command_of_a_family_has_its_action_message(family):
    from qipai.v1 import actions_pb2

    group = getattr(actions_pb2.Action(), family)
    kinds = {f.name for f in group.DESCRIPTOR.oneofs_by_name["kind"].fields}
    # Commands the table clock or the operator sends are not player actions.
    internal = {"DealNext", "FixedDeal", "CloseClaims"}
    names = {c.__name__ for c in _commands_of(family)} - internal
    assert {wire._snake(n) for n in names} <= kinds


def test_an_empty_action_is_a_bad_request():
    from qipai.v1 import actions_pb2

    with pytest.raises(wire.BadRequest, match="empty"):
        wire.action_to_command(actions_pb2.Action(), 0)


def test_a_bad_tile_is_a_bad_request_naming_it():
    from qipai.v1 import actions_pb2

    action = actions_pb2.Action()
    action.mahjong.discard.tile = "0m"
    with pytest.raises(wire.BadRequest, match="0m"):
        wire.action_to_command(action, 0)


@pytest.mark.parametrize("name", RULESETS)
def test_a_view_read_back_from_the_wire_equals_the_engine_view(name):
    for n, (rs, state) in enumerate(_games(name, hands=1)):
        if n % 7:
            continue
        for seat in range(rs.seats(rs.options({}))):
            view = rs.view(state, seat)
            assert wire.view_from_proto(name, wire.view_to_proto(name, view), type(view)) == view


def test_a_view_without_a_trump_suit_reads_back_from_the_wire():
    from engine.daqi.trumps import Trumps
    from engine.daqi.view import View

    view = View(seat=1, phase="playing", options=None, scores=(0,) * 5, trumps=Trumps(None))
    assert wire.view_from_proto("daqi", wire.view_to_proto("daqi", view), View) == view


# -- options Structs ------------------------------------------------------------------------------


def _struct(items: dict) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(items)
    return struct


def test_an_options_struct_becomes_plain_values_whole_numbers_ints_at_any_depth():
    options = wire.options_from_struct(_struct({"base": 2.0, "rate": 0.5, "thresholds": [80.0, 120.0],
                                                "seven_pairs": True, "name": "x", "none": None}))
    assert options == {"base": 2, "rate": 0.5, "thresholds": [80, 120], "seven_pairs": True,
                       "name": "x", "none": None}
    assert type(options["thresholds"][0]) is int


def test_a_whole_number_beyond_2_to_the_53_stays_a_float_for_the_options_own_check():
    struct = struct_pb2.Struct()
    struct.update({"base": 2.0**60, "small": 2.0**53})
    options = wire.options_from_struct(struct)
    assert type(options["base"]) is float and type(options["small"]) is int


@pytest.mark.parametrize(("items", "named"), [
    ({"base": float("nan")}, "options.base: nan is not a finite number"),
    ({"base": float("-inf")}, "options.base: -inf is not a finite number"),
    ({"t": [1, [2, float("inf")]]}, "options.t[1][1]: inf is not a finite number"),
    ({"a": {"b": {"c": {"d": {"e": 1}}}}}, "options.a.b.c.d: nested deeper than 4 levels"),
    ({"t": [[[[1]]]]}, "options.t[0][0][0]: nested deeper than 4 levels"),
    ({"s": "x" * 257}, "options.s: a string longer than 256 characters"),
    ({"k" * 65: 1}, "options: a key longer than 64 characters"),
    ({"t": list(range(65))}, "options.t: more than 64 entries"),
    ({f"k{n}": n for n in range(65)}, "options: more than 64 entries"),
])
def test_an_option_no_ruleset_could_mean_is_a_bad_request_naming_its_path(items, named):
    with pytest.raises(wire.BadRequest) as err:
        wire.options_from_struct(_struct(items))
    assert named in str(err.value)


def test_options_as_deep_as_allowed_pass():
    assert wire.options_from_struct(_struct({"a": {"b": {"c": {"d": 1}}}, "t": [[[1]]]})) == {
        "a": {"b": {"c": {"d": 1}}}, "t": [[[1]]]}
