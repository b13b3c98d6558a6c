-- The ledger. Balances live next to the transfers that explain them and change in the same
-- transaction; the never-negative rule is a constraint, so no code path can break it.
-- Only the house (the issuer) may go below zero; it is split into shard rows house/0..N-1
-- so that check-ins and grants do not all queue behind one row lock.
CREATE TABLE ledger_accounts (
    account    text COLLATE "C" NOT NULL,
    currency   text COLLATE "C" NOT NULL,
    balance    bigint NOT NULL DEFAULT 0,
    overdraft  boolean NOT NULL DEFAULT false,
    opened_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account, currency),
    CONSTRAINT ledger_never_negative CHECK (balance >= 0 OR overdraft),
    CONSTRAINT ledger_only_the_house_overdraws CHECK (NOT overdraft OR account LIKE 'house/%')
);

-- One row per transfer: its debit and credit are the two postings of double entry. The id is
-- derived from the transfer's cause, so a replayed cause finds its transfer instead of paying twice.
CREATE TABLE ledger_transfers (
    id         text COLLATE "C" PRIMARY KEY,
    sequence   bigint GENERATED ALWAYS AS IDENTITY,
    debit      text COLLATE "C" NOT NULL,
    credit     text COLLATE "C" NOT NULL,
    currency   text COLLATE "C" NOT NULL,
    amount     bigint NOT NULL CHECK (amount > 0 AND amount <= 9007199254740992),
    kind       text NOT NULL,
    reason     text NOT NULL DEFAULT '',
    details    jsonb NOT NULL DEFAULT '{}',
    posted_at  timestamptz NOT NULL DEFAULT now(),
    CHECK (debit <> credit),
    FOREIGN KEY (debit, currency) REFERENCES ledger_accounts (account, currency),
    FOREIGN KEY (credit, currency) REFERENCES ledger_accounts (account, currency)
);

CREATE INDEX ledger_transfers_by_debit ON ledger_transfers (debit, currency, sequence);
CREATE INDEX ledger_transfers_by_credit ON ledger_transfers (credit, currency, sequence);

CREATE FUNCTION ledger_transfers_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger transfers are immutable: post a correcting transfer instead';
END $$;

CREATE TRIGGER ledger_transfers_immutable BEFORE UPDATE OR DELETE ON ledger_transfers
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_transfers_are_immutable();

-- Posts a batch of transfers in the caller's transaction (one round trip for the whole batch).
-- batch: [{i, id, debit, credit, currency, amount, kind, reason, details, open_credit}], ids
-- distinct. Per transfer the outcome is 'posted', 'exists' (that id is already posted: the
-- caller compares content), 'unknown_debit' or 'unknown_credit'. If any account would go below
-- zero the CHECK constraint aborts the whole call: the caller splits the batch to find the
-- transfer at fault, so a batch is all-or-nothing exactly like a single transfer.
CREATE FUNCTION ledger_post(batch jsonb)
RETURNS TABLE (i int, outcome text, seq bigint, at timestamptz)
LANGUAGE plpgsql
-- A batch is tens of rows against tables of millions: every lookup goes through an index.
-- Without these the planner, guessing 100 rows for the batch, hashes whole tables.
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
#variable_conflict use_column
BEGIN
    IF EXISTS (SELECT 1 FROM jsonb_to_recordset(batch) AS r(debit text, credit text, open_credit boolean)
               WHERE r.open_credit OR r.debit LIKE 'house/%' OR r.credit LIKE 'house/%') THEN
        INSERT INTO ledger_accounts (account, currency, overdraft)
        SELECT DISTINCT x.account, r.currency, x.account LIKE 'house/%'
        FROM jsonb_to_recordset(batch) AS r(id text, debit text, credit text, currency text, open_credit boolean),
             LATERAL (VALUES (r.debit, r.debit LIKE 'house/%'),
                             (r.credit, r.credit LIKE 'house/%' OR coalesce(r.open_credit, false)))
                 AS x(account, wanted)
        -- A credit is opened only for a new transfer that can go ahead: a refused one leaves no
        -- trace. (Scalar subqueries, not EXISTS: those may become a hash of the whole table.)
        WHERE x.wanted
          AND (SELECT t.sequence FROM ledger_transfers t WHERE t.id = r.id) IS NULL
          AND (r.debit LIKE 'house/%' OR (SELECT a.balance FROM ledger_accounts a
                                          WHERE a.account = r.debit AND a.currency = r.currency) IS NOT NULL)
        ORDER BY 1, 2
        ON CONFLICT DO NOTHING;
    END IF;

    -- Every account row the batch touches, locked in one global order: two batches sharing
    -- accounts wait for each other instead of deadlocking.
    PERFORM 1
    FROM (SELECT k.account, k.currency FROM (
              SELECT r.debit AS account, r.currency FROM jsonb_to_recordset(batch) AS r(debit text, currency text)
              UNION
              SELECT r.credit, r.currency FROM jsonb_to_recordset(batch) AS r(credit text, currency text)) k
          ORDER BY k.account COLLATE "C", k.currency COLLATE "C") k,
         LATERAL (SELECT 1 FROM ledger_accounts a
                  WHERE a.account = k.account AND a.currency = k.currency FOR NO KEY UPDATE) l;

    RETURN QUERY
    WITH req AS (
        SELECT r.*,
            (SELECT a.balance FROM ledger_accounts a
             WHERE a.account = r.debit AND a.currency = r.currency) IS NOT NULL AS has_debit,
            (SELECT a.balance FROM ledger_accounts a
             WHERE a.account = r.credit AND a.currency = r.currency) IS NOT NULL AS has_credit,
            (SELECT t.sequence FROM ledger_transfers t WHERE t.id = r.id) IS NOT NULL AS known
        FROM jsonb_to_recordset(batch) AS r(i int, id text, debit text, credit text, currency text,
                                            amount bigint, kind text, reason text, details jsonb)
    ), ins AS (
        INSERT INTO ledger_transfers AS t (id, debit, credit, currency, amount, kind, reason, details)
        SELECT req.id, req.debit, req.credit, req.currency, req.amount, req.kind, req.reason, req.details
        FROM req WHERE req.has_debit AND req.has_credit AND NOT req.known ORDER BY req.i
        -- Not a silent skip: the caller is told 'exists' and compares the stored transfer.
        ON CONFLICT (id) DO NOTHING
        RETURNING t.id, t.sequence, t.debit, t.credit, t.currency, t.amount, t.posted_at
    ), legs AS (
        SELECT ins.debit AS account, ins.currency, -ins.amount AS delta FROM ins
        UNION ALL
        SELECT ins.credit, ins.currency, ins.amount FROM ins
    ), upd AS (
        UPDATE ledger_accounts a SET balance = a.balance + s.delta
        FROM (SELECT legs.account, legs.currency, sum(legs.delta)::bigint AS delta
              FROM legs GROUP BY 1, 2) s
        WHERE a.account = s.account AND a.currency = s.currency
    )
    SELECT req.i,
        CASE WHEN ins.id IS NOT NULL THEN 'posted'
             WHEN req.known THEN 'exists'
             WHEN NOT req.has_debit THEN 'unknown_debit'
             WHEN NOT req.has_credit THEN 'unknown_credit'
             ELSE 'exists' END,
        ins.sequence, ins.posted_at
    FROM req LEFT JOIN ins ON ins.id = req.id
    ORDER BY req.i;
END $$;
