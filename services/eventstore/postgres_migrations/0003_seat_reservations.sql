-- One live matchmade table per player (services/game/reservations.py): a player's reservation
-- names the table they are seated at. The primary key is the rule: a second table's sit finds
-- the row taken and is refused, in the transaction that would have escrowed its buy-in.
CREATE TABLE seat_reservations (
    player_id  text COLLATE "C" PRIMARY KEY,
    table_id   text COLLATE "C" NOT NULL,
    taken_ms   bigint NOT NULL
);
CREATE INDEX seat_reservations_by_table ON seat_reservations (table_id);
