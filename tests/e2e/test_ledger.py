"""The ledger in real `qipai serve` processes: the README's CheckIn on the embedded default
(`make run`), the ledger alone on Postgres and Redis, and the `qipai ledger` commands."""

from __future__ import annotations

import subprocess

import grpc
import pytest

from qipai.v1 import ledger_pb2 as pb
from qipai.v1 import ledger_pb2_grpc
from services import auth
from tests.e2e.conftest import QIPAI

pytestmark = pytest.mark.e2e


def _call(address: str, secret: str, method: str, request, player: str = "ann", admin: bool = False):
    token, _ = auth.issue(secret, player, auth.ADMIN if admin else auth.PLAYER)
    with grpc.insecure_channel(address) as channel:
        return getattr(ledger_pb2_grpc.LedgerStub(channel), method)(
            request, metadata=[("authorization", f"Bearer {token}")], timeout=10)


def _check_in_twice(address: str, secret: str) -> None:
    reply = _call(address, secret, "CheckIn", pb.CheckInRequest())
    assert reply.transfer.id.startswith("checkin/ann/") and reply.state.checked_in_today
    with pytest.raises(grpc.RpcError) as caught:
        _call(address, secret, "CheckIn", pb.CheckInRequest())
    assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert "next check-in at" in caught.value.details()
    balance = _call(address, secret, "GetBalance", pb.GetBalanceRequest()).balance
    assert balance == 1000 + reply.transfer.amount


def test_check_in_works_on_the_embedded_default_and_the_cli_audits_it(start_server):
    server = start_server()
    _check_in_twice(server.address, "e2e-secret")
    env = server.env
    audit = subprocess.run([str(QIPAI), "ledger", "audit"], env=env, capture_output=True, text=True, timeout=60)
    assert audit.returncode == 0 and "audit ok" in audit.stdout, audit.stderr
    granted = subprocess.run([str(QIPAI), "ledger", "grant", "player/ann", "25", "--reason", "prize",
                              "--request-id", "e2e-1"], env=env, capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0 and "granted: 25 chips to player/ann" in granted.stdout, granted.stderr
    history = subprocess.run([str(QIPAI), "ledger", "transfers", "player/ann"], env=env, capture_output=True,
                             text=True, timeout=60)
    newest = history.stdout.splitlines()[0].split()
    assert newest[3:6] == ["+25", "grant", "house"] and "grant/e2e-1" in newest, history.stdout
    assert _call(server.address, "e2e-secret", "GetBalance", pb.GetBalanceRequest()).balance == 1035


def test_the_ledger_runs_alone_on_postgres_and_redis(start_server, production_env):
    server = start_server(production_env, service="ledger")
    _check_in_twice(server.address, "e2e-secret")
    report = _call(server.address, "e2e-secret", "Audit", pb.AuditRequest(), "olga", admin=True)
    assert report.ok and report.transfers == 2
    rebuilt = subprocess.run([str(QIPAI), "ledger", "rebuild-leaderboards"], env=server.env,
                             capture_output=True, text=True, timeout=60)
    assert rebuilt.returncode == 0 and "rebuilt from 0 settlement transfers" in rebuilt.stdout, rebuilt.stderr
