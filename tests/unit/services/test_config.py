import re

import pytest
from pydantic import ValidationError

from services.config import Settings


def test_the_embedded_default_needs_nothing_installed():
    s = Settings()
    assert s.database_url.startswith("sqlite:///")
    assert s.redis_url == "memory://"
    assert s.grpc_addr == "127.0.0.1:50051"


def test_a_redis_cluster_url_is_accepted(monkeypatch):
    monkeypatch.setenv("QIPAI_REDIS_URL", "redis+cluster://r1:7000,r2:7000")
    assert Settings().redis_url == "redis+cluster://r1:7000,r2:7000"


def test_variables_are_read_with_the_qipai_prefix(monkeypatch):
    monkeypatch.setenv("QIPAI_GRPC_ADDR", "0.0.0.0:6000")
    monkeypatch.setenv("QIPAI_DATABASE_URL", "postgresql://u@h/db")
    s = Settings()
    assert (s.grpc_addr, s.database_url) == ("0.0.0.0:6000", "postgresql://u@h/db")


@pytest.mark.parametrize(
    "var, value, words",
    [
        ("QIPAI_DATABASE_URL", "mysql://x", "sqlite:// or postgresql://"),
        ("QIPAI_REDIS_URL", "memcached://x", "memory://, redis:// or redis+cluster://"),
        ("QIPAI_REDIS_URL", "redis+cluster://a:1,b", "must be host:port"),
        ("QIPAI_GRPC_ADDR", "50051", "host:port"),
        ("QIPAI_LOG_LEVEL", "loud", "debug, info"),
    ],
)
def test_a_bad_variable_is_named_in_the_error(monkeypatch, var, value, words):
    monkeypatch.setenv(var, value)
    with pytest.raises(ValidationError, match=re.escape(words)):
        Settings()


def test_a_node_address_of_its_own_is_what_the_node_advertises(monkeypatch):
    monkeypatch.setenv("QIPAI_GRPC_ADDR", "0.0.0.0:50051")
    monkeypatch.setenv("QIPAI_NODE_ADDR", "0.0.0.0:50061")
    assert Settings().advertised_addr == "127.0.0.1:50061"
    monkeypatch.setenv("QIPAI_NODE_ADDR", "50061")
    with pytest.raises(ValidationError, match="QIPAI_NODE_ADDR must be host:port"):
        Settings()
