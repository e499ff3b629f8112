-- A psql script exercising DDL, DML, transactions, savepoints and COPY.
-- psql_test.go runs it with ON_ERROR_STOP=1 against fickle and against
-- PostgreSQL 15, and requires the same output from both.
CREATE TABLE accounts (
    id      integer PRIMARY KEY,
    owner   text NOT NULL,
    balance numeric(12,2) NOT NULL DEFAULT 0 CHECK (balance >= 0),
    opened  date
);
CREATE TABLE transfers (
    id      bigserial PRIMARY KEY,
    src     integer REFERENCES accounts (id),
    dst     integer REFERENCES accounts (id) ON DELETE CASCADE,
    amount  numeric(12,2) NOT NULL,
    note    varchar(40)
);
CREATE UNIQUE INDEX accounts_owner_idx ON accounts (owner);

INSERT INTO accounts VALUES (1, 'alice', 100.50, '2024-01-02'), (2, 'bob', 20, NULL);
INSERT INTO accounts (id, owner) VALUES (3, 'carol') RETURNING id, owner, balance;

COPY accounts (id, owner, balance, opened) FROM STDIN;
4	dave	7.25	2023-12-31
5	erin	0	\N
\.

COPY accounts (id, owner, balance) FROM STDIN WITH (FORMAT csv);
6,"frank, jr.",12.00
7,grace,3
\.

SELECT id, owner, balance, opened FROM accounts ORDER BY id;

BEGIN;
UPDATE accounts SET balance = balance - 10 WHERE id = 1;
UPDATE accounts SET balance = balance + 10 WHERE id = 2;
INSERT INTO transfers (src, dst, amount, note) VALUES (1, 2, 10, 'rent');
SAVEPOINT before_bonus;
UPDATE accounts SET balance = balance + 1000 WHERE id = 3;
ROLLBACK TO SAVEPOINT before_bonus;
UPDATE accounts SET balance = balance + 1 WHERE id = 3;
RELEASE SAVEPOINT before_bonus;
COMMIT;

BEGIN;
DELETE FROM accounts WHERE id = 7;
ROLLBACK;

SELECT id, balance FROM accounts WHERE id IN (1, 2, 3, 7) ORDER BY id;
SELECT src, dst, amount, note FROM transfers ORDER BY id;

SELECT owner, balance * 2 AS doubled, balance > 10 AS rich,
       CASE WHEN opened IS NULL THEN 'unknown' ELSE 'known' END AS opened_state
FROM accounts ORDER BY owner;

SELECT count(*), sum(balance), min(balance), max(balance) FROM accounts;
SELECT balance > 10 AS rich, count(*) FROM accounts GROUP BY balance > 10 ORDER BY 1;
SELECT owner FROM accounts WHERE owner LIKE '%a%' AND balance BETWEEN 1 AND 100 ORDER BY owner LIMIT 2 OFFSET 1;
SELECT DISTINCT opened IS NULL AS no_date FROM accounts ORDER BY 1;
SELECT COALESCE(opened, DATE '1970-01-01') AS d FROM accounts WHERE id IN (2, 4) ORDER BY d;
SELECT 7 / 2 AS int_div, 7.0 / 2 AS num_div, 7 % 3 AS modulo, 'a' || 'b' AS cat, CAST('42' AS integer) + 1 AS cast_int;

UPDATE accounts SET owner = upper(owner) WHERE id = 5 RETURNING id, owner;
DELETE FROM accounts WHERE id = 2 RETURNING id;
SELECT count(*) AS transfers_left FROM transfers;

INSERT INTO accounts VALUES (1, 'alice2', 1, NULL) ON CONFLICT (id) DO NOTHING;
INSERT INTO accounts VALUES (1, 'alice', 5, NULL)
    ON CONFLICT (id) DO UPDATE SET balance = accounts.balance + EXCLUDED.balance;
SELECT id, owner, balance FROM accounts WHERE id = 1;

COPY (SELECT id, owner, balance, opened FROM accounts ORDER BY id) TO STDOUT;
COPY (SELECT id, owner FROM accounts ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER);

ALTER TABLE accounts ADD COLUMN email text;
UPDATE accounts SET email = owner || '@example.com' WHERE id <= 3;
SELECT id, email FROM accounts ORDER BY id;
TRUNCATE transfers;
DROP TABLE transfers;
DROP TABLE accounts;
DROP TABLE IF EXISTS accounts;
