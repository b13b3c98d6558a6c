"""Public queues in real `qipai serve` processes: bot fill on the embedded default, the grace
period of a dropped Queue stream, and the operator's view of the queues."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest

from qipai.v1 import game_pb2, game_pb2_grpc, matchmaking_pb2_grpc
from qipai.v1 import matchmaking_pb2 as pb
from services import auth

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"


def queues_file(tmp_path: Path, bot_fill_after_s: float = 0.5, grace_s: float = 1.0) -> str:
    """A small queues file with short waits, so the tests wait little."""
    path = tmp_path / "queues.toml"
    path.write_text(f"""
[defaults]
bot_fill_after_s = {bot_fill_after_s}
grace_s = {grace_s}
[rulesets.koudian.presets]
standard = {{}}
[rulesets.koudian.tiers]
bronze = {{ stake = 1 }}
[rulesets.daqi.presets]
standard = {{}}
[rulesets.daqi.tiers]
bronze = {{ stake = 1 }}
""")
    return str(path)


def _md(player: str, admin: bool = False) -> list[tuple[str, str]]:
    token, _ = auth.issue(SECRET, player, auth.ADMIN if admin else auth.PLAYER)
    return [("authorization", f"Bearer {token}")]


def _stub(channel: grpc.Channel) -> matchmaking_pb2_grpc.MatchmakingStub:
    return matchmaking_pb2_grpc.MatchmakingStub(channel)


def test_a_lone_player_is_seated_with_bots_after_the_bot_fill_wait(start_server, tmp_path):
    server = start_server({"QIPAI_QUEUES_FILE": queues_file(tmp_path)})
    with grpc.insecure_channel(server.address) as channel:
        states = list(_stub(channel).Queue(pb.QueueRequest(ruleset="koudian"), metadata=_md("ann"),
                                           timeout=30))
        assert states[0].state == pb.TICKET_STATE_SEARCHING and states[0].position == 1
        assert states[0].queue == "koudian/standard/bronze"
        matched = states[-1]
        assert matched.state == pb.TICKET_STATE_MATCHED and matched.table_id.startswith("table-")
        view = game_pb2_grpc.GameStub(channel).GetView(
            game_pb2.TableRequest(table_id=matched.table_id), metadata=_md("ann"), timeout=10)
        assert view.seat == matched.seat == 0
        assert [p.startswith("bot-") for p in view.players] == [False, True, True, True]
        # Queueing said ready: the first hand is dealt without a Game/Ready from ann.
        assert sorted(view.auto_play) == [1, 2, 3] and view.status == "in_hand"
        # Seated at an unfinished table: no second queue.
        with pytest.raises(grpc.RpcError) as caught:
            list(_stub(channel).Queue(pb.QueueRequest(ruleset="koudian"), metadata=_md("ann"), timeout=10))
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_a_dropped_stream_keeps_the_ticket_for_the_grace_period_then_cancels_it(start_server, tmp_path):
    server = start_server({"QIPAI_QUEUES_FILE": queues_file(tmp_path, bot_fill_after_s=0, grace_s=1.5)})
    with grpc.insecure_channel(server.address) as channel:
        stream = _stub(channel).Queue(pb.QueueRequest(ruleset="daqi"), metadata=_md("bob"), timeout=30)
        first = next(stream)
        stream.cancel()
        again = _stub(channel).Queue(pb.QueueRequest(ruleset="daqi"), metadata=_md("bob"), timeout=30)
        assert next(again).ticket_id == first.ticket_id  # reconnected within the grace: same ticket
        again.cancel()
        time.sleep(1.5)  # the grace, with no stream holding the ticket
        deadline = time.monotonic() + 30
        while True:  # the next formation step after the grace cancels it
            ticket = _stub(channel).GetTicket(pb.GetTicketRequest(), metadata=_md("bob"), timeout=10)
            if ticket.state != pb.TICKET_STATE_SEARCHING or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert ticket.ticket_id == first.ticket_id
        assert ticket.state == pb.TICKET_STATE_CANCELLED and ticket.cancel_reason == "disconnected"


def test_cancel_is_idempotent_and_operators_list_the_queues(start_server, tmp_path):
    server = start_server({"QIPAI_QUEUES_FILE": queues_file(tmp_path, bot_fill_after_s=0)})
    with grpc.insecure_channel(server.address) as channel:
        stream = _stub(channel).Queue(pb.QueueRequest(ruleset="daqi"), metadata=_md("cy"), timeout=30)
        first = next(stream)
        queues = _stub(channel).ListQueues(pb.ListQueuesRequest(), metadata=_md("op", admin=True), timeout=10)
        assert {q.queue: q.searching for q in queues.queues}["daqi/standard/bronze"] == 1
        for _ in range(2):
            cancelled = _stub(channel).Cancel(pb.CancelRequest(), metadata=_md("cy"), timeout=10)
            assert cancelled.ticket_id == first.ticket_id and cancelled.state == pb.TICKET_STATE_CANCELLED
        assert next(stream).state == pb.TICKET_STATE_CANCELLED
        with pytest.raises(grpc.RpcError) as caught:
            _stub(channel).ListQueues(pb.ListQueuesRequest(), metadata=_md("cy"), timeout=10)
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_qipai_play_queues_for_a_public_game_against_bots(start_server, tmp_path):
    import subprocess

    from tests.e2e.conftest import QIPAI

    server = start_server({"QIPAI_QUEUES_FILE": queues_file(tmp_path)})
    out = subprocess.run([str(QIPAI), "play", "--lang", "en", "--queue", "--ruleset", "koudian"], env=server.env,
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert "queue koudian/standard/bronze: searching, position 1" in out.stdout, out.stderr
    assert "you are seat 0; the others: bot, bot, bot" in out.stdout
    assert "your hand:" in out.stdout
