package isolation

import (
	"fmt"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestAdversarialRetriesOfAScanThenWriteEveryRowGetThrough: a transaction
// scans 100 rows, each updated by a transaction of its own that the
// reader's session has not seen, then reads each of them for a write (the
// latest version, as a DELETE of every row it found does). At RA, CC and PC
// a row read stale by the scan makes its latest version unreadable (40001),
// and the adversary reads some row of a large scan stale almost every time.
// A client retries such a failure; its retries must not all fail alike.
// With the adversary calmed after a session's aborts, every seed gets
// through within 20 attempts, and the first attempt still fails for most
// seeds (transactions that do not follow an abort keep the adversary).
func TestAdversarialRetriesOfAScanThenWriteEveryRowGetThrough(t *testing.T) {
	const rows, seeds, attempts = 100, 50, 20
	for _, level := range []history.Level{history.ReadAtomic, history.Causal, history.Prefix} {
		t.Run(level.String(), func(t *testing.T) {
			firstFailed := 0
			for seed := range uint64(seeds) {
				f := newFixture(t, Config{Strategy: StrategyAdversarial, Seed: seed})
				writer := f.s.NewSession()
				key := func(i int) []byte { return []byte(fmt.Sprintf("k%03d", i)) }
				tx := begin(t, writer, history.ReadCommitted)
				for i := range rows {
					_, err := tx.Insert(bg, f.tab, key(i), []any{string(key(i)), i})
					must(t, err)
				}
				must(t, tx.Commit(bg))
				for i := range rows {
					tx := begin(t, writer, history.ReadCommitted)
					must(t, tx.Update(bg, f.tab, key(i), []any{string(key(i)), rows + i}))
					must(t, tx.Commit(bg))
				}
				reader := f.s.NewSession()
				for attempt := 1; ; attempt++ {
					tx := begin(t, reader, level)
					err := tx.Scan(bg, f.tab, Span{}, ReadOptions{}, func([]byte, []any) (bool, error) { return true, nil })
					for i := 0; i < rows && err == nil; i++ {
						_, _, err = tx.Get(bg, f.tab, key(i), ReadOptions{Latest: true})
					}
					if err == nil {
						must(t, tx.Commit(bg))
						break
					}
					wantCode(t, err, pgerror.SerializationFailure)
					if attempt == 1 {
						firstFailed++
					}
					if attempt == attempts {
						t.Fatalf("seed %d: %d attempts in a row failed: %v", seed, attempts, err)
					}
				}
			}
			if firstFailed < seeds/2 {
				t.Errorf("the first attempt failed for %d seeds of %d: the adversary no longer reads rows stale", firstFailed, seeds)
			}
		})
	}
}
