"""Migrations: versioned SQL files, applied once, recorded, and safe to run again."""

from __future__ import annotations

import sqlite3

import psycopg
import pytest
from psycopg import sql

from services.eventstore import MigrationError, open_event_store
from services.eventstore import migrations as migration_files

from .events import moved

pytestmark = pytest.mark.integration


def _pg_catalog(url: str, schema: str) -> list[tuple]:
    with psycopg.connect(url) as conn:
        columns = conn.execute(
            "SELECT table_name, column_name, data_type, is_nullable, column_default"
            " FROM information_schema.columns WHERE table_schema = %s ORDER BY 1, 2",
            (schema,),
        ).fetchall()
        indexes = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = %s ORDER BY 1", (schema,)
        ).fetchall()
        applied = conn.execute(
            sql.SQL("SELECT version, name, checksum, applied_at FROM {}.schema_migrations ORDER BY 1").format(
                sql.Identifier(schema)
            )
        ).fetchall()
    return columns + indexes + applied


def _sqlite_catalog(path: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall() + conn.execute(
            "SELECT * FROM schema_migrations ORDER BY version"
        ).fetchall()


async def test_postgres_migrations_run_twice_change_nothing_and_keep_the_data(postgres_url, pg_schema):
    store = await open_event_store(postgres_url, schema=pg_schema)
    await store.append("s", 0, [moved(1)])
    await store.close()
    before = _pg_catalog(postgres_url, pg_schema)
    store = await open_event_store(postgres_url, schema=pg_schema)
    assert _pg_catalog(postgres_url, pg_schema) == before
    assert [e.data for e in await store.read_stream("s")] == [{"n": 1}]
    await store.close()
    names = [row[1] for row in before if len(row) == 4 and isinstance(row[0], int)]
    assert names == [m.name for m in migration_files.load(migration_files.POSTGRES_DIR)]


async def test_sqlite_migrations_run_twice_change_nothing_and_keep_the_data(tmp_path):
    path = str(tmp_path / "events.sqlite3")
    store = await open_event_store(f"sqlite:///{path}")
    await store.append("s", 0, [moved(1)])
    await store.close()
    before = _sqlite_catalog(path)
    store = await open_event_store(f"sqlite:///{path}")
    assert _sqlite_catalog(path) == before
    assert [e.data for e in await store.read_stream("s")] == [{"n": 1}]
    await store.close()


async def test_stores_opening_one_new_schema_at_once_migrate_it_once(postgres_url, pg_schema):
    import asyncio

    stores = await asyncio.gather(*(open_event_store(postgres_url, schema=pg_schema) for _ in range(4)))
    for store in stores:
        await store.close()
    with psycopg.connect(postgres_url) as conn:
        count = conn.execute(
            sql.SQL("SELECT count(*) FROM {}.schema_migrations").format(sql.Identifier(pg_schema))
        ).fetchone()[0]
    assert count == len(migration_files.load(migration_files.POSTGRES_DIR))


async def test_an_applied_migration_that_was_edited_is_refused(postgres_url, pg_schema):
    await (await open_event_store(postgres_url, schema=pg_schema)).close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("UPDATE {}.schema_migrations SET checksum = 'edited'").format(sql.Identifier(pg_schema))
        )
    with pytest.raises(MigrationError, match="0001_events.sql"):
        await open_event_store(postgres_url, schema=pg_schema)


def test_migration_files_are_numbered_without_gaps(tmp_path):
    (tmp_path / "0001_a.sql").write_text("SELECT 1;")
    (tmp_path / "0003_c.sql").write_text("SELECT 1;")
    with pytest.raises(MigrationError, match="0003_c.sql should be numbered 0002"):
        migration_files.load(tmp_path)
