"""What every ruleset shares: the contract and the package that implements it, the folding log,
option validation, rule violations and their shared codes, the message codec, seeded shuffles."""

from engine.core.contract import (
    AnyRuleset,
    Deadline,
    DeckReveal,
    HandResult,
    Ruleset,
    StartHand,
    Status,
)
from engine.core.errors import RuleViolation
from engine.core.messages import command, decode, encode, event
from engine.core.shuffle import commitment, seeded_shuffle

__all__ = [
    "AnyRuleset",
    "DeckReveal",
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
