"""Configuration: every setting comes from the environment (prefix QIPAI_), read once."""

from __future__ import annotations

import functools
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

SERVICES = ("game", "matchmaking", "ledger")


class Settings(BaseSettings):
    """The process's settings; see README "Configuration" for each variable."""

    model_config = SettingsConfigDict(env_prefix="QIPAI_", extra="ignore", frozen=True)

    grpc_addr: str = Field("127.0.0.1:50051", description="host:port the gRPC server listens on")
    database_url: str = Field(
        f"sqlite:///{Path('var') / 'qipai.sqlite3'}",
        description="event store: sqlite:///path (embedded default) or postgresql://...",
    )
    redis_url: str = Field(
        "memory://",
        description="live state: memory:// (embedded), redis://... or redis+cluster://host:port,...",
    )
    live_namespace: str = Field(
        "qipai", description="prefix of every live-state key, so environments can share one Redis"
    )
    metrics_port: int = Field(0, description="Prometheus metrics port; 0 turns the endpoint off")
    log_level: str = Field("info", description="debug, info, warning or error")
    log_format: str = Field("json", description="json (structured) or console (for people)")
    token_secret: str = Field(
        "", description="HMAC key signing bearer tokens; empty: a random key kept in var/token-secret"
    )
    node_id: str = Field("", description="this node's id among several game nodes; random if empty")
    abandon_after_s: int = Field(
        900, ge=0, description="close a table nobody has acted at for this long; 0 never closes it"
    )
    guest_logins_per_minute: int = Field(
        60, ge=1, description="GuestLogin calls per minute from one client address"
    )
    open_tables_per_player: int = Field(
        20, ge=1, description="unfinished tables one player may have created at once"
    )
    watch_streams_per_player: int = Field(
        16, ge=1, description="Watch streams one player may have open at once on one node"
    )
    ledger_calls_per_minute: int = Field(
        600, ge=1, description="Ledger calls per minute from one player (operators: no limit)"
    )
    trusted_proxies: str = Field(
        "", description="addresses or CIDR blocks (comma-separated) of the proxies whose "
        "x-forwarded-for names the client for per-address limits; empty: none, the TCP peer counts",
    )
    advertise_addr: str = Field(
        "", description="host:port other game nodes use to reach this one; QIPAI_GRPC_ADDR if empty"
    )
    node_addr: str = Field(
        "", description="host:port this process alone listens on besides QIPAI_GRPC_ADDR, which "
        "several processes share under `qipai serve --workers` (it sets this); empty: none",
    )

    game_addr: str = Field(
        "", description="host:port of the game service the matchmaker seats tables at; empty: "
        "the game of the same process (serve all)",
    )
    queues_file: str = Field(
        "", description="the public queues' file (presets, stake tiers, waits); empty: "
        "config/queues.toml",
    )

    @property
    def advertised_addr(self) -> str:
        """Where other nodes forward calls for the tables this node serves."""
        if self.advertise_addr:
            return self.advertise_addr
        host, _, port = (self.node_addr or self.grpc_addr).rpartition(":")
        return f"{'127.0.0.1' if host in ('0.0.0.0', '[::]', '') else host}:{port}"

    @field_validator("database_url")
    @classmethod
    def _database_scheme(cls, v: str) -> str:
        if not v.startswith(("sqlite://", "postgresql://", "postgres://")):
            raise ValueError("QIPAI_DATABASE_URL must start with sqlite:// or postgresql://")
        return v

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, v: str) -> str:
        if not v.startswith(("memory://", "redis://", "rediss://", "redis+cluster://",
                              "rediss+cluster://")):
            raise ValueError(
                "QIPAI_REDIS_URL must start with memory://, redis:// or redis+cluster://"
            )
        if v.startswith(("redis+cluster://", "rediss+cluster://")):
            from services.live.connection import ClusterURL

            ClusterURL.parse(v)  # a ValueError here names the malformed part
        return v

    @field_validator("grpc_addr")
    @classmethod
    def _addr(cls, v: str) -> str:
        return _host_port(v, "QIPAI_GRPC_ADDR")

    @field_validator("game_addr")
    @classmethod
    def _game_addr(cls, v: str) -> str:
        return v and _host_port(v, "QIPAI_GAME_ADDR")

    @field_validator("node_addr")
    @classmethod
    def _node_addr(cls, v: str) -> str:
        return v and _host_port(v, "QIPAI_NODE_ADDR")

    @field_validator("trusted_proxies")
    @classmethod
    def _trusted_proxies(cls, v: str) -> str:
        from services.client_address import trusted_networks

        trusted_networks(v)  # a ValueError here names the entry
        return v

    @field_validator("log_level")
    @classmethod
    def _level(cls, v: str) -> str:
        if v.lower() not in ("debug", "info", "warning", "error"):
            raise ValueError("QIPAI_LOG_LEVEL must be debug, info, warning or error")
        return v.lower()

    @field_validator("log_format")
    @classmethod
    def _format(cls, v: str) -> str:
        if v not in ("json", "console"):
            raise ValueError("QIPAI_LOG_FORMAT must be json or console")
        return v


def _host_port(v: str, name: str) -> str:
    host, sep, port = v.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"{name} must be host:port, e.g. 127.0.0.1:50051")
    return v


@functools.cache
def settings() -> Settings:
    """The settings, read from the environment the first time they are asked for."""
    return Settings()
