package bank_test

import (
	"context"
	"errors"
	"flag"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/examples/bank"
	"github.com/fickle-db/fickle/examples/internal/exampledb"
)

// rounds is how many turns each worker takes (docs/benchmarks.md runs the
// test longer with it).
var rounds = flag.Int("rounds", 2, "turns each worker takes")

// TestTransfersKeepTheTotal has three workers, each on its own
// connection, take turns moving money around three accounts of 100, as
// requests from different clients do: money is neither created nor
// destroyed and no balance goes negative. On PostgreSQL, where a
// transaction sees every commit that came before it, the buggy version
// passes this test; READ COMMITTED does not promise it (concurrent
// requests would see older versions), and fickle serves them.
func TestTransfersKeepTheTotal(t *testing.T) {
	ctx := context.Background()
	transfer := bank.Transfer(bank.FixedTransfer)
	if exampledb.Buggy(t) {
		transfer = bank.BuggyTransfer
	}
	dsn := exampledb.DSN(t)
	setup := exampledb.Connect(t, dsn, "setup")
	exampledb.Exec(t, setup, `DROP TABLE IF EXISTS accounts`, bank.Schema, `INSERT INTO accounts VALUES (1, 100), (2, 100), (3, 100)`)
	exampledb.Checkpoint(t, setup)
	moves := [][3]int{{1, 2, 30}, {2, 3, 20}, {3, 1, 10}}
	workers := make([]*pgx.Conn, len(moves))
	for i := range moves {
		workers[i] = exampledb.Connect(t, dsn, exampledb.Worker(i+1))
	}
	for range *rounds {
		for i, m := range moves {
			if err := transfer(ctx, workers[i], m[0], m[1], m[2]); err != nil && !errors.Is(err, bank.ErrInsufficientFunds) {
				t.Fatal(err)
			}
		}
	}
	balances, err := bank.Balances(ctx, setup)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, b := range balances {
		total += b
		if b < 0 {
			t.Errorf("a balance went negative: %v", balances)
		}
	}
	if total != 300 {
		t.Fatalf("after the transfers the accounts hold %d in total, want 300: %v", total, balances)
	}
}
