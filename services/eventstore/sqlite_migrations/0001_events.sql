-- The SQLite twin of infra/postgres/0001_events.sql. Writes are serialised by SQLite's
-- database lock, so the AUTOINCREMENT position is commit order (no tx_id needed), and
-- AUTOINCREMENT never reuses a position.
CREATE TABLE events (
    position        INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id       TEXT NOT NULL,
    version         INTEGER NOT NULL CHECK (version >= 1),
    type            TEXT NOT NULL,
    schema_version  INTEGER NOT NULL CHECK (schema_version >= 1),
    data            TEXT NOT NULL,
    metadata        TEXT NOT NULL DEFAULT '{}',
    recorded_at     TEXT NOT NULL,
    UNIQUE (stream_id, version)
);

CREATE TABLE command_results (
    stream_id    TEXT NOT NULL,
    command_id   TEXT NOT NULL,
    version      INTEGER NOT NULL,
    recorded_at  TEXT NOT NULL,
    PRIMARY KEY (stream_id, command_id)
);

CREATE TABLE snapshots (
    stream_id       TEXT PRIMARY KEY,
    version         INTEGER NOT NULL CHECK (version >= 1),
    type            TEXT NOT NULL,
    schema_version  INTEGER NOT NULL CHECK (schema_version >= 1),
    data            TEXT NOT NULL,
    recorded_at     TEXT NOT NULL
);

CREATE TABLE subscription_checkpoints (
    name        TEXT PRIMARY KEY,
    position    INTEGER NOT NULL DEFAULT 0,
    updated_at  TEXT NOT NULL
);
