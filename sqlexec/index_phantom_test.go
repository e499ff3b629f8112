package sqlexec

import (
	"fmt"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
)

// bookingLookup is the range lookup the index phantom tests repeat: an
// equality on the indexed column, which the executor answers through the
// index (TestRoomLookupReadsThroughTheIndex).
const bookingLookup = "SELECT id, who FROM booking WHERE room = 7 ORDER BY id"

// bookingPhantomRun looks up room 7 in a REPEATABLE READ or SERIALIZABLE
// transaction (level), lets other sessions insert a room-7 booking, move
// booking 1 into room 7 and booking 2 out of it, each committing (with the
// latest strategy, so that each write reads the row and happens), and looks
// up room 7 again. It returns both lookups' rows, the store, and the keys
// the first lookup inspected before the other sessions wrote. The second
// lookup may fail with 40001 (doomed is then true): a writer the adversary
// placed in co before the reader's snapshot leaves no snapshot that
// explains the reader's first lookup (DESIGN §4, doomed windows).
func bookingPhantomRun(t *testing.T, level string, strategy isolation.Strategy, seed uint64) (first, second [][]any, store *isolation.Store, inspected int, doomed bool) {
	t.Helper()
	store = isolation.NewStore(isolation.Config{Strategy: strategy, Seed: seed, Record: true})
	eng, err := NewEngine(Config{Store: store, Strategy: strategy, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	setup := eng.NewSession(SessionInfo{User: "setup"})
	mustRun(t, setup, "CREATE TABLE booking (id int PRIMARY KEY, room int NOT NULL, who text)")
	mustRun(t, setup, "CREATE INDEX booking_room ON booking (room)")
	mustRun(t, setup, "INSERT INTO booking VALUES (1, 5, 'ann'), (2, 7, 'bob'), (3, 9, 'cy')")
	mustRun(t, setup, "UPDATE booking SET who = 'bea' WHERE id = 2") // a second version to choose from

	reader := eng.NewSession(SessionInfo{User: "reader"})
	mustRun(t, reader, "BEGIN ISOLATION LEVEL "+level)
	res, err := execOne(reader, bookingLookup)
	if err != nil {
		t.Fatalf("%s seed %d: first lookup: %v", level, seed, err)
	}
	first = res.Rows
	inspected = keysReadBy(store.History(), bookingLookup)

	for i, st := range []string{
		"INSERT INTO booking VALUES (10, 7, 'dee')",
		"UPDATE booking SET room = 7 WHERE id = 1",
		"UPDATE booking SET room = 8 WHERE id = 2",
	} {
		w := eng.NewSession(SessionInfo{User: fmt.Sprintf("writer%d", i)})
		mustRun(t, w, "SET fickle.strategy = latest") // each write happens and commits at the end of co
		mustRun(t, w, st)
	}

	res, err = execOne(reader, bookingLookup)
	if pgerror.GetCode(err) == pgerror.SerializationFailure {
		mustRun(t, reader, "ROLLBACK")
		return first, nil, store, inspected, true
	}
	if err != nil {
		t.Fatalf("%s seed %d: second lookup: %v", level, seed, err)
	}
	second = res.Rows
	mustRun(t, reader, "COMMIT")
	return first, second, store, inspected, false
}

// keysReadBy counts the keys the statements with SQL sql read.
func keysReadBy(h *history.History, sql string) int {
	keys := map[history.KeyID]bool{}
	for _, txn := range h.Txns {
		for _, op := range txn.Ops {
			if op.Kind == history.OpRead && int(op.Event) < len(txn.Statements) && txn.Statements[op.Event].SQL == sql {
				keys[op.Key] = true
			}
		}
	}
	return len(keys)
}

// TestRoomLookupReadsThroughTheIndex pins that the lookup the phantom tests
// repeat goes through booking_room: it inspects the one key the index holds
// under room 7, not the table's three.
func TestRoomLookupReadsThroughTheIndex(t *testing.T) {
	_, _, _, inspected, _ := bookingPhantomRun(t, "REPEATABLE READ", isolation.StrategyLatest, 0)
	if inspected != 1 {
		t.Fatalf("the first lookup inspected %d keys, want 1 (an index lookup of room 7)", inspected)
	}
}

// TestIndexLookupShowsNoPhantomAtRepeatableRead repeats a lookup through a
// secondary index in one REPEATABLE READ (and SERIALIZABLE) transaction
// while other sessions insert a row into the looked-up range, update a row
// into it and one out of it, and commit: under every adversarial seed the
// second lookup returns exactly the first one's rows (no phantom, no row
// gained or lost) or fails with 40001, and the recorded history passes the
// oracle. Most seeds must get to compare the lookups.
func TestIndexLookupShowsNoPhantomAtRepeatableRead(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 40
	}
	for _, level := range []string{"REPEATABLE READ", "SERIALIZABLE"} {
		compared := 0
		for seed := range uint64(seeds) {
			first, second, store, _, doomed := bookingPhantomRun(t, level, isolation.StrategyAdversarial, seed)
			if !doomed {
				compared++
			}
			if !doomed && fmt.Sprint(first) != fmt.Sprint(second) {
				t.Errorf("%s seed %d: the lookup returned %v, then %v", level, seed, first, second)
			}
			if r := oracle.Check(store.History(), oracle.Options{}); r.Verdict != oracle.Consistent {
				t.Errorf("%s seed %d: the recorded history is %v: %v", level, seed, r.Verdict, r.Explanation)
			}
		}
		t.Logf("%s: %d of %d seeds compared both lookups, the others failed with 40001", level, compared, seeds)
		if compared < seeds/2 {
			t.Errorf("%s: only %d of %d seeds got to the second lookup", level, compared, seeds)
		}
	}
}

// TestIndexLookupShowsThePhantomAtReadCommitted is the control: at READ
// COMMITTED with the latest strategy the second lookup sees the committed
// insert and both moves, as PostgreSQL's would.
func TestIndexLookupShowsThePhantomAtReadCommitted(t *testing.T) {
	first, second, store, _, _ := bookingPhantomRun(t, "READ COMMITTED", isolation.StrategyLatest, 0)
	if got, want := fmt.Sprint(first), "[[2 bea]]"; got != want {
		t.Errorf("first lookup %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(second), "[[1 ann] [10 dee]]"; got != want {
		t.Errorf("second lookup %s, want %s", got, want)
	}
	if r := oracle.Check(store.History(), oracle.Options{}); r.Verdict != oracle.Consistent {
		t.Errorf("the recorded history is %v: %v", r.Verdict, r.Explanation)
	}
}
