"""Service discovery for integration and e2e tests: where Postgres and Redis are.

Each service is looked for, in order, at:
1. `QIPAI_TEST_DATABASE_URL` / `QIPAI_TEST_REDIS_URL` / `QIPAI_TEST_REDIS_CLUSTER_URL` (explicit:
   if it does not answer, the test fails);
2. a server on the default local port (Postgres 127.0.0.1:5432, database `test`, user `postgres`,
   trust auth; Redis 127.0.0.1:6379 db 0; a Redis Cluster on 127.0.0.1:7000-7002, as
   infra/redis-cluster/start.sh starts it);
3. for Postgres and Redis, a throwaway testcontainers container, when a Docker engine answers;
otherwise the test skips with the reason, and under `QIPAI_REQUIRE_SERVICES=1` it fails instead.

Fixtures: `postgres_url`, `redis_url` and `redis_cluster_url` (session); `live_redis_url`, each
of the two Redis deployments in turn (single server, cluster), for the tests that must hold on
both. Per-test isolation: `pg_schema` (a fresh Postgres schema) and `redis_prefix` (a fresh key
prefix; Redis db numbers are not used because Redis Cluster has only db 0).
"""

from __future__ import annotations

import contextlib
import os
import socket
import uuid
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis's per-example deadline and its too-slow check are timed assertions: on a loaded
# machine they fail tests whose rules hold. Speed is measured by the benchmarks (bench/) instead.
settings.register_profile("qipai", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("qipai")

DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
DEFAULT_REDIS_CLUSTER = "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002"


def services_required() -> bool:
    return os.environ.get("QIPAI_REQUIRE_SERVICES", "") not in ("", "0", "false")


def unavailable(reason: str) -> None:
    """Skip (or, when services are required, fail) the requesting test."""
    if services_required():
        pytest.fail(f"QIPAI_REQUIRE_SERVICES=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def _port_open(url: str) -> bool:
    # A cluster URL lists several nodes (host:port,host:port): its first one must answer.
    parts = urlsplit(url.split(",", 1)[0])
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 0), timeout=0.5):
            return True
    except OSError:
        return False


def _postgres_answers(url: str) -> str | None:
    """None if a session can be opened at `url`, else why not."""
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
        return None
    except psycopg.Error as exc:
        return str(exc).strip()


def _redis_answers(url: str) -> str | None:
    import redis

    try:
        client = redis_client(url)
        try:
            client.ping()
            if url.startswith("redis+cluster://"):
                state = client.cluster_info().get("cluster_state")
                if state != "ok":
                    return f"cluster_state is {state}"
        finally:
            client.close()
        return None
    except (redis.RedisError, redis.exceptions.RedisClusterException) as exc:
        return str(exc) or type(exc).__name__


def redis_client(url: str) -> Any:
    """A synchronous client for a test's own checks and faults, on either deployment."""
    import redis
    from redis.cluster import ClusterNode

    from services.live.connection import CLUSTER_SCHEMES, ClusterURL, scheme

    if scheme(url) in CLUSTER_SCHEMES:
        parsed = ClusterURL.parse(url)
        return redis.RedisCluster(startup_nodes=[ClusterNode(h, p) for h, p in parsed.nodes],
                                  socket_connect_timeout=2, socket_timeout=5)
    return redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


class _Found:
    def __init__(self) -> None:
        self.url: str | None = None
        self.reason = ""


def _discover(
    request: pytest.FixtureRequest,
    env: str,
    default: str,
    answers: Callable[[str], str | None],
    container: Callable[[], tuple[str, object]] | None,
) -> Iterator[_Found]:
    found = _Found()
    explicit = os.environ.get(env)
    if explicit:
        problem = answers(explicit)
        if problem:
            pytest.fail(f"{env} is set but does not answer: {problem}", pytrace=False)
        found.url = explicit
        yield found
        return
    if _port_open(default) and answers(default) is None:
        found.url = default
        yield found
        return
    if container is not None and _docker_answers():
        url, started = container()
        found.url = url
        try:
            yield found
        finally:
            with contextlib.suppress(Exception):
                started.stop()  # type: ignore[attr-defined]
        return
    found.reason = f"no {env}, nothing answering at {default}" + (
        ", and no Docker engine for testcontainers" if container else
        " (start one with infra/redis-cluster/start.sh)")
    yield found


def _postgres_container() -> tuple[str, object]:
    from testcontainers.postgres import PostgresContainer

    started = PostgresContainer("postgres:16-alpine", dbname="test", driver=None).start()
    return started.get_connection_url(), started


def _redis_container() -> tuple[str, object]:
    from testcontainers.redis import RedisContainer

    started = RedisContainer("redis:7-alpine").start()
    host, port = started.get_container_host_ip(), started.get_exposed_port(6379)
    return f"redis://{host}:{port}/0", started


@pytest.fixture(scope="session")
def _postgres(request: pytest.FixtureRequest) -> Iterator[_Found]:
    yield from _discover(request, "QIPAI_TEST_DATABASE_URL", DEFAULT_POSTGRES, _postgres_answers, _postgres_container)


@pytest.fixture(scope="session")
def _redis(request: pytest.FixtureRequest) -> Iterator[_Found]:
    yield from _discover(request, "QIPAI_TEST_REDIS_URL", DEFAULT_REDIS, _redis_answers, _redis_container)


@pytest.fixture(scope="session")
def _redis_cluster(request: pytest.FixtureRequest) -> Iterator[_Found]:
    yield from _discover(request, "QIPAI_TEST_REDIS_CLUSTER_URL", DEFAULT_REDIS_CLUSTER,
                         _redis_answers, None)


@pytest.fixture(scope="session")
def postgres_url(_postgres: _Found) -> str:
    """A Postgres URL (libpq form) for the whole session; tests isolate themselves by schema."""
    if _postgres.url is None:
        unavailable(f"Postgres not found: {_postgres.reason}")
    return _postgres.url


@pytest.fixture(scope="session")
def redis_url(_redis: _Found) -> str:
    """A Redis URL for the whole session; tests isolate themselves by key prefix."""
    if _redis.url is None:
        unavailable(f"Redis not found: {_redis.reason}")
    return _redis.url


@pytest.fixture(scope="session")
def redis_cluster_url(_redis_cluster: _Found) -> str:
    """A Redis Cluster URL (redis+cluster://host:port,…) for the whole session."""
    if _redis_cluster.url is None:
        unavailable(f"Redis Cluster not found: {_redis_cluster.reason}")
    return _redis_cluster.url


@pytest.fixture(params=["redis", "redis-cluster"])
def live_redis_url(request: pytest.FixtureRequest) -> str:
    """Each Redis deployment in turn: a single server, then a Redis Cluster."""
    return str(request.getfixturevalue("redis_url" if request.param == "redis" else "redis_cluster_url"))


# Per-test isolation on the shared services.


def drop_schema(postgres_url: str, name: str) -> None:
    import time

    import psycopg
    from psycopg import sql

    # A server a test started may still be writing there (fixtures end in the reverse of the
    # order they began): Postgres may then pick the DROP as a deadlock's victim. Again, later.
    for attempt in range(5):
        try:
            with psycopg.connect(postgres_url, autocommit=True) as conn:
                conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))
            return
        except psycopg.errors.DeadlockDetected:
            if attempt == 4:
                raise
            time.sleep(0.5 * (attempt + 1))


def drop_keys(redis_url: str, prefix: str) -> None:
    client = redis_client(redis_url)
    try:
        for key in list(client.scan_iter(match=f"{prefix}*", count=500)):
            client.delete(key)  # one at a time: on a cluster the keys are in many slots
    finally:
        client.close()


@pytest.fixture
def pg_schema(postgres_url: str) -> Iterator[str]:
    name = f"t_{uuid.uuid4().hex[:16]}"
    yield name
    drop_schema(postgres_url, name)


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    prefix = f"test:{uuid.uuid4().hex[:12]}:"
    yield prefix
    drop_keys(redis_url, prefix)
