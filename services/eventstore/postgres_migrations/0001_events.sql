-- The event log. (stream_id, version) is the primary key: it is the optimistic-concurrency
-- check, so two writers appending after the same version cannot both commit.
-- tx_id is the writing transaction: readers only read rows whose tx_id is below the oldest
-- transaction still running, and order by (tx_id, position), so a row that commits late with a
-- low position can never land behind a reader's cursor. No table lock is needed for that.
-- stream_id uses the "C" collation so that ids sharing a prefix are contiguous in the index.
CREATE TABLE events (
    position        bigint GENERATED ALWAYS AS IDENTITY,
    tx_id           xid8 NOT NULL DEFAULT pg_current_xact_id(),
    stream_id       text COLLATE "C" NOT NULL,
    version         bigint NOT NULL CHECK (version >= 1),
    type            text NOT NULL,
    schema_version  integer NOT NULL CHECK (schema_version >= 1),
    data            jsonb NOT NULL,
    metadata        jsonb NOT NULL DEFAULT '{}',
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, version)
);

CREATE INDEX events_global_order ON events (tx_id, position);

-- The result of every append that carried a command id, written in the append's transaction:
-- a retried command finds its original resulting version here.
CREATE TABLE command_results (
    stream_id    text COLLATE "C" NOT NULL,
    command_id   text NOT NULL,
    version      bigint NOT NULL,
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, command_id)
);

-- The latest snapshot per stream.
CREATE TABLE snapshots (
    stream_id       text COLLATE "C" PRIMARY KEY,
    version         bigint NOT NULL CHECK (version >= 1),
    type            text NOT NULL,
    schema_version  integer NOT NULL CHECK (schema_version >= 1),
    data            jsonb NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT now()
);

-- One row per subscription: the (tx_id, position) of the last event its effects include.
-- It is updated in the same transaction as the consumer's own writes.
CREATE TABLE subscription_checkpoints (
    name        text PRIMARY KEY,
    tx_id       xid8 NOT NULL DEFAULT '0',
    position    bigint NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
