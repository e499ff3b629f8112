package isolation

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestExactLookupRecordsAsRangeScan runs one seeded program of lookups by
// an exact index key, inserts, updates, deletes, commits and rollbacks at
// every level on two stores that differ only in the index: unique on one
// (deferred, so that writes check and lock nothing more), whose exact
// look-ups take visitEntry, and not unique on the other, whose look-ups
// range-scan the B-tree. The results, the recorded histories and the
// logged events must be the same.
func TestExactLookupRecordsAsRangeScan(t *testing.T) {
	for _, tc := range []struct {
		strategy Strategy
		seed     uint64
	}{
		{StrategyLatest, 1},
		{StrategyLatest, 2},
		{StrategyRandom, 3},
		{StrategyOldest, 4},
		{StrategyAdversarial, 5},
		{StrategyAdversarial, 6},
	} {
		t.Run(fmt.Sprintf("strategy=%d/seed=%d", tc.strategy, tc.seed), func(t *testing.T) {
			unique, uniqueLog, uniqueHits := runLookupProgram(t, tc.strategy, tc.seed, true)
			ranged, rangedLog, _ := runLookupProgram(t, tc.strategy, tc.seed, false)
			if uniqueHits == 0 {
				t.Fatal("the program made no exact look-up of a unique index")
			}
			if unique != ranged {
				t.Errorf("results and histories differ\nunique index:\n%s\nrange scan:\n%s", unique, ranged)
			}
			if uniqueLog != rangedLog {
				t.Errorf("logged events differ\nunique index:\n%s\nrange scan:\n%s", uniqueLog, rangedLog)
			}
		})
	}
}

// runLookupProgram runs the seeded program of TestExactLookupRecordsAsRangeScan
// and returns the trace of its results followed by the history's dump, the
// logged events, and how many look-ups found an entry visitEntry can read.
func runLookupProgram(t *testing.T, strategy Strategy, seed uint64, unique bool) (string, string, int) {
	t.Helper()
	log := &traceLog{}
	s := NewStore(Config{Strategy: strategy, Seed: seed, Record: true, Log: log})
	tab, err := s.CreateTable(TableSpec{Name: "t"})
	must(t, err)
	valKey := func(v int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	ix, err := s.CreateIndex(tab, IndexSpec{Name: "t_v", Unique: unique, Deferred: unique,
		Key: func(_ []byte, row []any) ([]byte, bool) { return valKey(row[0].(int)), false }})
	must(t, err)
	const values = 16 // few enough that entries grow past smallEntry keys
	levels := []history.Level{history.ReadCommitted, history.ReadAtomic, history.Causal, history.Prefix, history.Snapshot, history.Serializable}
	r := rand.New(rand.NewPCG(seed, 15))
	var (
		trace    strings.Builder
		sessions [3]*Session
		txns     [3]*Txn
		keys     [][]byte
		hits     int
	)
	owner := map[string]int{} // key -> 1 + the session whose pending transaction wrote it
	for i := range sessions {
		sessions[i] = s.NewSession()
	}
	end := func(i int, commit bool) {
		var err error
		if commit {
			err = txns[i].Commit(bg)
		} else {
			err = txns[i].Rollback()
		}
		fmt.Fprintf(&trace, "s%d end commit=%v: %v\n", i, commit, err)
		txns[i] = nil
		for k, o := range owner {
			if o == i+1 {
				delete(owner, k)
			}
		}
	}
	writable := func(i int) ([]byte, bool) {
		if len(keys) == 0 {
			return nil, false
		}
		k := keys[r.IntN(len(keys))]
		o := owner[string(k)]
		return k, o == 0 || o == i+1
	}
	for step := range 600 {
		i := r.IntN(len(sessions))
		if txns[i] == nil {
			level := levels[r.IntN(len(levels))]
			tx, err := sessions[i].Begin(TxnOptions{Level: level})
			must(t, err)
			txns[i] = tx
			fmt.Fprintf(&trace, "s%d begin %s\n", i, level)
			continue
		}
		tx := txns[i]
		if r.IntN(3) == 0 {
			tx.Statement(history.Statement{SQL: fmt.Sprintf("step %d", step)})
		}
		var err error
		switch op := r.IntN(10); {
		case op < 4:
			v := r.IntN(values)
			s.e.mu.Lock()
			if ent, ok := s.e.indexes[ix].entry(string(valKey(v))); ok && ent.plain() {
				hits++
			}
			s.e.mu.Unlock()
			ro := ReadOptions{ForLock: r.IntN(4) == 0}
			var got []string
			err = tx.ScanIndex(bg, ix, ExactSpan(valKey(v)), ro, func(k []byte, row []any) (bool, error) {
				got = append(got, fmt.Sprintf("%x=%v", k, row))
				if r.IntN(5) == 0 {
					return true, ErrStop
				}
				return row[0].(int) == v && r.IntN(6) > 0, nil
			})
			fmt.Fprintf(&trace, "s%d lookup %d latest=%v: %v %v\n", i, v, ro.ForLock, got, err)
		case op < 6:
			k := binary.BigEndian.AppendUint64(nil, uint64(len(keys)))
			_, err = tx.Insert(bg, tab, k, []any{r.IntN(values)})
			if err == nil {
				keys = append(keys, k)
				owner[string(k)] = i + 1
			}
			fmt.Fprintf(&trace, "s%d insert %x: %v\n", i, k, err)
		case op < 8:
			k, ok := writable(i)
			if !ok {
				continue
			}
			if r.IntN(2) == 0 {
				err = tx.Update(bg, tab, k, []any{r.IntN(values)})
			} else {
				err = tx.Delete(bg, tab, k)
			}
			if err == nil {
				owner[string(k)] = i + 1
			}
			fmt.Fprintf(&trace, "s%d write %x: %v\n", i, k, err)
		default:
			end(i, r.IntN(4) > 0)
			continue
		}
		if err != nil && tx.Ended() {
			end(i, false)
		}
	}
	for i := range txns {
		if txns[i] != nil {
			end(i, true)
		}
	}
	var dump bytes.Buffer
	must(t, s.History().Dump(&dump))
	return trace.String() + dump.String(), strings.Join(log.events, "\n"), hits
}

// traceLog is an EventLog that keeps every event as a line of text.
type traceLog struct{ events []string }

func (l *traceLog) add(format string, args ...any) error {
	l.events = append(l.events, fmt.Sprintf(format, args...))
	return nil
}

func (l *traceLog) Session(s history.SessionID, name string) error {
	return l.add("session %v %q", s, name)
}

func (l *traceLog) Begin(t history.TxnID, s history.SessionID, level history.Level, start int64, name string) error {
	return l.add("begin %v %v %v %v %q", t, s, level, start, name)
}

func (l *traceLog) Stmt(t history.TxnID, st history.Statement) error {
	return l.add("stmt %v %+v", t, st)
}

func (l *traceLog) Read(t history.TxnID, items []history.ReadItem) error {
	return l.add("read %v %+v", t, items)
}

func (l *traceLog) Write(t history.TxnID, it history.WriteItem) error {
	return l.add("write %v %+v", t, it)
}

func (l *traceLog) Commit(t history.TxnID, end int64) error { return l.add("commit %v %v", t, end) }

func (l *traceLog) Abort(t history.TxnID, o history.Outcome, code string, end int64) error {
	return l.add("abort %v %v %s %v", t, o, code, end)
}

func (l *traceLog) CommitOrder(t, after history.TxnID) error {
	return l.add("order %v after %v", t, after)
}

func (l *traceLog) Checkpoint() error { return l.add("checkpoint") }
