package stress

import (
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/fickle-db/fickle/history"
)

// recorder writes the client-side history as the sessions run, in
// fickle's JSONL format: a transaction's begin event when it starts (with
// its start time, so that reads of its writes may name it), the rest when
// it ends. The writer flushes at every commit, so a history cut short
// parses up to its last committed transaction.
//
// A read names the transaction whose id it returned (values are writers'
// ids), or Init for the initial value 0 or an absent row the workload
// starts with; a value no transaction that began wrote is a thin-air read
// (NoWriter), which the checker reports.
type recorder struct {
	mu sync.Mutex
	w  *history.Writer
	// last is the last transaction id given out; ids are 1, 2, ...
	last     history.TxnID
	table    string
	workload string
	epoch    time.Time
	// observed marks, by id, the transactions some recorded read saw a
	// write of.
	observed []bool
	// indeterminate holds the transactions whose COMMIT got no answer,
	// recorded at close.
	indeterminate []*txnRecord
	// lists keeps, for append, each key's longest list read and the first
	// pair of lists of it that are not prefixes of one another.
	lists map[int]*listOrder
	err   error
}

// listOrder is what the append workload's reads of one key showed.
type listOrder struct {
	longest      history.ListRead
	incompatible *history.IncompatibleOrder
}

// txnRecord is one transaction as a session ran it.
type txnRecord struct {
	id         history.TxnID
	session    history.SessionID
	start, end int64
	stmts      []stmtRecord
	outcome    history.Outcome
	code       string // SQLSTATE of a server abort
	// commitSent says whether COMMIT went out; without an answer the
	// outcome is unknown.
	commitSent bool
}

// writes reports whether t changed the key named name.
func (t *txnRecord) writes(name string) bool {
	for _, st := range t.stmts {
		if st.op.kind != opRead && st.res.applied && strconv.Itoa(st.op.key) == name {
			return true
		}
	}
	return false
}

// stmtRecord is one statement and what it did.
type stmtRecord struct {
	text string
	op   op
	res  opResult
}

func newRecorder(w *history.Writer, table, workload string) *recorder {
	return &recorder{w: w, table: table, workload: workload, epoch: time.Now(), lists: map[int]*listOrder{}}
}

// now returns the time in nanoseconds since the Unix epoch, from the
// monotonic clock, so that real-time order is not at the mercy of clock
// adjustments during the run.
func (r *recorder) now() int64 {
	return r.epoch.UnixNano() + int64(time.Since(r.epoch))
}

func (r *recorder) key(k int) history.Key {
	return history.Key{Table: r.table, Name: strconv.Itoa(k)}
}

// initial records the rows the table starts with: Init writes value 0 to
// every key (mt, rw); an empty list (append) or an absent row (cas) is
// Init's tombstone, which needs no event.
func (r *recorder) initial(objects int) {
	if r.workload != "mt" && r.workload != "rw" {
		return
	}
	for k := 0; k < objects; k++ {
		r.setErr(r.w.Write(history.Init, history.WriteItem{Key: r.key(k), HasValue: true, Value: 0}))
	}
}

// session records a session's start.
func (r *recorder) session(s history.SessionID, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.setErr(r.w.Session(s, name))
}

// begin starts a transaction of session s at level: its id, its start
// time and its begin event.
func (r *recorder) begin(s history.SessionID, level history.Level) *txnRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last++
	t := &txnRecord{id: r.last, session: s, start: r.now()}
	r.setErr(r.w.Begin(t.id, s, level, t.start, ""))
	return t
}

// finish records a transaction that ended: its statements and outcome,
// or, when its COMMIT went unanswered, keeps it for close.
func (r *recorder) finish(t *txnRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.outcome == history.Pending {
		r.indeterminate = append(r.indeterminate, t)
		return
	}
	r.writeStmts(t, true)
	if t.outcome == history.Committed {
		r.setErr(r.w.Commit(t.id, t.end))
	} else {
		r.setErr(r.w.Abort(t.id, t.outcome, t.code, t.end))
	}
}

// writeStmts records t's statements, its reads with them or not.
func (r *recorder) writeStmts(t *txnRecord, reads bool) {
	opIndex := 0
	for _, st := range t.stmts {
		rs, ws := r.items(t, st)
		if !reads {
			rs = nil
		}
		if len(rs) == 0 && len(ws) == 0 {
			continue
		}
		r.setErr(r.w.Stmt(t.id, history.Statement{SQL: st.text, Table: r.table}))
		if len(rs) > 0 {
			for _, it := range rs {
				r.observe(it.Writer, t.id)
			}
			r.setErr(r.w.Read(t.id, rs))
			if st.res.list != nil && t.outcome == history.Committed {
				r.noteList(st.op.key, history.ListRead{Txn: t.id, Op: opIndex, List: st.res.list})
			}
		}
		opIndex += len(rs)
		for _, w := range ws {
			r.setErr(r.w.Write(t.id, w))
		}
		opIndex += len(ws)
	}
}

// items turns a statement into the reads and writes it made.
func (r *recorder) items(t *txnRecord, st stmtRecord) ([]history.ReadItem, []history.WriteItem) {
	key := r.key(st.op.key)
	write := []history.WriteItem{{Key: key, HasValue: true, Value: int64(t.id)}}
	switch st.op.kind {
	case opRead:
		if st.res.absent {
			w := history.Init
			if r.workload == "mt" || r.workload == "rw" {
				w = history.NoWriter // their rows are never deleted
			}
			return []history.ReadItem{{Key: key, Writer: w, Tombstone: true}}, nil
		}
		return []history.ReadItem{r.valueRead(t, key, st.res.value)}, nil
	case opInsert:
		if st.res.applied {
			return []history.ReadItem{{Key: key, Writer: history.Init, Tombstone: true}}, write
		}
	case opCAS:
		if st.res.applied {
			return []history.ReadItem{r.valueRead(t, key, st.op.expect)}, write
		}
	default:
		if st.res.applied {
			return nil, write
		}
	}
	return nil, nil // a compare-and-set or insert that did not apply
}

// valueRead is a read of value v of key by t: v names its writer.
func (r *recorder) valueRead(t *txnRecord, key history.Key, v int64) history.ReadItem {
	it := history.ReadItem{Key: key, Returned: true, HasValue: true, Value: v, Writer: history.NoWriter}
	switch {
	case v == 0:
		it.Writer = history.Init
	case v == int64(t.id):
		if t.writes(key.Name) {
			it.Writer = t.id // its own write (or, before it, a future read)
		}
	case v > 0 && v <= int64(r.last):
		it.Writer = history.TxnID(v)
	}
	return it
}

// observe notes that reader saw a write of w.
func (r *recorder) observe(w, reader history.TxnID) {
	if w == history.Init || w == history.NoWriter || w == reader {
		return
	}
	for len(r.observed) <= int(w) {
		r.observed = append(r.observed, false)
	}
	r.observed[w] = true
}

// seen reports whether a recorded read saw a write of t.
func (r *recorder) seen(t history.TxnID) bool { return int(t) < len(r.observed) && r.observed[t] }

// noteList keeps a committed list-append read for the key's version
// order: the longest list so far, or the first list that is not a prefix
// of it nor it of the list.
func (r *recorder) noteList(k int, lr history.ListRead) {
	lo := r.lists[k]
	switch {
	case lo == nil:
		r.lists[k] = &listOrder{longest: lr}
	case lo.incompatible != nil:
	case isPrefix(lr.List, lo.longest.List):
	case isPrefix(lo.longest.List, lr.List):
		lo.longest = lr
	default:
		lo.incompatible = &history.IncompatibleOrder{Reads: [2]history.ListRead{lr, lo.longest}}
	}
}

func isPrefix(p, l []int64) bool {
	return len(p) <= len(l) && slices.Equal(p, l[:len(p)])
}

// close records the transactions whose COMMIT went unanswered: committed
// (with no end time) when a read saw one of their writes, else pending
// with their writes alone (their reads may have been cut short by an
// abort, so they are not checked). For append it then records each key's
// version order, as far as its longest list read shows it.
func (r *recorder) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A committed one's reads may show that another committed too.
	open := r.indeterminate
	for changed := true; changed; {
		changed = false
		for i, t := range open {
			if t != nil && r.seen(t.id) {
				t.outcome = history.Committed
				r.writeStmts(t, true)
				r.setErr(r.w.Commit(t.id, 0))
				open[i], changed = nil, true
			}
		}
	}
	for _, t := range open {
		if t != nil {
			r.writeStmts(t, false)
			r.setErr(r.w.Abort(t.id, history.Pending, "", 0))
		}
	}
	keys := make([]int, 0, len(r.lists))
	for k := range r.lists {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		lo := r.lists[k]
		if lo.incompatible != nil {
			r.setErr(r.w.IncompatibleOrder(r.key(k), *lo.incompatible))
			continue
		}
		var order []history.TxnID
		for _, v := range lo.longest.List {
			if v > 0 && v <= int64(r.last) {
				order = append(order, history.TxnID(v))
			}
		}
		if len(order) > 0 {
			r.setErr(r.w.VersionOrderPrefix(r.key(k), order))
		}
	}
	if err := r.w.Close(); r.err == nil {
		r.err = err
	}
	return r.err
}

func (r *recorder) setErr(err error) {
	if err != nil && r.err == nil {
		r.err = err
	}
}
