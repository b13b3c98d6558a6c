-- Fencing tokens: the newest lease token each stream has seen (see EventStore.fence). An append
-- carrying an older token is refused, so a writer that lost its lease can never write again.
CREATE TABLE stream_fences (
    stream_id   text COLLATE "C" PRIMARY KEY,
    token       bigint NOT NULL CHECK (token >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
