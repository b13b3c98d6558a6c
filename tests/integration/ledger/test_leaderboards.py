"""Leaderboards: chips won per ruleset and period, projected from settlement transfers, in
memory and in Redis alike, and rebuilt from the transfers to the same boards."""

from __future__ import annotations

import pytest

from services.ledger.errors import InvalidTransfer
from services.ledger.leaderboard import Entry
from services.ledger.service import LedgerService
from services.ledger.transfers import Transfer

from .conftest import player, shanghai

pytestmark = pytest.mark.integration


@pytest.fixture
def boarded(ledger, boards, clock, ledger_config) -> LedgerService:
    return LedgerService(ledger, boards, ledger_config, clock)


async def settle(service: LedgerService, hand: str, payer: str, payee: str, chips: int,
                 ruleset: str = "koudian") -> None:
    """A settlement payment between two seats, as the settlement consumer will post it."""
    for seat, who in ((0, payer), (1, payee)):
        await service.store.post(Transfer(f"buyin/t{hand}/{seat}/{who}/1", "house", f"table/t{hand}/seat/{seat}",
                                          1000, "buyin"), open_credit=True)
    posted = await service.store.post(Transfer(
        f"settle/t{hand}/1/0/1/win", f"table/t{hand}/seat/0", f"table/t{hand}/seat/1", chips, "settle",
        details={"ruleset": ruleset, "payer_player": payer, "payee_player": payee}))
    await service.project([posted])


async def test_chips_won_rank_players_and_losses_count_against_them(boarded):
    await settle(boarded, "1", "bob", "ann", 30)
    await settle(boarded, "2", "cy", "ann", 20)
    await settle(boarded, "3", "cy", "bob", 5)
    key, top, me, near, players = await boarded.leaderboard(player("bob"), "koudian", "all", 10, 0)
    assert key == "all" and players == 3
    assert top == [Entry(1, "ann", 50), Entry(2, "bob", -25), Entry(3, "cy", -25)] or \
        top == [Entry(1, "ann", 50), Entry(2, "cy", -25), Entry(3, "bob", -25)]
    assert me.player_id == "bob" and me.chips_won == -25 and me.rank in (2, 3)


async def test_around_me_shows_the_places_either_side_of_mine(boarded):
    for n in range(9):
        await settle(boarded, str(n), f"loser{n}", f"p{n}", 10 * (n + 1))
    _, top, me, near, _ = await boarded.leaderboard(player("p4"), "koudian", "all", 3, 1)
    assert [e.player_id for e in top] == ["p8", "p7", "p6"]
    assert me == Entry(5, "p4", 50)
    assert [(e.rank, e.player_id) for e in near] == [(4, "p5"), (5, "p4"), (6, "p3")]
    _, _, nobody, near, _ = await boarded.leaderboard(player("zed"), "koudian", "all", 3, 2)
    assert nobody == Entry(0, "zed", 0) and near == []


async def test_boards_are_per_ruleset(boarded):
    await settle(boarded, "1", "bob", "ann", 30, ruleset="daqi")
    assert (await boarded.leaderboard(player("ann"), "koudian", "all", 10, 0))[1] == []
    assert (await boarded.leaderboard(player("ann"), "daqi", "all", 10, 0))[1] == [
        Entry(1, "ann", 30), Entry(2, "bob", -30)]


async def test_the_day_board_starts_empty_after_local_midnight_and_the_week_board_on_monday(boarded, clock):
    clock.now = shanghai("2026-12-05 23:00:00")  # a Saturday
    await settle(boarded, "1", "bob", "ann", 30)
    await _posted_at(boarded, clock)
    clock.now = shanghai("2026-12-06 00:00:01")
    day = await boarded.leaderboard(player("ann"), "koudian", "day", 10, 0)
    week = await boarded.leaderboard(player("ann"), "koudian", "week", 10, 0)
    assert day[0] == "2026-12-06" and day[1] == []
    assert week[0] == "2026-W49" and week[1] == [Entry(1, "ann", 30), Entry(2, "bob", -30)]
    clock.now = shanghai("2026-12-07 00:00:01")  # Monday
    week = await boarded.leaderboard(player("ann"), "koudian", "week", 10, 0)
    assert week[0] == "2026-W50" and week[1] == []


async def _posted_at(service: LedgerService, clock) -> None:
    """Settlements carry the database's time; re-project them at the fake clock's instead."""
    posted = [p async for p in service.store.of_kind("settle")]
    shifted = [type(p)(p.transfer, p.sequence, clock.now, True) for p in posted]
    await service.boards.replace({})
    await service.project(shifted)


async def test_a_rebuild_from_the_transfers_gives_the_same_boards(boarded):
    for n in range(6):
        await settle(boarded, str(n), f"p{n % 3}", f"p{(n + 1) % 3}", 7 * n + 1)
    before = await boarded.leaderboard(player("p1"), "koudian", "all", 10, 5)
    await boarded.boards.replace({"koudian:all:all": {"stale": 999}})
    assert await boarded.rebuild_leaderboards() == 6
    assert await boarded.boards.is_built()
    assert await boarded.leaderboard(player("p1"), "koudian", "all", 10, 5) == before


async def test_a_board_asked_for_an_unknown_ruleset_or_a_bad_limit_is_refused(boarded):
    with pytest.raises(InvalidTransfer, match="unknown ruleset"):
        await boarded.leaderboard(player("ann"), "poker", "all", 10, 0)
    with pytest.raises(InvalidTransfer, match="limit"):
        await boarded.leaderboard(player("ann"), "koudian", "all", 500, 0)


async def test_a_retried_settlement_is_counted_once(boarded):
    await settle(boarded, "1", "bob", "ann", 30)
    await settle(boarded, "1", "bob", "ann", 30)
    assert (await boarded.leaderboard(player("ann"), "koudian", "all", 10, 0))[1][0] == Entry(1, "ann", 30)
