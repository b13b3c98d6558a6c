"""Versioned SQL migrations: `NNNN_name.sql` files applied in order, each recorded once.

The files are package data (`postgres_migrations/`, `sqlite_migrations/` beside the stores that
apply them), read through `importlib.resources` so that an installed wheel finds them too."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Mapping, Sequence
from importlib.resources import files
from importlib.resources.abc import Traversable

import psycopg
from psycopg import sql

from .errors import MigrationError

POSTGRES_DIR = files("services.eventstore") / "postgres_migrations"
SQLITE_DIR = files("services.eventstore") / "sqlite_migrations"

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


@dataclasses.dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def load(directory: Traversable) -> list[Migration]:
    """The migrations in `directory`, ordered by version; numbering must have no gaps."""
    found = []
    scripts = [f for f in directory.iterdir() if f.name.endswith(".sql")] if directory.is_dir() else []
    for path in sorted(scripts, key=lambda f: f.name):
        match = _NAME.match(path.name)
        if match is None:
            raise MigrationError(f"migration file {path} is not named NNNN_name.sql")
        found.append(Migration(int(match.group(1)), path.name, path.read_text(encoding="utf-8")))
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


def unapplied(wanted: Sequence[Migration], applied: Mapping[int, str]) -> list[Migration]:
    """The migrations of `wanted` not applied yet, in order; `applied` maps each applied version
    to its recorded checksum, and one whose file has since changed raises (`verify`)."""
    for migration in wanted:
        if migration.version in applied:
            verify(migration, applied[migration.version])
    return [m for m in wanted if m.version not in applied]


async def apply_postgres(conn: psycopg.AsyncConnection, schema: str, directory: Traversable, table: str, lock: str) -> None:
    """Apply the missing migrations of `directory` in `schema`, each recorded in `table`, in one
    transaction serialised by an advisory lock on `lock` (the event store's and the ledger's)."""
    wanted = load(directory)
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (lock,))
        await conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        await conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
        await conn.execute(
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} ("
                " version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            ).format(sql.Identifier(table))
        )
        cur = await conn.execute(sql.SQL("SELECT version, checksum FROM {}").format(sql.Identifier(table)))
        applied: dict[int, str] = dict(await cur.fetchall())
        for migration in unapplied(wanted, applied):
            await conn.execute(migration.sql)
            await conn.execute(
                sql.SQL("INSERT INTO {} (version, name, checksum) VALUES (%s, %s, %s)").format(sql.Identifier(table)),
                (migration.version, migration.name, migration.checksum),
            )
