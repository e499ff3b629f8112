package bank_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/fickle-db/fickle/examples/bank"
	"github.com/fickle-db/fickle/examples/internal/exampledb"
)

// TestConcurrentTransfersKeepTheTotal runs three workers, each on its own
// connection, moving money around three accounts of 100: whatever the
// interleaving, money is neither created nor destroyed and no balance goes
// negative.
func TestConcurrentTransfersKeepTheTotal(t *testing.T) {
	ctx := context.Background()
	transfer := bank.Transfer(bank.FixedTransfer)
	if exampledb.Buggy(t) {
		transfer = bank.BuggyTransfer
	}
	dsn := exampledb.DSN(t)
	setup := exampledb.Connect(t, dsn, "setup")
	exampledb.Exec(t, setup, bank.Schema, `INSERT INTO accounts VALUES (1, 100), (2, 100), (3, 100)`)
	exampledb.Checkpoint(t, setup)
	moves := [][3]int{{1, 2, 30}, {2, 3, 20}, {3, 1, 10}}
	var wg sync.WaitGroup
	errs := make(chan error, len(moves))
	for i, m := range moves {
		conn := exampledb.Connect(t, dsn, exampledb.Worker(i+1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				if err := transfer(ctx, conn, m[0], m[1], m[2]); err != nil && !errors.Is(err, bank.ErrInsufficientFunds) {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
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
