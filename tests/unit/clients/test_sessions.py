"""What `qipai play` keeps to take a seat back: the seat's token and its bots', per table."""

import stat

from clients import sessions
from protocol import tokens


def test_a_kept_seat_is_found_by_its_table_and_by_its_player_the_latest_first(tmp_path):
    bots = (sessions.BotSeat(1, "guest-b1", "tb1"),)
    first = sessions.Session("table-1", "guest-ann", "t1", "greedy", bots)
    sessions.save(first, tmp_path)
    sessions.save(sessions.Session("table-2", "guest-bob", "t2"), tmp_path)
    assert sessions.load("table-1", tmp_path) == first
    assert sessions.of_player("guest-ann", tmp_path) == [first]
    assert stat.S_IMODE((tmp_path / "table-1.json").stat().st_mode) == 0o600  # tokens are logins
    sessions.forget("table-1", tmp_path)
    assert sessions.load("table-1", tmp_path) is None and sessions.of_player("guest-ann", tmp_path) == []


def test_nothing_kept_is_nothing_found(tmp_path):
    assert sessions.of_player("guest-ann", tmp_path / "none") == []
    (tmp_path / "table-9.json").write_text("not json")
    assert sessions.load("table-9", tmp_path) is None


def test_a_tokens_player_is_read_from_its_claims():
    token, _ = tokens.issue("secret", "guest-ann")
    assert sessions.player_of(token) == "guest-ann"
    assert sessions.player_of("garbage") == ""
