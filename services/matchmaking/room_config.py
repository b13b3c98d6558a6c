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
    start_lease_s: float = Field(
        15.0, gt=0, le=3600,
        description="a start (making the table) its matchmaker did not finish within this, renewed "
                    "while it works, is finished by another matchmaker (its process died)")
    start_pause_ms: int = Field(
        0, ge=0, le=60_000,
        description="crash drills only: a pause before and after each game call of a start, so a "
                    "test can kill the matchmaker between two steps")


@functools.cache
def room_settings() -> RoomSettings:
    return RoomSettings()
