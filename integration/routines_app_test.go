package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/isolation"
)

// routineSeeds is how many adversarial seeds the stored-code scenario
// tries at READ COMMITTED before it must have produced the stale audit.
const routineSeeds = 30

// routineSchema is a bank whose logic lives in the database: an updated_at
// trigger, a transfer function, and an audit trigger that reads the bank's
// total when a transfer is logged. Whatever the interleaving, PostgreSQL's
// audit rows all show the total of 400: the trigger reads the committed
// state and the transfer's own writes, and every transfer keeps the total.
var routineSchema = []string{
	`CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL, updated_at timestamptz)`,
	`CREATE TABLE transfers (id serial PRIMARY KEY, src int NOT NULL, dst int NOT NULL, amt int NOT NULL)`,
	`CREATE TABLE audit (transfer_id int PRIMARY KEY, total_seen int)`,
	`INSERT INTO accounts (id, balance) VALUES (1, 100), (2, 100), (3, 100), (4, 100)`,
	`CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
	  NEW.updated_at := now();
	  RETURN NEW;
	END $$`,
	`CREATE TRIGGER accounts_touch BEFORE UPDATE ON accounts FOR EACH ROW EXECUTE FUNCTION touch()`,
	`CREATE FUNCTION audit_transfer() RETURNS trigger LANGUAGE plpgsql AS $$
	DECLARE total int;
	BEGIN
	  SELECT sum(balance) INTO total FROM accounts;
	  INSERT INTO audit (transfer_id, total_seen) VALUES (NEW.id, total);
	  RETURN NEW;
	END $$`,
	`CREATE TRIGGER transfers_audit AFTER INSERT ON transfers FOR EACH ROW EXECUTE FUNCTION audit_transfer()`,
	`CREATE FUNCTION transfer(src int, dst int, amount int) RETURNS int LANGUAGE plpgsql AS $$
	DECLARE tid int;
	BEGIN
	  UPDATE accounts SET balance = balance - amount WHERE id = src;
	  UPDATE accounts SET balance = balance + amount WHERE id = dst;
	  INSERT INTO transfers (src, dst, amt) VALUES (src, dst, amount) RETURNING id INTO tid;
	  RETURN tid;
	END $$`,
}

// TestStoredCodeReadsAsStaleAsItsCaller plays the bank through pgx on two
// connections: transfers between disjoint accounts, one committing while
// the other is open. At READ COMMITTED the audit trigger's read may see
// the other transfer's debit without its credit, so some seed of
// routineSeeds must produce an audit row whose total is not 400; at
// SERIALIZABLE no seed may. Every history passes the checker at its
// levels, and the updated_at trigger stamps every account it touched.
func TestStoredCodeReadsAsStaleAsItsCaller(t *testing.T) {
	stale := -1
	for seed := range routineSeeds {
		if bad := playBank(t, seed, pgx.ReadCommitted); bad > 0 {
			stale = seed
			t.Logf("READ COMMITTED, seed %d: %d audit rows with a wrong total", seed, bad)
			break
		}
	}
	if stale < 0 {
		t.Errorf("no audit row disagreed with the balances at READ COMMITTED in %d seeds", routineSeeds)
	}
	for seed := range routineSeeds {
		if bad := playBank(t, seed, pgx.Serializable); bad > 0 {
			t.Fatalf("SERIALIZABLE, seed %d: %d audit rows with a wrong total", seed, bad)
		}
	}
}

// playBank runs the scenario on a fresh server and returns how many audit
// rows show a total other than 400.
func playBank(t *testing.T, seed int, level pgx.TxIsoLevel) int {
	t.Helper()
	f := startInProcess(t, isolation.Config{Seed: uint64(seed), Strategy: isolation.StrategyAdversarial})
	defer f.stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, f.dsn)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		return c
	}
	c1, c2 := conn(), conn()
	defer c1.Close(ctx)
	defer c2.Close(ctx)
	for _, q := range routineSchema {
		if _, err := c1.Exec(ctx, q); err != nil {
			t.Fatalf("setup %q: %v", q, err)
		}
	}
	f.checkpoint(t)
	for round := range 4 {
		a, b := 1+round%2, 3+round%2 // c1 moves 1<->2 money, c2 moves 3<->4 money
		if err := bankRound(ctx, c1, c2, level, [2]int{a, 3 - a}, [2]int{b, 7 - b}); err != nil {
			t.Fatalf("seed %d round %d: %v", seed, round, err)
		}
	}
	var bad, unstamped int
	for _, q := range []struct {
		sql string
		out *int
	}{
		{"SELECT count(*) FROM audit WHERE total_seen <> 400", &bad},
		{"SELECT count(*) FROM accounts WHERE updated_at IS NULL", &unstamped},
	} {
		if _, err := c1.Exec(ctx, "SET fickle.strategy = 'latest'"); err != nil {
			t.Fatal(err)
		}
		if err := c1.QueryRow(ctx, q.sql).Scan(q.out); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	if unstamped != 0 {
		t.Errorf("seed %d: %d accounts without updated_at after the transfers", seed, unstamped)
	}
	f.checkHistory(t, false, fmt.Sprintf("bank seed %d at %s", seed, level))
	return bad
}

// bankRound opens a transaction on each connection, runs c2's transfer
// and commits it, then runs c1's and commits that: c1's audit reads the
// accounts c2 changed. A transaction that fails with 40001 is retried.
func bankRound(ctx context.Context, c1, c2 *pgx.Conn, level pgx.TxIsoLevel, m1, m2 [2]int) error {
	for attempt := 0; attempt < maxRetries; attempt++ {
		err := func() error {
			t1, err := c1.BeginTx(ctx, pgx.TxOptions{IsoLevel: level})
			if err != nil {
				return err
			}
			defer t1.Rollback(ctx)
			if _, err := t1.Exec(ctx, "SELECT balance FROM accounts WHERE id = $1", m1[0]); err != nil {
				return err
			}
			t2, err := c2.BeginTx(ctx, pgx.TxOptions{IsoLevel: level})
			if err != nil {
				return err
			}
			defer t2.Rollback(ctx)
			if _, err := t2.Exec(ctx, "SELECT transfer($1, $2, 10)", m2[0], m2[1]); err != nil {
				return err
			}
			if err := t2.Commit(ctx); err != nil {
				return err
			}
			if _, err := t1.Exec(ctx, "SELECT transfer($1, $2, 10)", m1[0], m1[1]); err != nil {
				return err
			}
			return t1.Commit(ctx)
		}()
		if err == nil || sqlState(err) != "40001" {
			return err
		}
	}
	return fmt.Errorf("still failing with 40001 after %d attempts", maxRetries)
}
