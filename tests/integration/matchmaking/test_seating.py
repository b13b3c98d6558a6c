"""Seating a formed match at a real table (the game's table service and the ledger, on SQLite
and memory): bots and buy-ins, the same match seated twice, and a player short of chips."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from services.auth import ADMIN, Identity
from services.bootstrap import Backends, open_backends
from services.config import Settings
from services.ledger.config import ledger_settings
from services.ledger.leaderboard import MemoryLeaderboards
from services.ledger.service import LedgerService
from services.ledger.settlement import SettlementConsumer
from services.matchmaking.config import parse_queues
from services.matchmaking.game import InProcessGame
from services.matchmaking.queues import Matchmaker
from services.matchmaking.store import MemoryTicketStore
from services.matchmaking.tickets import CANCELLED, MATCHED, SEARCHING

pytestmark = pytest.mark.integration

CONFIG = parse_queues({"defaults": {"bot_fill_after_s": 1, "grace_s": 600},
                       "rulesets": {"koudian": {"presets": {"standard": {}},
                                                "tiers": {"bronze": {"stake": 1}, "gold": {"stake": 20}}}}})


@pytest.fixture
async def backends(tmp_path: Any) -> AsyncIterator[Backends]:
    opened = await open_backends(Settings(database_url=f"sqlite:///{tmp_path / 'e.sqlite3'}",
                                          redis_url="memory://", token_secret="k"))
    yield opened
    await opened.close()


def _ledger(backends: Backends) -> LedgerService:
    return LedgerService(backends.ledger, MemoryLeaderboards(), ledger_settings())


async def _balance(ledger: LedgerService, player: str) -> int:
    await ledger.welcome(player)
    return await ledger.store.balance(f"player/{player}")


async def test_a_lone_player_sits_with_three_bots_and_only_the_player_buys_in(backends):
    maker = Matchmaker(CONFIG, MemoryTicketStore(), InProcessGame(backends.tables))
    ticket = await maker.queue("ann", "koudian")
    await maker.form_once(ticket.created_ms + 1000, wait=True)
    seated = await maker.store.get(ticket.ticket_id)
    assert seated.state == MATCHED and seated.seat == 0
    table = await backends.tables.get(seated.table_id)
    assert table.seats[0] == "ann" and all(p.startswith("bot-") for p in table.seats[1:])
    assert table.chips.stacks == (100, 0, 0, 0) and table.auto == {1, 2, 3}
    assert await _balance(_ledger(backends), "ann") == 1000 - 100


async def test_a_match_seated_again_makes_no_second_table_and_charges_nobody_twice(backends):
    maker = Matchmaker(CONFIG, MemoryTicketStore(), InProcessGame(backends.tables))
    tickets = [await maker.queue(p, "koudian") for p in ("a", "b", "c", "d")]
    [match] = await maker.store.form(CONFIG.queues["koudian/standard/bronze"], tickets[0].created_ms,
                                     1000, 10)
    spec = CONFIG.queues[match.queue]
    players: list[str | None] = list(match.players)
    first = await maker.seating.seat_match(match.match_id, spec.ruleset, spec.options, spec.stakes, players)
    again = await maker.seating.seat_match(match.match_id, spec.ruleset, spec.options, spec.stakes, players)
    assert first == again and first.seats == ("a", "b", "c", "d")
    ledger = _ledger(backends)
    assert [await _balance(ledger, p) for p in "abcd"] == [900] * 4


async def test_a_player_short_of_chips_is_cancelled_and_the_others_go_back_to_the_front_uncharged(backends):
    ledger = _ledger(backends)
    operator = Identity("olga", ADMIN)
    for p in ("rich1", "rich2", "rich3"):  # a gold seat brings 2,000 chips; the welcome is 1,000
        await ledger.grant(operator, f"g-{p}", f"player/{p}", 5000, "", "test")
    maker = Matchmaker(CONFIG, MemoryTicketStore(), InProcessGame(backends.tables))
    tickets = [await maker.queue(p, "koudian", tier="gold") for p in ("rich1", "poor", "rich2", "rich3")]
    later = await maker.queue("late", "koudian", tier="gold")
    before = {p: await _balance(ledger, p) for p in ("rich1", "poor", "rich2", "rich3")}
    await maker.form_once(tickets[0].created_ms + 10, wait=True)
    poor = await maker.store.get(tickets[1].ticket_id)
    assert (poor.state, poor.cancel_reason) == (CANCELLED, "insufficient_chips")
    assert "chips" in poor.cancel_detail
    back = [await maker.store.get(t.ticket_id) for t in (tickets[0], tickets[2], tickets[3], later)]
    assert [t.state for t in back] == [SEARCHING] * 4
    assert [await maker.store.position(t) for t in back] == [1, 2, 3, 4]
    await SettlementConsumer(backends.store, ledger).catch_up()  # the cash-outs of those who stood up
    assert {p: await _balance(ledger, p) for p in before} == before
