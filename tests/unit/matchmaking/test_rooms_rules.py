"""The rules of a private room (services/matchmaking/room.py), one test per rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.matchmaking import room as rules
from services.matchmaking.room import (
    BadRoomSettings,
    NotHost,
    NotInRoom,
    NotReadyToStart,
    Room,
    RoomFull,
    RoomNotOpen,
    RoomState,
)
from services.matchmaking.room_codes import new_code, parse, share

EXPIRY = 30 * 60 * 1000
LEASE = 15_000
T0 = 1_700_000_000_000


def a_room(ruleset: str = "koudian", **options: object) -> Room:
    chosen = rules.settings(ruleset, options, 100, 0)
    return rules.new_room("123456", "room-1", "ann", chosen, True, T0, EXPIRY)


def full_room(ruleset: str = "koudian") -> Room:
    room = a_room(ruleset)
    for i, player in enumerate(["bob", "cy", "dee", "eve"][: room.settings.seats - 1]):
        room = rules.join(room, player, T0 + i + 1, EXPIRY)
    return room


def all_ready(room: Room) -> Room:
    for m in room.members:
        room = rules.set_ready(room, m.player_id, True, T0 + 10, EXPIRY)
    return room


def test_a_new_room_is_open_with_its_host_in_the_first_seat_not_ready():
    room = a_room()
    assert room.state is RoomState.OPEN and room.host == "ann"
    assert room.members == (rules.Member("ann", 0, False),)
    assert room.version == 1 and room.expires_at_ms == T0 + EXPIRY


def test_a_mahjong_room_has_4_seats_and_a_daqi_room_5():
    assert a_room("koudian").settings.seats == 4
    assert a_room("wuhan").settings.seats == 4
    assert a_room("jj").settings.seats == 4
    assert a_room("daqi").settings.seats == 5


def test_joining_takes_the_lowest_free_seat():
    room = rules.join(a_room(), "bob", T0 + 1, EXPIRY)
    room = rules.join(room, "cy", T0 + 2, EXPIRY)
    room = rules.leave(room, "bob", T0 + 3, EXPIRY)
    room = rules.join(room, "dee", T0 + 4, EXPIRY)
    assert {m.player_id: m.seat for m in room.members} == {"ann": 0, "cy": 2, "dee": 1}


def test_joining_again_keeps_the_seat_and_changes_nothing():
    room = rules.join(a_room(), "bob", T0 + 1, EXPIRY)
    assert rules.join(room, "bob", T0 + 2, EXPIRY) is room


def test_a_full_room_refuses_another_player():
    with pytest.raises(RoomFull, match="full"):
        rules.join(full_room(), "zed", T0 + 20, EXPIRY)


def test_every_change_grows_the_version_and_pushes_the_expiry_back():
    room = a_room()
    joined = rules.join(room, "bob", T0 + 5_000, EXPIRY)
    assert joined.version == room.version + 1 and joined.expires_at_ms == T0 + 5_000 + EXPIRY


def test_only_the_host_may_kick():
    room = rules.join(a_room(), "bob", T0 + 1, EXPIRY)
    room = rules.join(room, "cy", T0 + 2, EXPIRY)
    with pytest.raises(NotHost):
        rules.kick(room, "bob", "cy", T0 + 3, EXPIRY)
    kicked = rules.kick(room, "ann", "cy", T0 + 3, EXPIRY)
    assert [m.player_id for m in kicked.members] == ["ann", "bob"]


def test_the_host_cannot_kick_themselves_nor_a_stranger():
    room = rules.join(a_room(), "bob", T0 + 1, EXPIRY)
    with pytest.raises(BadRoomSettings):
        rules.kick(room, "ann", "ann", T0 + 2, EXPIRY)
    with pytest.raises(rules.NoSuchMember, match="zed is not in room 123456: nobody to kick"):
        rules.kick(room, "ann", "zed", T0 + 2, EXPIRY)


def test_a_stranger_can_neither_get_ready_nor_leave():
    with pytest.raises(NotInRoom):
        rules.set_ready(a_room(), "zed", True, T0, EXPIRY)
    with pytest.raises(NotInRoom):
        rules.leave(a_room(), "zed", T0, EXPIRY)


def test_changing_the_options_before_the_start_resets_everyones_ready():
    room = all_ready(full_room())
    changed = rules.change(room, "ann", rules.settings("koudian", {"base_score": 2}, 100, 0),
                           T0 + 20, EXPIRY)
    assert changed.settings.options == {"base_score": 2}
    assert not any(m.ready for m in changed.members)


def test_only_the_host_may_change_the_options():
    room = rules.join(a_room(), "bob", T0 + 1, EXPIRY)
    with pytest.raises(NotHost):
        rules.change(room, "bob", rules.settings("koudian", {}, 5, 0), T0 + 2, EXPIRY)


def test_options_are_checked_like_create_table_naming_the_option_and_its_range():
    with pytest.raises(BadRoomSettings, match=r"base_score.*1\.\.1000"):
        rules.settings("koudian", {"base_score": 5000}, 100, 0)
    with pytest.raises(BadRoomSettings, match="unknown koudian option 'nope'"):
        rules.settings("koudian", {"nope": 1}, 100, 0)
    with pytest.raises(BadRoomSettings, match="unknown ruleset"):
        rules.settings("poker", {}, 100, 0)
    with pytest.raises(BadRoomSettings, match=r"stake must be .* from 0 \(a free room: no chips move\) to"):
        rules.settings("koudian", {}, -1, 0)


def test_stake_0_is_a_free_room_which_takes_no_chip_options():
    assert rules.settings("koudian", {}, 0, 0).stake == 0
    for chips in ({"stake": 5}, {"buy_in": 100}):
        with pytest.raises(BadRoomSettings, match="free room .* moves no chips"):
            rules.settings("koudian", chips, 0, 0)


def test_a_rooms_stake_is_its_buy_in_so_a_different_buy_in_option_is_refused():
    with pytest.raises(BadRoomSettings, match=r"stake \(100\) is what each seat buys in with"):
        rules.settings("koudian", {"buy_in": 50}, 100, 0)
    assert rules.settings("koudian", {"stake": 2}, 100, 0).options == {"stake": 2}


def test_rounds_set_the_rulesets_rounds_per_match_within_its_range():
    assert rules.settings("koudian", {}, 0, 8).options["rounds_per_match"] == 8
    with pytest.raises(BadRoomSettings, match=r"rounds_per_match.*1\.\.64"):
        rules.settings("koudian", {}, 0, 100)
    with pytest.raises(BadRoomSettings, match="no set number of rounds"):
        rules.settings("daqi", {}, 0, 4)


def test_a_room_starts_only_with_every_seat_taken_and_ready():
    room = rules.join(a_room(), "bob", T0 + 1, EXPIRY)
    with pytest.raises(NotReadyToStart, match="seat"):
        rules.begin_start(room, "ann", T0 + 2, EXPIRY, LEASE)
    room = full_room()
    with pytest.raises(NotReadyToStart, match="not ready"):
        rules.begin_start(room, "ann", T0 + 2, EXPIRY, LEASE)
    starting = rules.begin_start(all_ready(room), "ann", T0 + 30, EXPIRY, LEASE)
    assert starting.starting and starting.state is RoomState.OPEN


def test_a_room_with_bots_starts_before_it_is_full_once_its_members_are_ready():
    practice = rules.join(rules.new_room("123456", "room-1", "ann", rules.settings("koudian", {}, 0, 0, "strong"),
                                         True, T0, EXPIRY), "bob", T0 + 1, EXPIRY)
    with pytest.raises(NotReadyToStart, match="not ready: ann, bob"):
        rules.begin_start(practice, "ann", T0 + 2, EXPIRY, LEASE)
    starting = rules.begin_start(all_ready(practice), "ann", T0 + 30, EXPIRY, LEASE)
    assert starting.starting and starting.settings.bots == "strong"
    assert rules.loads(rules.dumps(starting)) == starting


def test_a_rooms_bots_are_a_level_it_knows():
    with pytest.raises(BadRoomSettings, match="easy, normal, strong"):
        rules.settings("koudian", {}, 0, 0, "grandmaster")


def test_only_the_host_may_start():
    with pytest.raises(NotHost):
        rules.begin_start(all_ready(full_room()), "bob", T0 + 30, EXPIRY, LEASE)


def test_a_starting_room_fixes_its_members_and_settings():
    starting = rules.begin_start(all_ready(full_room()), None, T0 + 30, EXPIRY, LEASE)
    with pytest.raises(RoomNotOpen):
        rules.leave(starting, "bob", T0 + 31, EXPIRY)
    with pytest.raises(RoomNotOpen):
        rules.kick(starting, "ann", "bob", T0 + 31, EXPIRY)
    with pytest.raises(RoomNotOpen):
        rules.join(starting, "zed", T0 + 31, EXPIRY)
    assert rules.begin_start(starting, None, T0 + 32, EXPIRY, LEASE) is starting  # its maker is on it


def test_a_start_whose_lease_ran_out_is_taken_over_and_carries_on_with_the_same_match():
    starting = rules.begin_start(all_ready(full_room()), "ann", T0 + 30, EXPIRY, LEASE)
    assert rules.take_over_start(starting, T0 + 30 + LEASE - 1, EXPIRY, LEASE) is starting
    taken = rules.take_over_start(starting, T0 + 30 + LEASE, EXPIRY, LEASE)
    assert taken.starting and taken.room_id == starting.room_id
    assert taken.start_until_ms == T0 + 30 + 2 * LEASE and taken.version == starting.version + 1
    # The host starting again after the lease ran out takes it over the same way.
    assert rules.begin_start(starting, "ann", T0 + 30 + LEASE, EXPIRY, LEASE).start_until_ms == (
        taken.start_until_ms)


def test_only_a_starting_room_is_taken_over():
    ready = all_ready(full_room())
    assert rules.take_over_start(ready, T0 + 10 * LEASE, EXPIRY, LEASE) is ready


def test_the_process_making_the_table_renews_its_lease_unless_another_took_it_over():
    starting = rules.begin_start(all_ready(full_room()), "ann", T0 + 30, EXPIRY, LEASE)
    renewed = rules.extend_start(starting, starting.start_until_ms, T0 + 5000, LEASE)
    assert renewed.start_until_ms == T0 + 5000 + LEASE
    taken = rules.take_over_start(starting, T0 + 30 + LEASE, EXPIRY, LEASE)
    assert rules.extend_start(taken, starting.start_until_ms, T0 + 5000, LEASE) is taken


def test_a_started_room_has_its_table_and_takes_nobody_new():
    starting = rules.begin_start(all_ready(full_room()), "ann", T0 + 30, EXPIRY, LEASE)
    room = rules.started(starting, "table-abc", T0 + 31, EXPIRY)
    assert room.state is RoomState.STARTED and room.table_id == "table-abc" and not room.starting
    with pytest.raises(RoomNotOpen):
        rules.set_ready(room, "bob", False, T0 + 32, EXPIRY)


def test_a_failed_start_reopens_the_room_and_unreadies_who_it_failed_for():
    starting = rules.begin_start(all_ready(full_room()), "ann", T0 + 30, EXPIRY, LEASE)
    room = rules.start_failed(starting, ("cy",), T0 + 31, EXPIRY)
    assert not room.starting and room.state is RoomState.OPEN and room.start_until_ms == 0
    assert [m.player_id for m in room.members if not m.ready] == ["cy"]
    assert room.match_id != starting.match_id == starting.room_id  # the next start: a new table
    again = rules.start_failed(starting, (), T0 + 31, EXPIRY, new_table=False)
    assert again.match_id == starting.match_id  # members may sit at this one: go on with it


def test_a_leaving_host_hands_the_room_to_the_member_who_joined_earliest():
    room = rules.join(a_room(), "bob", T0 + 1, EXPIRY)
    room = rules.join(room, "cy", T0 + 2, EXPIRY)
    left = rules.leave(room, "ann", T0 + 3, EXPIRY)
    assert left.host == "bob" and left.state is RoomState.OPEN


def test_the_last_one_leaving_closes_the_room():
    closed = rules.leave(a_room(), "ann", T0 + 1, EXPIRY)
    assert closed.state is RoomState.CLOSED and closed.closed_reason == "empty" and not closed.live


def test_a_room_nobody_acts_in_expires():
    room = a_room()
    assert rules.expire(room, T0 + EXPIRY - 1) is room
    expired = rules.expire(room, T0 + EXPIRY)
    assert expired.state is RoomState.CLOSED and expired.closed_reason == "expired"
    assert expired.version == room.version + 1


def test_a_room_survives_as_json():
    room = rules.begin_start(all_ready(full_room("daqi")), "ann", T0 + 30, EXPIRY, LEASE)
    assert rules.loads(rules.dumps(room)) == room


# -- codes --------------------------------------------------------------------------------------


def test_a_code_is_six_digits_leading_zeros_kept():
    assert new_code(lambda n: 42) == "000042"


def test_join_accepts_the_code_or_the_share_string():
    assert parse("012345") == "012345"
    assert parse(share("012345")) == "012345"
    assert parse(" qipai://room/012345/ ") == "012345"
    for bad in ("12345", "1234567", "abcdef", "qipai://room/", "qipai://table/123456", "１２３４５６"):
        assert parse(bad) is None


@given(st.integers(0, 999_999))
def test_every_code_parses_back_from_its_share_string(n):
    code = new_code(lambda _: n)
    assert parse(share(code)) == code and len(code) == 6


@given(st.lists(st.sampled_from(["join", "leave", "ready", "unready", "kick"]), max_size=40),
       st.lists(st.sampled_from(["ann", "bob", "cy", "dee", "eve", "fay"]), min_size=40, max_size=40))
def test_seats_are_never_shared_and_never_more_than_the_room_has(ops, players):
    room = a_room()
    for i, (op, player) in enumerate(zip(ops, players, strict=False)):
        try:
            if op == "join":
                room = rules.join(room, player, T0 + i, EXPIRY)
            elif op == "leave":
                room = rules.leave(room, player, T0 + i, EXPIRY)
            elif op in ("ready", "unready"):
                room = rules.set_ready(room, player, op == "ready", T0 + i, EXPIRY)
            else:
                room = rules.kick(room, room.host, player, T0 + i, EXPIRY)
        except (RoomFull, NotInRoom, rules.NoSuchMember, BadRoomSettings, rules.RoomNotFound):
            continue
        seats = [m.seat for m in room.members]
        assert len(seats) == len(set(seats)) <= room.settings.seats
        assert all(0 <= s < room.settings.seats for s in seats)
        assert room.state is RoomState.CLOSED or room.member(room.host) is not None
