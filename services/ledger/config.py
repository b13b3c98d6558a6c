"""The ledger's settings (QIPAI_LEDGER_*), read once like the rest of services/config.py."""

from __future__ import annotations

import functools
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class LedgerSettings(BaseSettings):
    """See README "The ledger" for each variable."""

    model_config = SettingsConfigDict(env_prefix="QIPAI_LEDGER_", extra="ignore", frozen=True)

    timezone: str = Field("Asia/Shanghai", description="where a day (check-in, leaderboards) starts")
    welcome_chips: int = Field(1000, ge=0, le=2**53, description="a new player's first grant (0: none)")
    checkin_rewards: str = Field(
        "10,20,30,40,50,60,100",
        description="reward per streak day, comma-separated; the cycle repeats after the last",
    )

    @field_validator("timezone")
    @classmethod
    def _zone(cls, v: str) -> str:
        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"QIPAI_LEDGER_TIMEZONE {v!r} is not an IANA time zone such as Asia/Shanghai") from None
        return v

    @field_validator("checkin_rewards")
    @classmethod
    def _rewards(cls, v: str) -> str:
        try:
            rewards = [int(x) for x in v.split(",")]
        except ValueError:
            rewards = []
        if not rewards or any(r <= 0 or r > 2**53 for r in rewards):
            raise ValueError("QIPAI_LEDGER_CHECKIN_REWARDS must be positive whole numbers, e.g. 10,20,30")
        return v

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def rewards(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.checkin_rewards.split(","))


@functools.cache
def ledger_settings() -> LedgerSettings:
    return LedgerSettings()
