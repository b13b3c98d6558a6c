"""One live table at a time through matchmaking: a player seated by a public match or a room's
start may not create or join another room, nor be seated by another room's start, until that
table is over for them (its match over, or they stood up). On memory, a real Redis and a real
Redis Cluster; the Redis tests run two matchmaking nodes, each with its own connections, so
what one node seated the other refuses."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from services.live import LiveState, open_live_state
from services.matchmaking.config import parse_queues
from services.matchmaking.one_table import AlreadySeated, OneTable
from services.matchmaking.queues import Matchmaker
from services.matchmaking.redis_store import RedisTicketStore
from services.matchmaking.room import RoomState
from services.matchmaking.room_config import RoomSettings
from services.matchmaking.room_service import RoomService
from services.matchmaking.room_store import RoomStore, open_room_store
from services.matchmaking.store import MemoryTicketStore, TicketStore
from services.matchmaking.tickets import SEARCHING, Ticket, new_ticket_id

pytestmark = pytest.mark.integration

T0 = 1_700_000_000_000
QUEUES = parse_queues({"defaults": {"bot_fill_after_s": 0, "grace_s": 600},
                     "rulesets": {"koudian": {"presets": {"standard": {}},
                                              "tiers": {"bronze": {"stake": 1}}}}}
                    )
SPEC = QUEUES.queues["koudian/standard/bronze"]
FOUR = ("ann", "bob", "cy", "dee")


class Game:
    """Stands in for the game service (GameGateway.seated; the real one is in the e2e tests):
    who sits at which table, and which tables' matches are over."""

    def __init__(self) -> None:
        self.sitting: set[tuple[str, str]] = set()
        self.over: set[str] = set()

    def sit(self, table_id: str, players: Sequence[str]) -> None:
        self.sitting.update((table_id, p) for p in players)

    def stand_up(self, table_id: str, player_id: str) -> None:
        self.sitting.discard((table_id, player_id))

    async def seated(self, table_id: str, player_id: str) -> bool:
        return (table_id, player_id) in self.sitting and table_id not in self.over


class Tables:
    """A room's Seat: makes the table (keyed by match id) and sits the members in the Game."""

    def __init__(self, game: Game) -> None:
        self.game = game

    async def __call__(self, match_id: str, ruleset: str, options: Mapping[str, Any], stake: int,
                       players: Sequence[str | None], bots: str = "") -> str:
        await asyncio.sleep(0)
        self.game.sit("table-" + match_id, players)
        return "table-" + match_id


@dataclass
class Node:
    """One matchmaking process: its own connections to the shared tickets and rooms."""

    tickets: TicketStore
    rooms: RoomService
    live: LiveState


class Clock:
    def __init__(self) -> None:
        self.now_ms = T0

    def __call__(self) -> int:
        return self.now_ms


@pytest.fixture
def game() -> Game:
    return Game()


@pytest.fixture
async def nodes(live_url: str, game: Game) -> AsyncIterator[tuple[Node, Node]]:
    """Two matchmaking nodes on one deployment (on memory, one process is the deployment)."""
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    clock = Clock()
    opened: list[Node] = []

    def node() -> Node:
        memory = live_url == "memory://"
        if memory and opened:
            return opened[0]
        tickets: TicketStore = MemoryTicketStore() if memory else RedisTicketStore(live_url, namespace)
        store: RoomStore = open_room_store(live_url, namespace, **({} if memory else {"clock": clock}))
        live = open_live_state(live_url, namespace=namespace, clock=clock)
        rooms = RoomService(store, live, Tables(game), RoomSettings(expiry_s=600), clock)
        rooms.one_table = OneTable(game, tickets, rooms.table_of)
        opened.append(Node(tickets, rooms, live))
        return opened[-1]

    yield node(), node()
    await opened[0].live.flush_namespace()  # tickets and rooms share the namespace
    for n in opened:
        await n.tickets.close()
        await n.rooms.store.close()
        await n.live.close()


async def public_match(node: Node, game: Game, players: Sequence[str]) -> str:
    """`players` matched by the public queue and seated at its table (as Matchmaker.seat does)."""
    for player in players:
        await node.tickets.enqueue(Ticket(new_ticket_id(SPEC.name), player, SPEC.name, SEARCHING,
                                          T0, rating=1500, expires_ms=T0 + 600_000))
    [match] = await node.tickets.form(SPEC, T0 + 1, 15_000, 1)
    table_id = "table-public-" + match.match_id
    assert await node.tickets.matched(match.match_id, SPEC.name, table_id,
                                      {t: n for n, t in enumerate(match.tickets)})
    game.sit(table_id, match.players)
    return table_id


async def started_room(node: Node, players: Sequence[str]) -> tuple[str, str]:
    """A room of `players` started by `node`: its code and table."""
    room = await node.rooms.create(players[0], "koudian", {}, 0, 0)
    for player in players[1:]:
        await node.rooms.join(player, room.code, "")
    for player in players:
        room = await node.rooms.set_ready(player, room.code, True)
    assert room.state is RoomState.STARTED
    return room.code, room.table_id


async def test_a_player_seated_by_a_public_match_cannot_create_or_join_a_room(nodes, game):
    one, two = nodes
    table_id = await public_match(one, game, FOUR)
    other = await two.rooms.create("eve", "koudian", {}, 0, 0)
    for node in (one, two):  # whichever node they reach
        with pytest.raises(AlreadySeated) as created:
            await node.rooms.create("ann", "koudian", {}, 0, 0)
        assert str(created.value) == (f"you sit at table {table_id}, whose match is not over: "
                                      f"finish it or leave it before creating a room")
        with pytest.raises(AlreadySeated) as joined:
            await node.rooms.join("bob", other.code, "")
        assert "finish it or leave it before joining a room" in str(joined.value)
    assert [m.player_id for m in (await two.rooms.get(other.code)).members] == ["eve"]


async def test_a_player_at_a_rooms_table_cannot_create_or_join_another_room(nodes, game):
    one, two = nodes
    code, table_id = await started_room(one, FOUR)
    other = await two.rooms.create("eve", "koudian", {}, 0, 0)
    for node in (one, two):
        with pytest.raises(AlreadySeated, match=f"you sit at table {table_id}, whose match is not over"):
            await node.rooms.create("cy", "koudian", {}, 0, 0)
        with pytest.raises(AlreadySeated, match="before joining a room"):
            await node.rooms.join("dee", other.code, "")
    # Joining their own room again is not a second table: the room, as it is.
    assert (await two.rooms.join("dee", code, "")).table_id == table_id


async def test_a_player_is_free_again_once_their_match_is_over_or_they_stood_up(nodes, game):
    one, two = nodes
    public = await public_match(one, game, FOUR)
    _, private = await started_room(one, ("eve", "fay", "gus", "hal"))
    game.over.add(public)  # the public match ended: all four are free
    room = await two.rooms.create("ann", "koudian", {}, 0, 0)
    await two.rooms.join("bob", room.code, "")
    game.stand_up(private, "eve")  # eve left her room's table; her friends still play
    await two.rooms.join("eve", room.code, "")
    with pytest.raises(AlreadySeated):
        await two.rooms.join("fay", room.code, "")
    assert [m.player_id for m in (await one.rooms.get(room.code)).members] == ["ann", "bob", "eve"]


async def test_a_room_does_not_start_while_a_member_sits_at_another_live_table(nodes, game):
    one, two = nodes
    room = await one.rooms.create("ann", "koudian", {}, 0, 0)
    for player in ("bob", "cy", "dee"):
        await one.rooms.join(player, room.code, "")
    for player in ("ann", "bob", "cy"):
        await one.rooms.set_ready(player, room.code, True)
    # dee queued from the lobby and was matched (allowed: a lobby is not a table), then readied.
    table_id = await public_match(two, game, ("dee", "eve", "fay", "gus"))
    with pytest.raises(AlreadySeated) as refused:
        await two.rooms.set_ready("dee", room.code, True)
    assert str(refused.value) == (f"dee sits at table {table_id}, whose match is not over: room "
                                  f"{room.code} starts once they finish it or leave it and are "
                                  f"ready again")
    held = await one.rooms.get(room.code)
    assert held.state is RoomState.OPEN and not held.starting
    assert [m.player_id for m in held.members if not m.ready] == ["dee"]
    game.over.add(table_id)
    started = await one.rooms.set_ready("dee", room.code, True)
    assert started.state is RoomState.STARTED
    assert await game.seated(started.table_id, "dee")


async def test_a_player_at_a_rooms_table_cannot_queue_on_any_node(nodes, game):
    one, two = nodes
    _, table_id = await started_room(one, FOUR)
    maker = Matchmaker(QUEUES, two.tickets, game, clock_ms=lambda: T0)  # type: ignore[arg-type]
    maker.one_table = two.rooms.one_table  # as serving.py wires it
    with pytest.raises(AlreadySeated) as refused:
        await maker.queue("ann", "koudian")
    assert str(refused.value) == (f"you sit at table {table_id}, whose match is not over: "
                                  f"finish it or leave it before queueing again")
    game.over.add(table_id)
    assert (await maker.queue("ann", "koudian")).state == SEARCHING
