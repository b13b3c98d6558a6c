-- Tables that are over: the settlement consumer records one when the table's stream records
-- `table.Closed` (after its cash-outs). Every seat account of such a table must be 0: the audit
-- reports any that is not (chips left on a table nobody plays at any more).
CREATE TABLE ledger_closed_tables (
    table_key  text COLLATE "C" PRIMARY KEY,
    reason     text NOT NULL,
    closed_at  timestamptz NOT NULL DEFAULT now()
);
