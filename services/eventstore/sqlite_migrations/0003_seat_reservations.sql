-- The SQLite twin of infra/postgres/0003_seat_reservations.sql.
CREATE TABLE seat_reservations (
    player_id  TEXT PRIMARY KEY,
    table_id   TEXT NOT NULL,
    taken_ms   INTEGER NOT NULL
);
CREATE INDEX seat_reservations_by_table ON seat_reservations (table_id);
