"""每日签到: one reward per player per local day, growing with the streak of consecutive days.

A check-in is the transfer `checkin/<player>/<local date>` from the house; its details carry
the streak, so the transfer ids alone say who checked in when, and two taps at once can only
post one reward.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from . import accounts
from .transfers import Posted, Transfer


@dataclass(frozen=True)
class CheckInState:
    today: date
    checked_in_today: bool
    streak: int          # consecutive days up to today if checked in, else up to yesterday
    reward: int          # today's reward if checked in, else the one waiting
    next_check_in_at: datetime
    time_zone: str


def transfer_id(player_id: str, day: date) -> str:
    return f"checkin/{player_id}/{day.isoformat()}"


def reward(streak: int, rewards: tuple[int, ...]) -> int:
    """The reward for day `streak` (1-based) of a streak; the table repeats as a cycle."""
    return rewards[(streak - 1) % len(rewards)]


def streak_after(yesterday: Posted | None) -> int:
    """Today's streak day: one more than yesterday's, or 1 if yesterday was missed."""
    return 1 if yesterday is None else int(yesterday.transfer.details.get("streak", "0")) + 1


def reward_transfer(player_id: str, day: date, streak: int, rewards: tuple[int, ...]) -> Transfer:
    return Transfer(
        transfer_id(player_id, day), accounts.HOUSE, accounts.player(player_id),
        reward(streak, rewards), "checkin", reason=f"daily check-in, day {streak} of the streak",
        details={"streak": str(streak), "day": day.isoformat()},
    )


def yesterday(day: date) -> date:
    return day - timedelta(days=1)
