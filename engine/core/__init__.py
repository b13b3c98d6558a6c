"""What every ruleset shares: the contract, rule violations, the message codec, seeded shuffles."""

from engine.core.contract import Deadline, HandResult, Ruleset, StartHand, Status
from engine.core.errors import RuleViolation
from engine.core.messages import command, decode, encode, event
from engine.core.shuffle import commitment, seeded_shuffle

__all__ = [
    "Deadline",
    "HandResult",
    "StartHand",
    "RuleViolation",
    "Ruleset",
    "Status",
    "command",
    "commitment",
    "decode",
    "encode",
    "event",
    "seeded_shuffle",
]
