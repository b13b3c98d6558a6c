"""Local days and weeks: check-ins and leaderboard periods roll over at local midnight."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo


def local_day(now: datetime, zone: ZoneInfo) -> date:
    """The date at `now` (an aware datetime) in `zone`."""
    return now.astimezone(zone).date()


def day_start(day: date, zone: ZoneInfo) -> datetime:
    """Local midnight starting `day` (aware)."""
    return datetime.combine(day, time(), tzinfo=zone)


def next_day_start(now: datetime, zone: ZoneInfo) -> datetime:
    """The next local midnight after `now`."""
    return day_start(local_day(now, zone) + timedelta(days=1), zone)


def week_key(day: date) -> str:
    """The ISO week `day` falls in (weeks start on Monday), e.g. "2026-W49"."""
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"
