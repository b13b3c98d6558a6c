"""`qipai serve` (what `make run` starts) answers health checks and shuts down gracefully."""

import signal

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from tests.e2e.conftest import wait_healthy

pytestmark = pytest.mark.e2e

SERVICES = ["qipai.v1.Game", "qipai.v1.Matchmaking", "qipai.v1.Ledger"]


def _listed_services(address: str) -> set[str]:
    with grpc.insecure_channel(address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
        return {s.name for reply in replies for s in reply.list_services_response.service}


def test_the_embedded_default_serves_every_service_with_health_and_reflection(start_server):
    server = start_server()
    for name in SERVICES:
        wait_healthy(server.address, service=name)
    assert set(SERVICES) <= _listed_services(server.address)
    assert server.stop(signal.SIGINT) == 0
    assert "shutting down" in server.log()


def test_the_production_backends_serve_every_service(start_server, production_env):
    server = start_server(production_env)
    for name in SERVICES:
        wait_healthy(server.address, service=name)
    assert server.stop(signal.SIGTERM) == 0


def test_one_service_can_run_alone(start_server):
    server = start_server(service="ledger")
    wait_healthy(server.address, service="qipai.v1.Ledger")
    with grpc.insecure_channel(server.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        with pytest.raises(grpc.RpcError) as err:
            stub.Check(health_pb2.HealthCheckRequest(service="qipai.v1.Game"), timeout=2)
        assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_an_unreachable_database_is_a_clear_startup_error(start_server):
    server = start_server({"QIPAI_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"}, wait=False)
    assert server.process.wait(30) == 2
    assert "cannot open the backends" in server.log()
    assert "Traceback" not in server.log()


def test_a_bad_variable_is_a_clear_startup_error(start_server):
    server = start_server({"QIPAI_REDIS_URL": "memcached://x"}, wait=False)
    assert server.process.wait(30) == 2
    assert "QIPAI_REDIS_URL" in server.log()


def test_a_second_server_on_a_taken_port_refuses_to_start_with_one_clear_line(start_server, tmp_path):
    first = start_server()
    # Its own database, so that nothing but the port stands in the way.
    second = start_server({"QIPAI_GRPC_ADDR": first.address,
                           "QIPAI_DATABASE_URL": f"sqlite:///{tmp_path / 'second.sqlite3'}"},
                          wait=False)
    assert second.process.wait(30) == 2
    assert second.log().splitlines() == [
        f"qipai: {first.address} is already in use (another `qipai serve`?): stop it, or set "
        "QIPAI_GRPC_ADDR to a free port"]
    wait_healthy(first.address)  # the first one serves on, alone
