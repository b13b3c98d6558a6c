"""每日签到: once per player per local day, the reward following the streak."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from services.ledger.errors import AlreadyCheckedIn, NotAllowed

from .conftest import operator, player, shanghai

pytestmark = pytest.mark.integration

ANN = player("ann")


async def test_the_first_check_in_of_a_day_pays_the_first_reward_from_the_house(service):
    posted, state = await service.check_in(ANN)
    assert posted.transfer.id == "checkin/ann/2026-12-01"
    assert (posted.transfer.debit, posted.transfer.credit, posted.transfer.amount) == ("house", "player/ann", 10)
    assert (state.checked_in_today, state.streak, state.reward) == (True, 1, 10)
    assert await service.store.balance("player/ann") == 1000 + 10


async def test_two_check_ins_at_once_give_one_reward(service):
    results = await asyncio.gather(*(service.check_in(ANN) for _ in range(8)), return_exceptions=True)
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, AlreadyCheckedIn) for r in results if isinstance(r, BaseException))
    assert await service.store.balance("player/ann") == 1010


async def test_a_second_check_in_the_same_day_names_the_next_check_in_time_at_local_midnight(service, clock):
    await service.check_in(ANN)
    clock.now = shanghai("2026-12-01 23:59:59")
    with pytest.raises(AlreadyCheckedIn) as caught:
        await service.check_in(ANN)
    assert caught.value.state.next_check_in_at == shanghai("2026-12-02 00:00:00")
    assert "2026-12-02T00:00:00+08:00" in str(caught.value)


async def test_the_day_rolls_over_at_local_midnight_not_at_utc_midnight(service, clock):
    clock.now = shanghai("2026-12-01 07:59:00")  # 23:59 UTC the day before
    await service.check_in(ANN)
    clock.now = shanghai("2026-12-01 08:01:00")  # UTC has rolled over, Shanghai has not
    with pytest.raises(AlreadyCheckedIn):
        await service.check_in(ANN)
    clock.now = shanghai("2026-12-02 00:00:00")
    posted, state = await service.check_in(ANN)
    assert posted.transfer.id == "checkin/ann/2026-12-02" and state.streak == 2


async def test_consecutive_days_grow_the_streak_and_the_reward_table_repeats_after_seven_days(service, clock):
    rewards = []
    for day in range(9):
        clock.now = shanghai("2026-12-01 09:00:00") + timedelta(days=day)
        posted, state = await service.check_in(ANN)
        rewards.append(posted.transfer.amount)
        assert state.streak == day + 1
    assert rewards == [10, 20, 30, 40, 50, 60, 100, 10, 20]


async def test_a_missed_day_resets_the_streak(service, clock):
    await service.check_in(ANN)
    clock.now += timedelta(days=1)
    await service.check_in(ANN)
    clock.now += timedelta(days=2)
    posted, state = await service.check_in(ANN)
    assert (state.streak, posted.transfer.amount) == (1, 10)


async def test_get_check_in_shows_todays_state_and_the_reward_waiting(service, clock):
    state = await service.check_in_state(ANN)
    assert (state.checked_in_today, state.streak, state.reward) == (False, 0, 10)
    await service.check_in(ANN)
    clock.now += timedelta(days=1)
    state = await service.check_in_state(ANN)
    assert (str(state.today), state.checked_in_today, state.streak, state.reward) == ("2026-12-02", False, 1, 20)
    assert state.next_check_in_at == clock.now and state.time_zone == "Asia/Shanghai"


async def test_operators_do_not_check_in(service):
    with pytest.raises(NotAllowed):
        await service.check_in(operator())
