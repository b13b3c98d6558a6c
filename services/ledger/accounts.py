"""Account names: who owns an account says what it may do.

- `player/<id>`: a player's chips;
- `table/<id>/seat/<n>`: the stack a seat brought to a table;
- `house`: the issuer, the only account that may go below zero. It is stored as `HOUSE_SHARDS`
  rows (`house/0` ... `house/N-1`): every check-in and grant touches the house, and one row
  would serialise them all behind its lock. Its balance is the sum of its shards.
"""

from __future__ import annotations

import re

from .errors import InvalidTransfer

HOUSE = "house"
CHIPS = "chips"
HOUSE_SHARDS = 16

_PLAYER = re.compile(r"^player/[^/\s]{1,128}$")
_SEAT = re.compile(r"^table/[^/\s]{1,128}/seat/\d{1,2}$")
_SHARD = re.compile(r"^house/\d{1,4}$")
_CURRENCY = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


def player(player_id: str) -> str:
    """The account of `player_id`."""
    return account(f"player/{player_id}")


def seat(table_id: str, seat_no: int) -> str:
    """The stack account of seat `seat_no` at `table_id`."""
    return account(f"table/{table_id}/seat/{seat_no}")


def account(name: str) -> str:
    """`name` if it names an account (a player, a seat's stack or the house); else InvalidTransfer."""
    if not isinstance(name, str) or not (name == HOUSE or _PLAYER.match(name) or _SEAT.match(name)):
        raise InvalidTransfer(
            f"account {name!r} is not 'player/<id>', 'table/<id>/seat/<n>' or 'house'"
        )
    return name


def named(name: str) -> str:
    """The account a person names: a seat's stack may be written with the table id as every
    other command prints it (`table/table-3f2a/seat/0`) or as the ledger stores it
    (`table/3f2a/seat/0`, without the event stream's `table-`)."""
    if isinstance(name, str) and name.startswith("table/table-"):
        name = "table/" + name.removeprefix("table/table-")
    return account(name)


def currency(name: str) -> str:
    if not isinstance(name, str) or not _CURRENCY.match(name):
        raise InvalidTransfer(f"currency {name!r} must be lower-case letters, digits and _")
    return name


def is_house(name: str) -> bool:
    return name == HOUSE or bool(_SHARD.match(name))


def house_shard(n: int) -> str:
    return f"house/{n % HOUSE_SHARDS}"


def logical(stored: str) -> str:
    """The account a stored row belongs to: `house/7` is the house."""
    return HOUSE if _SHARD.match(stored) else stored


def owner_player(name: str) -> str | None:
    """The player who owns `name`, if it is a player account."""
    return name.removeprefix("player/") if _PLAYER.match(name) else None
