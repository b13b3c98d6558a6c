"""Local days, weeks and the check-in reward table (no database)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from services.ledger.calendar import local_day, next_day_start, week_key
from services.ledger.checkin import reward
from services.ledger.config import LedgerSettings

SHANGHAI = ZoneInfo("Asia/Shanghai")


def test_a_shanghai_day_starts_at_16_00_utc_the_day_before():
    assert local_day(datetime(2026, 11, 30, 15, 59, 59, tzinfo=UTC), SHANGHAI) == date(2026, 11, 30)
    assert local_day(datetime(2026, 11, 30, 16, 0, 0, tzinfo=UTC), SHANGHAI) == date(2026, 12, 1)
    assert next_day_start(datetime(2026, 11, 30, 16, 0, 0, tzinfo=UTC), SHANGHAI) == \
        datetime(2026, 12, 1, 16, 0, tzinfo=UTC)


def test_weeks_start_on_monday_and_use_iso_week_numbers():
    assert week_key(date(2026, 12, 6)) == "2026-W49"   # Sunday
    assert week_key(date(2026, 12, 7)) == "2026-W50"   # Monday
    assert week_key(date(2027, 1, 1)) == "2026-W53"


def test_the_reward_table_repeats_as_a_cycle():
    table = (10, 20, 30, 40, 50, 60, 100)
    assert [reward(day, table) for day in range(1, 16)] == [*table, *table, 10]


@pytest.mark.parametrize("variable, value, words", [
    ("timezone", "Mars/Olympus", "IANA"),
    ("checkin_rewards", "10,zero", "positive whole numbers"),
    ("checkin_rewards", "10,-5", "positive whole numbers"),
])
def test_bad_ledger_settings_are_refused_with_the_variable_named(variable, value, words):
    with pytest.raises(ValueError, match=words):
        LedgerSettings(**{variable: value})
