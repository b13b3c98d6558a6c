"""The private rooms' settings (QIPAI_ROOM_*), read once like the rest of services/config.py."""

from __future__ import annotations

import functools

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class RoomSettings(BaseSettings):
    """See README "Private rooms" for each variable."""

    model_config = SettingsConfigDict(env_prefix="QIPAI_ROOM_", extra="ignore", frozen=True)

    expiry_s: int = Field(1800, ge=1, le=7 * 24 * 3600,
                          description="a room nobody acts in for this long closes; its code is free again")
    joins_per_minute: int = Field(
        20, ge=1, description="JoinRoom/WatchRoom attempts per minute by one player (codes cannot be guessed)")
    joins_per_minute_per_address: int = Field(
        120, ge=1, description="JoinRoom/WatchRoom attempts per minute from one client address")
    creates_per_minute: int = Field(10, ge=1, description="CreateRoom calls per minute by one player")


@functools.cache
def room_settings() -> RoomSettings:
    return RoomSettings()
