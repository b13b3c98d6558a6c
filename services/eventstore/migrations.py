"""Versioned SQL migrations: `NNNN_name.sql` files applied in order, each recorded once."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path

from .errors import MigrationError

POSTGRES_DIR = Path(__file__).resolve().parents[2] / "infra" / "postgres"
SQLITE_DIR = Path(__file__).resolve().parent / "sqlite_migrations"

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


@dataclasses.dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def load(directory: Path) -> list[Migration]:
    """The migrations in `directory`, ordered by version; numbering must have no gaps."""
    found = []
    for path in sorted(directory.glob("*.sql")):
        match = _NAME.match(path.name)
        if match is None:
            raise MigrationError(f"migration file {path} is not named NNNN_name.sql")
        found.append(Migration(int(match.group(1)), path.name, path.read_text()))
    if not found:
        raise MigrationError(f"no migrations found in {directory}")
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise MigrationError(f"migration {migration.name} should be numbered {expected:04d}")
    return found


def verify(migration: Migration, recorded_checksum: str) -> None:
    """An applied migration whose file has since changed means the database and code disagree."""
    if recorded_checksum != migration.checksum:
        raise MigrationError(
            f"migration {migration.name} was applied with different contents; "
            "add a new migration instead of editing an applied one"
        )
