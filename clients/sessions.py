"""The seats `qipai play` holds, remembered on disk so that a seat can be taken back.

A client that ends (a crash, a closed terminal, a server restart it did not outlive) leaves its
seat to the server's auto-play; `qipai play --table TABLE_ID` sits in it again. It needs the
token the seat was played with, and the bots of that process need theirs: both are kept in
`var/play/<table id>.json` (mode 0600: a token is a login), next to the token key `make run` keeps
in `var/`.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

DIRECTORY = Path("var") / "play"


@dataclass(frozen=True)
class BotSeat:
    seat: int
    player_id: str
    token: str


@dataclass(frozen=True)
class Session:
    """A seat at a table: who plays it (`token`) and the bots this client ran at the table."""

    table_id: str
    player_id: str
    token: str
    bot: str = "greedy"
    bots: tuple[BotSeat, ...] = field(default_factory=tuple)


def save(session: Session, directory: Path = DIRECTORY) -> None:
    """Remember `session` (replacing what was kept for its table)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{session.table_id}.json"
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(asdict(session), f)
    temporary.replace(path)


def load(table_id: str, directory: Path = DIRECTORY) -> Session | None:
    """The session kept for `table_id`, if any (None for a file that is not one)."""
    try:
        data = json.loads((directory / f"{table_id}.json").read_text())
        bots = tuple(BotSeat(**b) for b in data.pop("bots", ()))
        return Session(**data, bots=bots)
    except (OSError, ValueError, TypeError):
        return None


def of_player(player_id: str, directory: Path = DIRECTORY) -> list[Session]:
    """The sessions kept for `player_id`, the most recently played first."""
    paths = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True) \
        if directory.is_dir() else []
    found = (load(p.stem, directory) for p in paths)
    return [s for s in found if s is not None and s.player_id == player_id]


def forget(table_id: str, directory: Path = DIRECTORY) -> None:
    """Drop what was kept for a table whose match is over."""
    (directory / f"{table_id}.json").unlink(missing_ok=True)


def player_of(token: str) -> str:
    """The player id a token names (its `sub` claim; the server checks the signature), or ""."""
    claims = token.partition(".")[0]
    try:
        sub = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))["sub"]
    except (ValueError, KeyError, TypeError):
        return ""
    return sub if isinstance(sub, str) else ""
