"""Seat arithmetic. Play order is counter-clockwise, which in seat numbers is simply +1."""


def next_seat(seat: int, seats: int) -> int:
    """The seat that plays after `seat` (下家)."""
    return (seat + 1) % seats


def play_order(start: int, seats: int) -> tuple[int, ...]:
    """Every seat once, in play order, beginning with `start`."""
    return tuple((start + i) % seats for i in range(seats))
