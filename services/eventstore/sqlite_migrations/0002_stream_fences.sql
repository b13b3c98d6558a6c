-- The SQLite twin of infra/postgres/0002_stream_fences.sql.
CREATE TABLE stream_fences (
    stream_id   TEXT PRIMARY KEY,
    token       INTEGER NOT NULL CHECK (token >= 0),
    updated_at  TEXT NOT NULL
);
