"""Structured JSON logs (structlog) and the Prometheus metrics endpoint, set up once per process."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog
from prometheus_client import Counter, Gauge, Histogram, start_http_server

COMMANDS = Counter("qipai_commands_total", "Commands applied to tables", ["ruleset", "outcome"])
COMMAND_LATENCY = Histogram(
    "qipai_command_seconds",
    "Time from receiving an action to its events being stored",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
APPENDS = Counter("qipai_appends_total", "Event store appends")
LIVE_TABLES = Gauge("qipai_live_tables", "Tables this node serves")
LEASES = Counter(
    "qipai_leases_total",
    "Table lease operations in Redis: acquire (ok or refused: another node holds it), "
    "renew (ok or lost), release (ok or lost)",
    ["op", "outcome"],
)
FANOUT_LAG = Histogram(
    "qipai_fanout_lag_seconds",
    "From a command's publish to its delivery to this node's watchers through the Redis fan-out "
    "(across nodes: includes their clock skew)",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)

ROOM_JOIN_FAILURES = Counter(
    "qipai_room_join_failures_total",
    "Private-room join (and watch) attempts that failed: not_found (a wrong code), malformed, "
    "full, started, rate_limited — a rise of not_found is someone guessing codes",
    ["reason"],
)

_configured = False


def setup_logging(level: str = "info", fmt: str = "json") -> None:
    """Route stdlib and structlog records through one JSON (or console) renderer on stderr."""
    global _configured
    if _configured:
        return
    _configured = True
    renderer = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer
        ], foreign_pre_chain=shared)
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def start_metrics(host: str, port: int) -> None:
    """Serve /metrics on `host:port` (port 0: no endpoint)."""
    if port:
        start_http_server(port, addr=host)


log = structlog.get_logger("qipai")
