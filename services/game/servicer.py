"""The gRPC servicers of the game: Auth, Game and Admin. Translation and checks only; the
table service does the work."""

from __future__ import annotations

import contextlib
import json
import typing
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import structlog

from engine import rulesets
from engine.chips import split_options
from engine.core import fairness
from engine.core.contract import Status
from engine.core.messages import encode, to_json
from engine.table import Act, Close, Leave, Sit, Table, TakeBack, evolve
from protocol import wire
from qipai.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    auth_pb2,
    auth_pb2_grpc,
    game_pb2,
    game_pb2_grpc,
    views_pb2,
)
from services import auth, json_text
from services.client_address import ClientAddress
from services.errors import Forbidden, TooManyRequests
from services.game import resume
from services.game.feed import FellBehind
from services.game.forwarding import Forwarder
from services.game.tables import (
    STREAM_PREFIX,
    TableNotFound,
    TableService,
    new_table_id,
    requested_table_id,
)
from services.game.verify import verify
from services.live.base import Claim
from services.ratelimit import RateLimiter
from services.status import streaming, unary

RATE_LIMIT = 200  # requests per player per second: a fast bot (a view per event, 0 ms deals) stays below
GUEST_LOGINS_PER_MINUTE = 60  # per client address (QIPAI_GUEST_LOGINS_PER_MINUTE)
OPEN_TABLES_PER_PLAYER = 20  # unfinished tables one player may have created (QIPAI_OPEN_TABLES_PER_PLAYER)
WATCH_STREAMS_PER_PLAYER = 16  # a player's tabs and devices, each watching a table or two (QIPAI_WATCH_STREAMS_PER_PLAYER)
MAX_ID_LENGTH = 128
MAX_LEGAL_ACTIONS = 500


def _request_id(me: auth.Identity, request_id: str) -> str | None:
    if len(request_id) > MAX_ID_LENGTH or not request_id.isprintable():
        raise wire.BadRequest(f"request and action ids are at most {MAX_ID_LENGTH} printable characters")
    return f"{me.player_id}:{request_id}" if request_id else None


def _new_table_id(tables: TableService, me: auth.Identity, request_id: str) -> str:
    """The id of the table a create makes: the same for the same request id (a retry finds its
    table), else a fresh one."""
    return requested_table_id(tables.id_key, me.player_id, request_id) if request_id else new_table_id()


def _table_id(table_id: str) -> str:
    if not table_id.startswith(STREAM_PREFIX) or len(table_id) > MAX_ID_LENGTH:
        raise wire.BadRequest(f"not a table id: {table_id[:40]!r}")
    return table_id


MAX_RULESET_NAME = 32


def _check_new_table(ruleset: str, options: dict[str, Any], deal_json: str | None = None) -> None:
    """A new table's ruleset, options and scenario deal, checked before anything is written: a
    malformed request is INVALID_ARGUMENT naming its bad part (the table's own checks would
    refuse it later as an illegal move)."""
    if len(ruleset) > MAX_RULESET_NAME:
        raise wire.BadRequest(f"no ruleset is called {ruleset[:MAX_RULESET_NAME]!r}… ({len(ruleset)} "
                              f"characters); the rulesets are {', '.join(rulesets.available())}")
    rs = rulesets.get(ruleset)  # UnknownRuleset: INVALID_ARGUMENT, naming the known ones
    try:
        _, ruleset_options = split_options(options)  # stake, buy_in: the table's, not the ruleset's
        rs.options(ruleset_options)
    except (ValueError, TypeError) as exc:
        raise wire.BadRequest(f"options: {exc}") from None
    if deal_json is None:
        return
    try:
        deal = json.loads(deal_json)
    except json.JSONDecodeError as exc:
        raise wire.BadRequest(f"deal_json is not valid JSON: {exc}") from None
    except RecursionError:  # thousands of levels deep
        raise wire.BadRequest(f"deal_json: nested deeper than {MAX_DEAL_DEPTH} levels") from None
    if _depth(deal) > MAX_DEAL_DEPTH:
        raise wire.BadRequest(f"deal_json: nested deeper than {MAX_DEAL_DEPTH} levels")
    if not isinstance(deal, dict):
        raise wire.BadRequest(f"deal_json must be a JSON object (the {ruleset} deal format of "
                              f"docs/scenarios/{ruleset}.md), not a JSON {type(deal).__name__}")
    try:
        rs.fixed_deal(deal, b"check")
    except (ValueError, TypeError, KeyError) as exc:
        raise wire.BadRequest(f"deal_json: {exc}") from None


MAX_DEAL_DEPTH = 8  # a deal is a map of hands and walls: three levels; the rest is abuse


def _depth(value: Any) -> int:
    """How deeply `value` (parsed JSON) nests, without recursing."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            todo.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _response(table: Table, me: auth.Identity, duplicate: bool = False) -> game_pb2.TableResponse:
    """A command's answer, its version in the numbering of the caller's seat after it."""
    seat = table.seat_of(me.player_id)
    return game_pb2.TableResponse(table_id=table.table_id, version=table.seen_by(seat),
                                  seat=-1 if seat is None else seat, duplicate=duplicate)


def _observer(table: Table, me: auth.Identity) -> int | None:
    """The seat `me` sees the table as (None: a spectator); Forbidden for a private table's
    outsiders (its members, who sit or sat at it, and operators may look)."""
    seat = table.seat_of(me.player_id)
    if seat is None and table.private and not (me.is_admin or table.is_member(me.player_id)):
        raise Forbidden("this table is private: only its players and operators may look at it")
    return seat


def _nonces(request: game_pb2.TableRequest) -> dict[str, Any]:
    """Ready's fair-deal fields, checked for form (docs/fairness.md)."""
    if request.nonce_commitment and not fairness.is_commitment(request.nonce_commitment):
        raise wire.BadRequest("nonce_commitment must be the sha256 of the nonce as 64 lowercase hex digits")
    if request.nonce and len(request.nonce) != fairness.NONCE_BYTES:
        raise wire.BadRequest(f"nonce must be {fairness.NONCE_BYTES} bytes, not {len(request.nonce)}")
    return {"nonce_commitment": request.nonce_commitment, "nonce": request.nonce}


class _Limited:
    def __init__(self, tables: TableService, limiter: RateLimiter) -> None:
        self.tables, self.limiter = tables, limiter
        self.forwarder = Forwarder(tables.leases)

    async def _caller(self) -> auth.Identity:
        me = auth.current()
        structlog.contextvars.bind_contextvars(player_id=me.player_id)
        if not self.limiter.allow(me.player_id):
            raise TooManyRequests("too many requests: slow down")
        return me

class AuthServicer(auth_pb2_grpc.AuthServicer):
    def __init__(self, secret: str, tables: TableService,
                 logins_per_minute: int = GUEST_LOGINS_PER_MINUTE,
                 client_address: ClientAddress | None = None) -> None:
        self.secret, self.tables, self.logins_per_minute = secret, tables, logins_per_minute
        self.client_address = client_address or ClientAddress()

    @unary
    async def GuestLogin(self, request: auth_pb2.GuestLoginRequest, context: Any) -> auth_pb2.LoginResponse:
        # Shared by every node (live state): a guest costs nothing to make, so one address
        # could otherwise mint players (and their tables) without end.
        if not await self.tables.live.allow(f"guest-login:{self.client_address.of(context)}",
                                            self.logins_per_minute, 60_000):
            raise TooManyRequests(f"at most {self.logins_per_minute} guest logins per minute "
                                  f"from one address: wait a minute")
        try:
            name = auth.guest_name(request.name)
        except auth.InvalidName as exc:
            raise wire.BadRequest(str(exc)) from None
        player_id = "guest-" + uuid.uuid4().hex[:12]
        token, exp = auth.issue(self.secret, player_id, auth.PLAYER, name)
        return auth_pb2.LoginResponse(token=token, player_id=player_id, expires_at=exp)


class GameServicer(_Limited, game_pb2_grpc.GameServicer):
    def __init__(self, tables: TableService, limiter: RateLimiter,
                 open_tables_per_player: int = OPEN_TABLES_PER_PLAYER,
                 watch_streams_per_player: int = WATCH_STREAMS_PER_PLAYER) -> None:
        super().__init__(tables, limiter)
        self.open_tables_per_player = open_tables_per_player
        self.watch_streams_per_player = watch_streams_per_player
        self._watching: Counter[str] = Counter()  # open Watch streams per player, on this node

    @unary
    async def CreateTable(self, request: game_pb2.CreateTableRequest, context: Any) -> game_pb2.TableResponse:
        me = await self._caller()
        options = wire.options_from_struct(request.options) if request.HasField("options") else {}
        _check_new_table(request.ruleset, options)
        command_id = _request_id(me, request.request_id)
        table_id = _new_table_id(self.tables, me, request.request_id)
        # Operators (the matchmaker) create tables for others: no per-player limit.
        claim = Claim.HELD if me.is_admin else await self._claim_a_table(me.player_id, table_id)
        try:
            outcome = await self.tables.create(request.ruleset, options, me.player_id,
                                               command_id=command_id, table_id=table_id)
        except Exception:  # (not a cancelled call: the create goes on, shielded)
            if claim is Claim.ADDED:  # nothing was made: the place is free again
                await self.tables.live.remove_open_table(me.player_id, table_id)
            raise
        return _response(outcome.table, me, outcome.duplicate)

    async def _claim_a_table(self, player_id: str, table_id: str) -> Claim:
        """A place for `table_id` among the player's unfinished tables, counted and taken in one
        atomic step (concurrent creates cannot overshoot); TooManyRequests at the limit. Only
        at the limit are the listed tables looked at: one that finished while the live state
        was not told (a node died mid-update) stops counting, and the claim is tried again."""
        live, limit = self.tables.live, self.open_tables_per_player
        claim = await live.claim_open_table(player_id, table_id, limit)
        if claim is not Claim.REFUSED:
            return claim
        for listed in await live.open_tables(player_id):
            try:
                finished = (await self.tables.get(listed)).status is Status.MATCH_OVER
            except TableNotFound:
                finished = False  # claimed by a create still under way: it counts
            if finished:
                await live.remove_open_table(player_id, listed)
        claim = await live.claim_open_table(player_id, table_id, limit)
        if claim is Claim.REFUSED:
            raise TooManyRequests(f"you already have {limit} unfinished tables, the most one "
                                  f"player may have: finish or abandon one first")
        return claim

    @unary
    async def Join(self, request: game_pb2.JoinRequest, context: Any) -> game_pb2.TableResponse:
        me = await self._caller()
        seat = request.seat if request.HasField("seat") else None
        sit = Sit(me.player_id, seat)
        if request.bot_id:
            if not me.is_admin:
                raise Forbidden("only operators (the matchmaker) seat bots")
            if len(request.bot_id) > MAX_ID_LENGTH or not request.bot_id.isprintable():
                raise wire.BadRequest(f"bot_id is at most {MAX_ID_LENGTH} printable characters")
            sit = Sit(request.bot_id, seat, bot=True)

        async def local() -> game_pb2.TableResponse:
            outcome = await self.tables.execute(_table_id(request.table_id), sit,
                                                command_id=_request_id(me, request.request_id),
                                                actor=me.player_id)
            return _response(outcome.table, me, outcome.duplicate)

        return await self.forwarder.routed("Join", request, context, local)

    @unary
    async def Ready(self, request: game_pb2.TableRequest, context: Any) -> game_pb2.TableResponse:
        me = await self._caller()

        async def local() -> game_pb2.TableResponse:
            outcome = await self.tables.ready(_table_id(request.table_id), me.player_id,
                                              command_id=_request_id(me, request.request_id),
                                              **_nonces(request))
            return _response(outcome.table, me, outcome.duplicate)

        return await self.forwarder.routed("Ready", request, context, local)

    @unary
    async def Leave(self, request: game_pb2.TableRequest, context: Any) -> game_pb2.TableResponse:
        return await self._own_seat("Leave", Leave, request, context)

    @unary
    async def TakeBack(self, request: game_pb2.TableRequest, context: Any) -> game_pb2.TableResponse:
        return await self._own_seat("TakeBack", TakeBack, request, context)

    async def _own_seat(self, name: str, command: Callable[[str], Any], request: game_pb2.TableRequest,
                        context: Any) -> game_pb2.TableResponse:
        """A table command about the caller's own seat, with nothing but the caller in it."""
        me = await self._caller()

        async def local() -> game_pb2.TableResponse:
            outcome = await self.tables.execute(_table_id(request.table_id), command(me.player_id),
                                                command_id=_request_id(me, request.request_id),
                                                actor=me.player_id)
            return _response(outcome.table, me, outcome.duplicate)

        return await self.forwarder.routed(name, request, context, local)

    @unary
    async def Act(self, request: game_pb2.ActRequest, context: Any) -> game_pb2.TableResponse:
        me = await self._caller()
        if not request.action_id:
            raise wire.BadRequest("action_id is required: a unique id per action makes retries safe")
        table_id = _table_id(request.table_id)
        command_id = _request_id(me, request.action_id)
        expected = request.expected_version if request.HasField("expected_version") else None

        async def local() -> game_pb2.TableResponse:
            table = await self.tables.serve(table_id)
            seat = table.seat_of(me.player_id)
            if seat is None:
                raise Forbidden("you do not sit at this table")
            structlog.contextvars.bind_contextvars(seat=seat)
            cmd = wire.action_to_command(request.action, seat)
            outcome = await self.tables.execute(table_id, Act(me.player_id, cmd), command_id=command_id,
                                                actor=me.player_id, expected_version=expected,
                                                numbered=lambda t: t.seen_by(seat))
            return _response(outcome.table, me, outcome.duplicate)

        return await self.forwarder.routed("Act", request, context, local)

    @unary
    async def GetView(self, request: game_pb2.TableRequest, context: Any) -> game_pb2.ViewResponse:
        me = await self._caller()

        async def local() -> game_pb2.ViewResponse:
            table = await self.tables.serve(_table_id(request.table_id))
            return view_response(table, _observer(table, me), self.tables)

        return await self.forwarder.routed("GetView", request, context, local)

    @streaming
    async def Watch(self, request: game_pb2.WatchRequest, context: Any) -> AsyncIterator[game_pb2.TableUpdate]:
        me = await self._caller()
        # Counted before any wait, so concurrent opens cannot overshoot; operators' tools may
        # watch every table.
        watching = self._watching
        if not me.is_admin and watching[me.player_id] >= self.watch_streams_per_player:
            raise TooManyRequests(f"at most {self.watch_streams_per_player} Watch streams per player "
                                  f"at once: close one first")
        watching[me.player_id] += 1
        told = request.from_version
        try:
            table_id = _table_id(request.table_id)
            if request.from_version < 0:
                raise wire.BadRequest("from_version cannot be negative")
            table = await self.tables.get(table_id)
            seat = _observer(table, me)
            structlog.contextvars.bind_contextvars(seat=seat)
            try:
                # A version nobody was ever sent is refused: waiting for it would hang.
                after = await resume.table_version(self.tables.repository, table, seat, request.from_version)
            except resume.BeyondLatest as exc:
                raise wire.BadRequest(str(exc)) from None
            # Accepted: said at once, as the stream may wait long for its first update (a client,
            # and the fuzzer's "…or hangs", tell a following stream from one the server never answered).
            await context.send_initial_metadata(())
            had_legal, status = True, None
            with_views, player_id = request.with_views, me.player_id
            async for batch in self.tables.watch(table_id, seat, after):
                # Numbered as this observer counts: the batch's events are the last it saw.
                seen = batch.table.seen_by(seat)
                if seen == told:
                    continue  # a move hidden from this observer: an update would tell when it came
                first = seen - len(batch.events) + 1
                encoded = batch.encoded
                events = [_event_fields(first + n, ev, encoded) for n, (_, ev) in enumerate(batch.events)]
                view = None
                if with_views:
                    table = batch.table
                    now = _status(table)
                    legal = legal_actions(table, seat, now)
                    # Without a decision to make, a seat's view follows from the events it got; one
                    # whose own move used up its decision knows that from its Act's answer.
                    lost = had_legal and batch.actor != player_id
                    if legal or lost or now is not status:
                        view = _view_parts(table, seat, self.tables, legal, batch.due_ms, now)
                    had_legal, status = bool(legal), now
                if view is None and not events:
                    continue
                # Built from constructor arguments: upb copies a message given by serializing it.
                update = game_pb2.TableUpdate(**_update(seen, events, view))
                if view is not None and view[1]:
                    update.view.MergeFromString(view[1])
                told = seen
                yield update
        except FellBehind as exc:
            raise FellBehind(f"{exc}: Watch again with from_version={told}") from None
        finally:
            watching[me.player_id] -= 1
            if not watching[me.player_id]:
                del watching[me.player_id]


def _update(version: int, events: list[dict[str, Any]],
            view: tuple[dict[str, Any], bytes] | None) -> dict[str, Any]:
    if view is None:
        return {"version": version, "events": events}
    return {"version": version, "events": events, "view": view[0]}


# An event's words, made once per event for every seat that sees it alike: its type and its
# data as JSON text, as json.dumps(data, ensure_ascii=False) writes it.
_JSON = json_text.encoder(compact=False, allow_nan=True)


def _words(ev: Any, encoded: dict[Any, tuple[Any, Any]]) -> tuple[str, str]:
    known = encoded.get(id(ev))
    if known is None or known[0] is not ev:
        # Redaction makes a new event per seat, but the seats that may not see a card all get
        # equal ones: those are put into words once, found by value (when the event hashes).
        try:
            same = encoded.get(ev)
        except TypeError:  # a field that does not hash (a list): words of its own
            same = None
        if same is None:
            name, _, data = encode(ev)
            same = (ev, (name, _JSON(data)))
            with contextlib.suppress(TypeError):
                encoded[ev] = same
        known = encoded[id(ev)] = (ev, same[1])
    return typing.cast(tuple[str, str], known[1])


def _event_fields(version: int, ev: Any, encoded: dict[Any, tuple[Any, Any]]) -> dict[str, Any]:
    """A TableEvent's constructor arguments (upb builds a repeated message from them faster than
    it copies a message given)."""
    name, data_json = _words(ev, encoded)
    return {"version": version, "type": name, "data_json": data_json}


# A table's status, found once for all the seats that watch one version of it (a frozen
# table's status never changes): by identity, holding the table so that its id stays its own.
# Few are kept: each holds a whole table alive.
_STATUSES: dict[int, tuple[Table, Status]] = {}
MAX_REMEMBERED_STATUSES = 256  # the seats of one batch ask one after the other


def _status(table: Table) -> Status:
    known = _STATUSES.get(id(table))
    if known is not None and known[0] is table:
        return known[1]
    if len(_STATUSES) >= MAX_REMEMBERED_STATUSES:
        _STATUSES.clear()  # only costs asking again
    status = table.status
    _STATUSES[id(table)] = (table, status)
    return status


def legal_actions(table: Table, seat: int | None, status: Status | None = None) -> list[Any]:
    """What `seat` may do now (nothing outside a hand); `status`: the table's, when known."""
    if seat is None or (table.status if status is None else status) is not Status.IN_HAND:
        return []
    return table.rules.legal_actions(table.game, seat)


def view_response(table: Table, seat: int | None, tables: TableService,
                  legal: list[Any] | None = None, due_ms: int | None = None) -> game_pb2.ViewResponse:
    """A seat's whole view of a table, with its legal actions (computed unless given) and when
    its pending decision times out (`due_ms`, else as the table clock armed it)."""
    fields, parts = _view_parts(table, seat, tables, legal, due_ms, table.status)
    response = game_pb2.ViewResponse(**fields)
    if parts:
        response.MergeFromString(parts)
    return response


_VIEW = game_pb2.ViewResponse.DESCRIPTOR.fields_by_name["view"].number
_LEGAL = game_pb2.ViewResponse.DESCRIPTOR.fields_by_name["legal_actions"].number
_RULESETS = {f.name: f.number for f in views_pb2.View.DESCRIPTOR.fields}


def _view_parts(table: Table, seat: int | None, tables: TableService, legal: list[Any] | None,
                due_ms: int | None, status: Status) -> tuple[dict[str, Any], bytes]:
    """view_response as a ViewResponse's constructor arguments and the wire bytes of its message
    fields to merge in after (wire.view_parts): no message is built only to be copied."""
    if legal is None:
        legal = legal_actions(table, seat, status)
    delay = tables.delay_ms(table)
    view, parts = wire.view_parts(table.ruleset, table.rules.view(table.game, seat))
    fields = {
        "table_id": table.table_id, "version": table.seen_by(seat), "seat": -1 if seat is None else seat,
        "status": status.value, "players": [p or "" for p in table.seats],
        "ready": sorted(table.ready), "auto_play": sorted(table.auto),
        "view": {table.ruleset: view},
        "deadline_ms": delay or 0,
        "deadline_at_ms": (due_ms if due_ms is not None else tables.deadlines.due_at_ms(table)) or 0,
    }
    if parts:
        parts = wire.field_bytes(_VIEW, wire.field_bytes(_RULESETS[table.ruleset], parts))
    if legal:
        parts += wire.encoded_actions(_LEGAL, legal[:MAX_LEGAL_ACTIONS])
    return fields, parts


class AdminServicer(_Limited, admin_pb2_grpc.AdminServicer):
    async def _admin(self) -> auth.Identity:
        me = await self._caller()
        if not me.is_admin:
            raise Forbidden("operators only: this call needs a token with the admin role")
        return me

    @unary
    async def CreateFixedTable(self, request: admin_pb2.CreateFixedTableRequest, context: Any) -> game_pb2.TableResponse:
        me = await self._admin()
        options = wire.options_from_struct(request.options) if request.HasField("options") else {}
        _check_new_table(request.ruleset, options, request.deal_json)
        command_id = _request_id(me, request.request_id)
        table_id = _new_table_id(self.tables, me, request.request_id)
        outcome = await self.tables.create(request.ruleset, options, me.player_id,
                                           fixed_deal=request.deal_json, command_id=command_id,
                                           table_id=table_id)
        return _response(outcome.table, me, outcome.duplicate)

    @streaming
    async def Replay(self, request: admin_pb2.ReplayRequest, context: Any) -> AsyncIterator[admin_pb2.ReplayStep]:
        await self._admin()
        table_id = _table_id(request.table_id)
        if request.from_version < 0 or request.to_version < 0:
            raise wire.BadRequest("versions cannot be negative")
        async for version, rec, state in replay(self.tables, table_id, request.from_version or 1,
                                                request.to_version or None):
            yield admin_pb2.ReplayStep(
                version=version, type=rec.type,
                data_json=json.dumps(rec.data, ensure_ascii=False),
                metadata_json=json.dumps(rec.metadata, ensure_ascii=False),
                state_json=json.dumps(to_json(state), ensure_ascii=False),
                recorded_at=rec.recorded_at.isoformat())

    @unary
    async def Verify(self, request: admin_pb2.VerifyRequest, context: Any) -> admin_pb2.VerifyResponse:
        await self._admin()
        records = await self.tables.history(_table_id(request.table_id))
        result = verify(records)
        return admin_pb2.VerifyResponse(
            ok=result.ok, events_checked=result.events_checked,
            commands_checked=result.commands_checked,
            first_mismatch_version=result.first_mismatch_version, mismatch=result.mismatch,
            decks_checked=result.decks_checked, problems=result.problems,
            deals_checked=result.deals_checked)

    @unary
    async def ListTables(self, request: admin_pb2.ListTablesRequest, context: Any) -> admin_pb2.ListTablesResponse:
        await self._admin()
        summaries = []
        for table_id in sorted(await self.tables.live.live_tables()):
            try:
                table = await self.tables.get(table_id)
            except LookupError:
                continue
            summaries.append(admin_pb2.TableSummary(
                table_id=table_id, ruleset=table.ruleset, version=table.version,
                status=table.status.value, players=[p or "" for p in table.seats]))
        return admin_pb2.ListTablesResponse(tables=summaries)


    @unary
    async def CloseTable(self, request: admin_pb2.CloseTableRequest, context: Any) -> game_pb2.TableResponse:
        me = await self._admin()
        table_id = _table_id(request.table_id)
        reason = request.reason or OPERATOR_CLOSE
        if len(reason) > MAX_ID_LENGTH or not reason.isprintable():
            raise wire.BadRequest(f"reason: at most {MAX_ID_LENGTH} printable characters")
        command_id = _request_id(me, request.request_id)

        async def local() -> game_pb2.TableResponse:
            outcome = await self.tables.execute(table_id, Close(reason), command_id=command_id,
                                                actor=me.player_id)
            return _response(outcome.table, me, outcome.duplicate)

        return await self.forwarder.routed("CloseTable", request, context, local, admin_pb2_grpc.AdminStub)


OPERATOR_CLOSE = "operator"  # the reason table.Closed records when an operator gave none


async def replay(tables: TableService, table_id: str, first: int, last: int | None) -> AsyncIterator[tuple[int, Any, Table]]:
    """Each event from `first` to `last` with the full table state after it."""
    state = Table()
    for rec in await tables.history(table_id):
        state = evolve(state, rec.decode())
        if rec.version < first:
            continue
        if last is not None and rec.version > last:
            break
        yield rec.version, rec, state


def register(server: grpc.aio.Server, tables: TableService, secret: str,
             guest_logins_per_minute: int = GUEST_LOGINS_PER_MINUTE,
             open_tables_per_player: int = OPEN_TABLES_PER_PLAYER,
             client_address: ClientAddress | None = None,
             watch_streams_per_player: int = WATCH_STREAMS_PER_PLAYER) -> None:
    """Add the Auth, Game and Admin servicers to `server`."""
    auth_pb2_grpc.add_AuthServicer_to_server(
        AuthServicer(secret, tables, guest_logins_per_minute, client_address), server)
    limiter = RateLimiter(RATE_LIMIT, RATE_LIMIT)
    game_pb2_grpc.add_GameServicer_to_server(
        GameServicer(tables, limiter, open_tables_per_player, watch_streams_per_player), server)
    admin_pb2_grpc.add_AdminServicer_to_server(AdminServicer(tables, limiter), server)
