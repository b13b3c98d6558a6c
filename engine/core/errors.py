"""Rule violations: the one error the engine raises for an illegal command."""

from __future__ import annotations


class RuleViolation(Exception):
    """An illegal command. `code` is stable (clients and tests match on it); `message` is for players."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
