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
