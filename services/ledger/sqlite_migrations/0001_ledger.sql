-- The ledger on SQLite: the same tables and constraints as infra/postgres/ledger/0001_ledger.sql.
CREATE TABLE ledger_accounts (
    account    TEXT NOT NULL,
    currency   TEXT NOT NULL,
    balance    INTEGER NOT NULL DEFAULT 0,
    overdraft  INTEGER NOT NULL DEFAULT 0,
    opened_at  TEXT NOT NULL,
    PRIMARY KEY (account, currency),
    CONSTRAINT ledger_never_negative CHECK (balance >= 0 OR overdraft),
    CONSTRAINT ledger_only_the_house_overdraws CHECK (NOT overdraft OR account LIKE 'house/%')
);

CREATE TABLE ledger_transfers (
    sequence   INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    debit      TEXT NOT NULL,
    credit     TEXT NOT NULL,
    currency   TEXT NOT NULL,
    amount     INTEGER NOT NULL CHECK (amount > 0 AND amount <= 9007199254740992),
    kind       TEXT NOT NULL,
    reason     TEXT NOT NULL DEFAULT '',
    details    TEXT NOT NULL DEFAULT '{}',
    posted_at  TEXT NOT NULL,
    CHECK (debit <> credit),
    FOREIGN KEY (debit, currency) REFERENCES ledger_accounts (account, currency),
    FOREIGN KEY (credit, currency) REFERENCES ledger_accounts (account, currency)
);

CREATE INDEX ledger_transfers_by_debit ON ledger_transfers (debit, currency, sequence);
CREATE INDEX ledger_transfers_by_credit ON ledger_transfers (credit, currency, sequence);

CREATE TRIGGER ledger_transfers_no_update BEFORE UPDATE ON ledger_transfers
BEGIN
    SELECT RAISE(ABORT, 'ledger transfers are immutable: post a correcting transfer instead');
END;

CREATE TRIGGER ledger_transfers_no_delete BEFORE DELETE ON ledger_transfers
BEGIN
    SELECT RAISE(ABORT, 'ledger transfers are immutable: post a correcting transfer instead');
END;
