package isolation

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/oracle"
)

// longSoundness runs 100,000 random workloads instead of a few hundred:
//
//	go test ./isolation -run Soundness -long
var longSoundness = flag.Bool("long", false, "run the long soundness mode (100,000 random workloads)")

// soundnessCase reruns one case of the soundness test, for debugging:
//
//	go test ./isolation -run Soundness -case 57570
var soundnessCase = flag.Int("case", -1, "run only this case of the soundness test")

// workload is a random program: sessions of transactions of operations on
// a few keys, at random levels, interleaved by the driver's PRNG.
type workload struct {
	sessions [][]wtxn
	keys     int
}

type wtxn struct {
	level    history.Level
	ops      []wop
	rollback bool
}

type wop struct {
	// kind: g get, s scan, r index lookup, i insert, u update, d delete,
	// n insert a fresh key, l a locking read (SELECT ... FOR UPDATE: a
	// ForLock read, then LockRow), w a write under its lock (UPDATE: a
	// read, LockRow, then Update of what it returned), m a move of the
	// row to a fresh key (an UPDATE of its primary key).
	kind byte
	key  int // for r, the first of the two index buckets looked up
	to   int // for m, the fresh key
}

// indexBuckets is how many index keys the workloads' index (a row's value
// modulo indexBuckets) has: few, so that inserts land in a bucket a lookup
// passed and updates move rows between buckets.
const indexBuckets = 4

// bucketKey is the index key of bucket b.
func bucketKey(b int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(b)) }

func genWorkload(rng *rand.Rand, maxTxns int) workload {
	w := workload{keys: 2 + rng.IntN(2)}
	ns := 2 + rng.IntN(5)
	total, fresh := 0, 0
	per := 2
	if maxTxns > 8 {
		per = 5
	}
	for s := 0; s < ns && total < maxTxns; s++ {
		var txns []wtxn
		for n := 1 + rng.IntN(per); n > 0 && total < maxTxns; n-- {
			t := wtxn{level: history.Levels[rng.IntN(len(history.Levels))], rollback: rng.IntN(5) == 0}
			for k := 1 + rng.IntN(4); k > 0; k-- {
				op := wop{kind: "gsiudgunrlwm"[rng.IntN(12)], key: rng.IntN(w.keys)}
				switch op.kind {
				case 'r':
					op.key = rng.IntN(indexBuckets)
				case 'n':
					op.key = w.keys + fresh // a key nobody used before: scans earlier did not list it
					fresh++
				case 'm':
					op.to = w.keys + fresh
					fresh++
				}
				t.ops = append(t.ops, op)
			}
			// Half the transactions that look up repeat their first lookup
			// last, as an application re-reading a range does.
			if i := slices.IndexFunc(t.ops, func(op wop) bool { return op.kind == 'r' }); i >= 0 && rng.IntN(2) == 0 {
				t.ops = append(t.ops, t.ops[i])
			}
			txns = append(txns, t)
			total++
		}
		w.sessions = append(w.sessions, txns)
	}
	return w
}

// runWorkload drives w through a store single-threaded, interleaving
// sessions at random; an operation that would wait for a row lock lets
// another session run, and when every session would wait the waiter rolls
// back (the driver cannot block). The table has an index on its value
// modulo indexBuckets, which r looks up. A transaction above RC that looks
// up the same buckets twice must get the same rows both times, except the
// ones it wrote itself: no phantom, no row moving into or out of the range,
// else runWorkload fails (whether or not the history records the first
// lookup's reads).
func runWorkload(w workload, cfg Config, rng *rand.Rand) (*Store, error) {
	cfg.Record = true
	s := NewStore(cfg)
	tab, err := s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
	if err != nil {
		return nil, err
	}
	ix, err := s.CreateIndex(tab, IndexSpec{Name: "t_v", Key: func(_ []byte, row []any) ([]byte, bool) {
		return bucketKey(row[0].(int) % indexBuckets), false
	}})
	if err != nil {
		return nil, err
	}
	type cursor struct {
		sess *Session
		txns []wtxn
		ti   int // current transaction
		oi   int // next op; -1 before begin
		tx   *Txn
		val  int
		// lookups holds the rows each lookup of the transaction returned, by
		// first bucket; wrote, the keys it wrote.
		lookups map[int]map[string]int
		wrote   map[string]bool
	}
	cur := make([]*cursor, len(w.sessions))
	for i, txns := range w.sessions {
		cur[i] = &cursor{sess: s.NewSession(), txns: txns, oi: -1}
	}
	key := func(k int) []byte { return []byte(fmt.Sprintf("k%d", k)) }
	blocked := func(c *cursor, op wop) bool {
		if op.kind == 'g' || op.kind == 's' || op.kind == 'r' {
			return false
		}
		s.e.mu.Lock()
		defer s.e.mu.Unlock()
		ent := s.e.lockEntry(resource{lockRow, uint32(tab), string(key(op.key))})
		if ent == nil {
			return false
		}
		for _, h := range ent.holders {
			if h.t != c.tx.t {
				return true
			}
		}
		return false
	}
	finish := func(c *cursor) { c.ti, c.oi, c.tx = c.ti+1, -1, nil }
	ctxErr := func(err error) error {
		switch pgerror.GetCode(err) {
		case pgerror.SerializationFailure, pgerror.UniqueViolation, pgerror.DeadlockDetected, pgerror.LockNotAvailable:
			return nil
		}
		return err
	}
	for {
		var runnable, waiting []*cursor
		for _, c := range cur {
			if c.ti >= len(c.txns) {
				continue
			}
			if c.oi >= 0 && c.oi < len(c.txns[c.ti].ops) && blocked(c, c.txns[c.ti].ops[c.oi]) {
				waiting = append(waiting, c)
			} else {
				runnable = append(runnable, c)
			}
		}
		if len(runnable) == 0 && len(waiting) == 0 {
			return s, nil
		}
		if len(runnable) == 0 {
			c := waiting[rng.IntN(len(waiting))]
			if err := c.tx.Rollback(); err != nil {
				return s, err
			}
			finish(c)
			continue
		}
		c := runnable[rng.IntN(len(runnable))]
		wt := c.txns[c.ti]
		switch {
		case c.oi < 0:
			tx, err := c.sess.Begin(TxnOptions{Level: wt.level})
			if err != nil {
				return s, err
			}
			c.tx, c.oi = tx, 0
			c.lookups, c.wrote = map[int]map[string]int{}, map[string]bool{}
		case c.oi == len(wt.ops):
			var err error
			if wt.rollback {
				err = c.tx.Rollback()
			} else {
				err = c.tx.Commit(bg)
			}
			if err = ctxErr(err); err != nil {
				return s, err
			}
			finish(c)
		default:
			op := wt.ops[c.oi]
			c.oi++
			c.val++
			c.tx.Statement(history.Statement{SQL: fmt.Sprintf("%c k%d", op.kind, op.key)})
			var err error
			switch op.kind {
			case 'g':
				_, _, err = c.tx.Get(bg, tab, key(op.key), ReadOptions{})
			case 's':
				err = c.tx.Scan(bg, tab, Span{}, ReadOptions{}, func([]byte, []any) (bool, error) { return true, nil })
			case 'r':
				got := map[string]int{}
				err = c.tx.ScanIndex(bg, ix, Span{Start: bucketKey(op.key), End: bucketKey(op.key + 2)}, ReadOptions{},
					func(k []byte, row []any) (bool, error) {
						v := row[0].(int)
						if b := v % indexBuckets; b < op.key || b >= op.key+2 {
							return false, nil // the version chosen is not the one indexed
						}
						got[string(k)] = v
						return true, nil
					})
				if err == nil && wt.level != history.ReadCommitted {
					if why := lookupRepeats(c.lookups[op.key], got, c.wrote); why != "" {
						return s, fmt.Errorf("T%d (%s) looked up buckets %d-%d twice: %s", c.tx.ID(), wt.level, op.key, op.key+1, why)
					}
					c.lookups[op.key] = got
				}
			case 'i', 'n':
				c.wrote[string(key(op.key))] = true
				_, err = c.tx.Insert(bg, tab, key(op.key), []any{c.val})
			case 'u':
				c.wrote[string(key(op.key))] = true
				err = c.tx.Update(bg, tab, key(op.key), []any{c.val})
			case 'd':
				c.wrote[string(key(op.key))] = true
				err = c.tx.Delete(bg, tab, key(op.key))
			case 'l', 'w':
				if _, _, err = c.tx.Get(bg, tab, key(op.key), ReadOptions{ForLock: op.kind == 'l'}); err == nil {
					var got LockedRow
					// NOWAIT: the driver cannot block, and a lock may be
					// held on the key a moved row is followed to.
					got, err = c.tx.LockRow(bg, tab, key(op.key), LockRequest{Mode: RowLockUpdate, Wait: WaitNoWait, Write: op.kind == 'w'})
					if err == nil && op.kind == 'w' && got.Live {
						at := key(op.key)
						if got.Key != nil {
							at = got.Key
						}
						c.wrote[string(at)] = true
						err = c.tx.Update(bg, tab, at, []any{got.Row[0].(int) + c.val})
					}
				}
			case 'm':
				c.wrote[string(key(op.key))], c.wrote[string(key(op.to))] = true, true
				err = c.tx.Move(bg, tab, key(op.key), key(op.to), []any{c.val})
			}
			if err != nil {
				if err = ctxErr(err); err != nil {
					return s, err
				}
				if rerr := c.tx.Rollback(); rerr != nil {
					return s, rerr
				}
				finish(c)
			}
		}
	}
}

// lookupRepeats compares a lookup's rows with an earlier identical one's
// (nil: none), leaving out the keys the transaction wrote.
func lookupRepeats(before, now map[string]int, wrote map[string]bool) string {
	if before == nil {
		return ""
	}
	for k, v := range now {
		if w, ok := before[k]; !wrote[k] && (!ok || w != v) {
			return fmt.Sprintf("%s=%d now, not before", k, v)
		}
	}
	for k, v := range before {
		if w, ok := now[k]; !wrote[k] && (!ok || w != v) {
			return fmt.Sprintf("%s=%d before, not now", k, v)
		}
	}
	return ""
}

var strategies = []Strategy{StrategyLatest, StrategyRandom, StrategyOldest, StrategyAdversarial}

// TestSoundnessRandomWorkloadsSatisfyTheirLevels drives random mixed-level
// workloads (2 to 6 sessions, reads, scans, inserts, updates, deletes,
// client rollbacks, every strategy) through the engine and checks every
// history: the recorded co against the axioms with the brute-force reading
// and with the oracle's check of a given order, the history with the
// oracle's Check, and, on small ones, without co by both brute forces and
// the oracle's search.
func TestSoundnessRandomWorkloadsSatisfyTheirLevels(t *testing.T) {
	cases := 400
	if *longSoundness {
		cases = 100000
	}
	if testing.Short() {
		cases = 100
	}
	var txns, aborts, searched int
	first := 0
	if *soundnessCase >= 0 {
		first, cases = *soundnessCase, *soundnessCase+1
	}
	for c := first; c < cases; c++ {
		rng := rand.New(rand.NewPCG(uint64(c), 7))
		maxTxns := 8
		if c%3 == 2 {
			maxTxns = 24 // checked against the recorded co only
		}
		w := genWorkload(rng, maxTxns)
		strat := strategies[c%len(strategies)]
		s, err := runWorkload(w, Config{Strategy: strat, Seed: uint64(c)}, rng)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		h := s.History()
		if err := h.Validate(); err != nil {
			t.Fatalf("case %d: invalid history: %v\n%s", c, err, dumpHistory(h))
		}
		if why := bruteCheck(h); why != "" {
			t.Fatalf("case %d (strategy %d): %s\n%s", c, strat, why, dumpHistory(h))
		}
		if why := scansListEveryKey(h); why != "" {
			t.Fatalf("case %d (strategy %d): %s\n%s", c, strat, why, dumpHistory(h))
		}
		if ex, err := oracle.CheckOrder(h, h.CommitOrder, oracle.Options{}, nil); err != nil || ex != nil {
			t.Fatalf("case %d (strategy %d): the oracle rejects the recorded co: %v %+v\n%s", c, strat, err, ex, dumpHistory(h))
		}
		if r := oracle.Check(h, oracle.Options{}); r.Verdict != oracle.Consistent {
			t.Fatalf("case %d (strategy %d): the oracle says %s: %+v\n%s", c, strat, r.Verdict, r.Explanation, dumpHistory(h))
		}
		live := 0
		for _, tx := range h.Txns[1:] {
			if tx.Outcome == history.ServerAborted {
				aborts++
			} else {
				live++
			}
		}
		txns += len(h.Txns) - 1
		if live <= 8 {
			unordered := *h
			unordered.CommitOrder = nil
			if why := bruteCheck(&unordered); why != "" {
				t.Fatalf("case %d: %s\n%s", c, why, dumpHistory(h))
			}
			if v, _ := oracle.BruteForce(h, oracle.Options{}); v != oracle.Consistent {
				t.Fatalf("case %d: the oracle's brute force says %s\n%s", c, v, dumpHistory(h))
			}
			if r := oracle.Check(&unordered, oracle.Options{}); r.Verdict == oracle.Violation {
				t.Fatalf("case %d: the oracle's search says violation: %+v\n%s", c, r.Explanation, dumpHistory(h))
			}
			searched++
		}
	}
	t.Logf("%d workloads, %d transactions, %d server aborts, %d also searched without co", cases, txns, aborts, searched)
}

// scansListEveryKey checks that the history is full for predicate reads: a
// scan of a transaction above RC that the server did not abort reads every
// key of the table, the ones created after it as read from init (in a later
// statement when created while the transaction ran: phantom.go; an RC
// statement still running when a key is created need not list it).
func scansListEveryKey(h *history.History) string {
	for _, tx := range h.Txns[1:] {
		if tx.Level == history.ReadCommitted || tx.Outcome == history.ServerAborted {
			continue
		}
		for ev, st := range tx.Statements {
			if !strings.HasPrefix(st.SQL, "s ") {
				continue
			}
			seen := make(map[history.KeyID]bool)
			for _, op := range tx.Ops {
				if op.Kind == history.OpRead && (op.Event == uint32(ev) || op.Event > uint32(ev) && op.Writer == history.Init) {
					seen[op.Key] = true
				}
			}
			for k := range h.Keys {
				if !seen[history.KeyID(k)] {
					return fmt.Sprintf("T%d's scan (statement %d) does not list key %s", tx.ID, ev, h.Keys[k].Name)
				}
			}
		}
	}
	return ""
}

// dumpHistory renders h for failure messages.
func dumpHistory(h *history.History) string {
	var b strings.Builder
	for _, tx := range h.Txns[1:] {
		fmt.Fprintf(&b, "T%d s%d %s %s:", tx.ID, tx.Session, tx.Level, tx.Outcome)
		for _, op := range tx.Ops {
			k := h.Keys[op.Key].Name
			if op.Kind == history.OpWrite {
				fmt.Fprintf(&b, " w(%s)", k)
				if op.Flags&history.FlagTombstone != 0 {
					b.WriteString("del")
				}
			} else {
				fmt.Fprintf(&b, " r(%s<-T%d)", k, op.Writer)
			}
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "co %v\n", h.CommitOrder)
	return b.String()
}

// TestSoundnessWithRealTimeSatisfiesTheStrictLevels runs random workloads
// with Config.RealTime and checks them with the oracle's strict variants:
// every transaction sees what committed before it began.
func TestSoundnessWithRealTimeSatisfiesTheStrictLevels(t *testing.T) {
	cases := 300
	if *longSoundness {
		cases = 30000
	}
	opts := oracle.Options{RealTime: true}
	for c := range cases {
		rng := rand.New(rand.NewPCG(uint64(c), 11))
		w := genWorkload(rng, 8+8*(c%2))
		strat := strategies[c%len(strategies)]
		s, err := runWorkload(w, Config{Strategy: strat, Seed: uint64(c), RealTime: true, StatementSnapshots: c%3 == 0}, rng)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		h := s.History()
		if ex, err := oracle.CheckOrder(h, h.CommitOrder, opts, nil); err != nil || ex != nil {
			t.Fatalf("case %d (strategy %d): the oracle rejects the recorded co: %v %+v\n%s", c, strat, err, ex, dumpHistory(h))
		}
		if r := oracle.Check(h, opts); r.Verdict != oracle.Consistent {
			t.Fatalf("case %d (strategy %d): the oracle says %s: %+v\n%s", c, strat, r.Verdict, r.Explanation, dumpHistory(h))
		}
	}
}

// TestLoggedHistoryReadsBackAsTheRecordedOne streams random workloads to a
// history.Writer (Config.Log) and reads the JSONL back: the oracle must
// accept it with its own co, and every transaction must have the recorded
// outcome, level and session, the same reads of other transactions'
// versions (except the reads the log could no longer carry: from init of
// keys created after a scan, and the reads given to a scanner after it
// ended, phantom.go) and the same writes, each in the statement that made
// it.
func TestLoggedHistoryReadsBackAsTheRecordedOne(t *testing.T) {
	for c := range 100 {
		rng := rand.New(rand.NewPCG(uint64(c), 5))
		w := genWorkload(rng, 16)
		var buf bytes.Buffer
		log, err := history.NewWriter(&buf, history.Header{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := runWorkload(w, Config{Strategy: strategies[c%len(strategies)], Seed: uint64(c), Log: log}, rng)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		if err := log.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := history.ReadJSONL(&buf, "log")
		if err != nil {
			t.Fatalf("case %d: %v\n%s", c, err, buf.String())
		}
		want := s.History()
		if r := oracle.Check(got, oracle.Options{}); r.Verdict != oracle.Consistent {
			t.Fatalf("case %d: the logged history is %s: %+v", c, r.Verdict, r.Explanation)
		}
		if fmt.Sprint(got.CommitOrder) != fmt.Sprint(want.CommitOrder) {
			t.Fatalf("case %d: logged co %v, recorded %v", c, got.CommitOrder, want.CommitOrder)
		}
		if len(got.Txns) != len(want.Txns) {
			t.Fatalf("case %d: logged %d transactions, recorded %d", c, len(got.Txns), len(want.Txns))
		}
		for i := 1; i < len(want.Txns); i++ {
			g, r := got.Txns[i], want.Txns[i]
			if g.Outcome != r.Outcome || g.Level != r.Level || g.Session != r.Session {
				t.Fatalf("case %d T%d: logged %s %s s%d, recorded %s %s s%d", c, i, g.Outcome, g.Level, g.Session, r.Outcome, r.Level, r.Session)
			}
			if why := logCoversRecorded(got, &g, want, &r, lateReads(s, want, r.ID)); why != "" {
				t.Fatalf("case %d T%d: %s: logged ops %s, recorded %s", c, i, why, opSummary(got, &g), opSummary(want, &r))
			}
			if lw, rw := writesByStatement(got, &g), writesByStatement(want, &r); lw != rw {
				t.Fatalf("case %d T%d: logged writes %s, recorded %s", c, i, lw, rw)
			}
		}
	}
}

// lateReads lists, as opSummary renders them, the reads the store gave
// transaction id's scans after it ended (phantom.go), which only the
// recorded history has.
func lateReads(s *Store, h *history.History, id history.TxnID) map[string]bool {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	late := make(map[string]bool)
	for _, p := range s.e.rec.late[id] {
		late[fmt.Sprintf("r(%s<-%d,false)", h.Keys[p.key].String(), p.writer)] = true
	}
	return late
}

// logCoversRecorded reports how logged transaction g differs from recorded
// r beyond what the log cannot carry: g's reads of other transactions'
// versions must be r's in order, except reads from init of absent rows that
// only r has (a key created after g's scan ended or, at RC, after its
// statement) and the reads given to r's scans after it ended (late), and
// the final writes must be the same.
func logCoversRecorded(gh *history.History, g *history.Txn, rh *history.History, r *history.Txn, late map[string]bool) string {
	ga, gw, _ := strings.Cut(opSummary(gh, g), " | ")
	ra, rw, _ := strings.Cut(opSummary(rh, r), " | ")
	if gw != rw {
		return "different writes"
	}
	logged, recorded := strings.Fields(ga), strings.Fields(ra)
	for _, op := range recorded {
		if len(logged) > 0 && logged[0] == op {
			logged = logged[1:]
			continue
		}
		if !strings.HasSuffix(op, "<-0,false)") && !late[op] {
			return "a read is missing from the log: " + op
		}
	}
	if len(logged) > 0 {
		return "the log has reads the recording lacks: " + strings.Join(logged, " ")
	}
	return ""
}

// writesByStatement lists a transaction's writes in order, each with the
// statement that made it.
func writesByStatement(h *history.History, t *history.Txn) string {
	var ws []string
	for _, op := range t.Ops {
		if op.Kind == history.OpWrite {
			ws = append(ws, fmt.Sprintf("w(%s,%v)@%d", h.Keys[op.Key].String(), op.Flags&history.FlagTombstone != 0, op.Event))
		}
	}
	return strings.Join(ws, " ")
}

// opSummary lists a transaction's reads of other transactions' versions
// in order, and its last write to every key (what others can see).
func opSummary(h *history.History, t *history.Txn) string {
	var reads []string
	writes := map[string]string{} // key -> its last write
	for _, op := range t.Ops {
		k := h.Keys[op.Key].String()
		switch {
		case op.Kind == history.OpRead && op.Writer != t.ID:
			reads = append(reads, fmt.Sprintf("r(%s<-%d,%v)", k, op.Writer, op.Flags&history.FlagReturned != 0))
		case op.Kind == history.OpWrite && t.Outcome == history.Committed:
			writes[k] = fmt.Sprintf("w(%s,%v)", k, op.Flags&history.FlagTombstone != 0)
		}
	}
	ws := make([]string, 0, len(writes))
	for _, w := range writes {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	return strings.Join(reads, " ") + " | " + strings.Join(ws, " ")
}
