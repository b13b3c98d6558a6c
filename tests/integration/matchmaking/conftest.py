import pytest


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def live_url(request: pytest.FixtureRequest) -> str:
    """Each room-store test runs on the in-process store, a single Redis and a Redis Cluster."""
    if request.param == "memory":
        return "memory://"
    return str(request.getfixturevalue("redis_url" if request.param == "redis" else "redis_cluster_url"))
