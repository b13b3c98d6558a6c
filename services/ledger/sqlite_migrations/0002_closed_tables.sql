-- The ledger on SQLite: the same table as infra/postgres/ledger/0002_closed_tables.sql.
CREATE TABLE ledger_closed_tables (
    table_key  TEXT PRIMARY KEY,
    reason     TEXT NOT NULL,
    closed_at  TEXT NOT NULL
);
