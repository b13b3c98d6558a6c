from services.ratelimit import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_player_may_burst_then_is_held_to_the_rate():
    clock = Clock()
    limiter = RateLimiter(rate=10, burst=3, clock=clock)
    assert [limiter.allow("ann") for _ in range(4)] == [True, True, True, False]
    clock.now += 0.1
    assert limiter.allow("ann") and not limiter.allow("ann")


def test_players_have_separate_budgets():
    limiter = RateLimiter(rate=1, burst=1, clock=Clock())
    assert limiter.allow("ann") and limiter.allow("bob") and not limiter.allow("ann")
