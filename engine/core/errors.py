"""Rule violations: the one error the engine raises for an illegal command, and the codes every
ruleset shares (a game's own codes are written where its rule is)."""

from __future__ import annotations


class RuleViolation(Exception):
    """An illegal command. `code` is stable (clients and tests match on it); `message` is for players."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


NO_TABLE = "no_table"  # a command before the table's creation event
NO_SUCH_SEAT = "no_such_seat"  # a seat number outside the table
HAND_IN_PROGRESS = "hand_in_progress"  # a deal while a hand is being played
NO_HAND_IN_PROGRESS = "no_hand_in_progress"  # a move between hands
MATCH_OVER = "match_over"  # any command once the match has ended
NOT_YOUR_TURN = "not_your_turn"  # a move by a seat that does not owe one
UNKNOWN_COMMAND = "unknown_command"  # a command of another game
BAD_DEAL = "bad_deal"  # a fixed deal that is not the full deck, or names no seat


def check_seat(seat: object, seats: int) -> int:
    """`seat` when it is a seat of a table of `seats`; else RuleViolation NO_SUCH_SEAT."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
        raise RuleViolation(NO_SUCH_SEAT, f"There is no seat {seat!r} at this table (0..{seats - 1}).")
    return seat
