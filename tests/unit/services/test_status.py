"""Errors reach the caller by category: each category has one status code, and the errors of
the layers below the service belong to the category that says what the caller can do."""

from __future__ import annotations

import grpc
import pytest

from engine.rulesets import UnknownRuleset
from protocol.wire import BadRequest
from services.eventstore import (
    CheckpointMoved,
    InvalidStreamId,
    MigrationError,
    StoreUnavailable,
    WrongExpectedVersion,
)
from services.game.leases import NotHolder
from services.game.pipeline import VersionConflict
from services.game.repository import TableNotFound
from services.live.base import LiveStateUnavailable
from services.status import request_context, status_of

Code = grpc.StatusCode


@pytest.mark.parametrize(("error", "code"), [
    (BadRequest("from_version cannot be negative"), Code.INVALID_ARGUMENT),
    (UnknownRuleset("no ruleset 'x'"), Code.INVALID_ARGUMENT),
    (InvalidStreamId("empty stream id"), Code.INVALID_ARGUMENT),
    (TableNotFound("no table 'table-1'"), Code.NOT_FOUND),
    (VersionConflict(3, 4), Code.ABORTED),
    (WrongExpectedVersion("table-1", 3, 4), Code.ABORTED),
    (NotHolder("table-1", "node-b", "b:1"), Code.UNAVAILABLE),
    (StoreUnavailable("no database at 127.0.0.1:5432"), Code.UNAVAILABLE),
    (LiveStateUnavailable("no redis"), Code.UNAVAILABLE),
])
def test_each_error_gets_the_status_of_its_category(error, code):
    assert status_of(error)[0] is code


def test_a_store_migration_failure_is_unavailable_not_the_callers_fault():
    assert status_of(MigrationError("the database schema is newer than this code"))[0] is Code.UNAVAILABLE


def test_an_error_of_no_category_is_a_bug_not_a_status():
    assert status_of(CheckpointMoved("moved")) is None
    assert status_of(KeyError("x")) is None


class _Context:
    def __init__(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self._metadata = metadata

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata


class _Request:
    table_id = "table-1"
    action_id = "a-7"


def test_a_request_logs_under_the_callers_trace_id_or_a_new_one():
    traced = request_context(None, _Request(), _Context((("x-trace-id", "t-42"),)))
    assert traced == {"table_id": "table-1", "command_id": "a-7", "trace_id": "t-42"}
    fresh = request_context(None, _Request(), _Context(()))
    assert len(fresh["trace_id"]) == 32


def test_a_request_names_its_command_by_the_field_its_message_has():
    from qipai.v1 import game_pb2

    act = request_context(None, game_pb2.ActRequest(table_id="t", action_id="a-1"), _Context(()))
    ready = request_context(None, game_pb2.TableRequest(table_id="t", request_id="r-1"), _Context(()))
    watch = request_context(None, game_pb2.WatchRequest(table_id="t"), _Context(()))
    assert (act["command_id"], ready["command_id"]) == ("a-1", "r-1")
    assert "command_id" not in watch and watch["table_id"] == "t"
    assert act["trace_id"] != ready["trace_id"]


async def test_each_call_logs_under_its_own_fields_and_errors_become_statuses_in_streams_too():
    """The wrappers bind a call's log fields without unbinding them: each call runs in a task of
    its own, so no field of one call shows in another's lines. A stream's messages all arrive,
    then its handler's domain error as a status with its message."""
    import asyncio

    import grpc
    from structlog.contextvars import get_contextvars

    from qipai.v1 import game_pb2
    from services.errors import NotFound
    from services.status import streaming, unary

    class Servicer:
        @unary
        async def Act(self, request: game_pb2.ActRequest, context: object) -> game_pb2.TableResponse:
            await asyncio.sleep(0.01)  # the other calls run meanwhile
            fields = get_contextvars()
            return game_pb2.TableResponse(table_id=f"{fields.get('command_id')}/{fields['rpc']}")

        @streaming
        async def Watch(self, request: game_pb2.WatchRequest, context: object):  # type: ignore[no-untyped-def]
            for version in range(3):
                await asyncio.sleep(0.01)
                yield game_pb2.TableUpdate(version=version)
            if request.table_id == "gone":
                raise NotFound("no table 'gone'")

    servicer = Servicer()
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("t.Game", {
        "Act": grpc.unary_unary_rpc_method_handler(
            servicer.Act, game_pb2.ActRequest.FromString, game_pb2.TableResponse.SerializeToString),
        "Watch": grpc.unary_stream_rpc_method_handler(
            servicer.Watch, game_pb2.WatchRequest.FromString, game_pb2.TableUpdate.SerializeToString)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as chan:
            act = chan.unary_unary("/t.Game/Act", game_pb2.ActRequest.SerializeToString,
                                   game_pb2.TableResponse.FromString)
            watch = chan.unary_stream("/t.Game/Watch", game_pb2.WatchRequest.SerializeToString,
                                      game_pb2.TableUpdate.FromString)
            answers = await asyncio.gather(act(game_pb2.ActRequest(action_id="a-1")),
                                           act(game_pb2.ActRequest()),
                                           act(game_pb2.ActRequest(action_id="a-3")))
            assert [a.table_id for a in answers] == ["a-1/Act", "None/Act", "a-3/Act"]
            assert [u.version async for u in watch(game_pb2.WatchRequest(table_id="t"))] == [0, 1, 2]
            got: list[int] = []
            with pytest.raises(grpc.aio.AioRpcError) as failed:
                async for update in watch(game_pb2.WatchRequest(table_id="gone")):
                    got.append(update.version)
            assert got == [0, 1, 2]
            assert failed.value.code() == Code.NOT_FOUND and failed.value.details() == "no table 'gone'"
    finally:
        await server.stop(None)
