package oracle

import (
	"fmt"

	"github.com/fickle-db/fickle/history"
)

// MiniResult is the outcome of CheckMini and CheckLinearizable: an exact
// verdict (these checks have no search and no budget) and the violations
// found.
type MiniResult struct {
	// Verdict is Consistent or Violation, never Unknown.
	Verdict Verdict
	// Level is the level decided (SI or SER; SER for linearizability) and
	// RealTime whether real time was part of it (strict serializability,
	// linearizability).
	Level    history.Level
	RealTime bool
	// Found counts the violations: each Divergence (a version that two or
	// more transactions read and overwrote: a lost update), each
	// transaction that read one key from two writers, for SER each pair
	// of transactions with dependencies both ways (a write skew, say), each
	// strongly connected component of the dependency graph (one shortest
	// cycle each, unless it is such a pair), a structural defect (the
	// first, as Check reports it), and for linearizability each operation
	// that began after a later operation of its key had finished.
	Found int
	// Violations explains the first maxMiniExplained violations, each at
	// the weakest level its transactions violate.
	Violations []*Explanation
	// Anomalies counts the violations found by anomaly name.
	Anomalies map[string]int
	// Skipped, when not empty, says why the cycle search was skipped: the
	// Divergences alone decided the verdict, and the read-write edges of
	// their versions would have made the graph quadratic.
	Skipped string
}

// NotMiniError says why a history is outside the class the
// mini-transaction checks decide; oracle.Check decides it instead.
type NotMiniError struct {
	Reason string
}

func (e *NotMiniError) Error() string { return "not a mini-transaction history: " + e.Reason }

func notMini(format string, args ...any) error {
	return &NotMiniError{Reason: fmt.Sprintf(format, args...)}
}

// maxMiniExplained bounds the violations CheckMini explains one by one
// (each through a check of the few transactions involved); the rest are
// counted, named from their cycle alone.
const maxMiniExplained = 1000

// CheckMini decides whether h satisfies opts.Level, SI or SER, with every
// transaction at that level, and with real time when opts.RealTime
// (strict serializability), in time linear in the history (O(n log n)
// with real time): paper 001's CheckSER, CheckSI and CheckSSER
// (Algorithm 1, optimized as in its §IV-C).
//
// It applies to read-modify-write histories, which include paper 001's
// mini-transactions: every write of a committed transaction is preceded, in
// that transaction, by a read of the same key from another transaction.
// The writers of the reads are given (fickle's histories name them;
// importers match unique values), so WR is known; WW follows from it (a
// transaction that read x from T and wrote x comes right after T on x), RW
// goes from each reader of a version to the transactions that overwrote
// it. Two transactions that read one version and both overwrote it form
// the Divergence pattern, a lost update that breaks SI and SER whatever the
// version order; without one the dependency graph is unique and the level
// holds if and only if it (for SI: its composition (SO ∪ WR ∪ WW) ; RW?)
// is acyclic. Real time adds an edge from each committed transaction to
// every transaction that began after it ended, through a chain of virtual
// nodes in commit-time order rather than all pairs.
//
// Client-aborted and pending transactions are read-only here (their
// writes are invisible, as for Check); server-aborted ones are ignored, and
// so are pending ones that may still be aborted (settled, as for Check).
// Structural defects are found first, as Check finds them. A history
// outside the class (a write not preceded by a read of its key, version
// orders, client reads) gives a *NotMiniError and no verdict.
func CheckMini(h *history.History, opts Options) (MiniResult, error) {
	res := MiniResult{Level: opts.Level, RealTime: opts.RealTime, Anomalies: map[string]int{}}
	if opts.Level != history.Snapshot && opts.Level != history.Serializable {
		return res, fmt.Errorf("the mini-transaction check decides SI and SER, not %s", opts.Level)
	}
	c, err := newMiniChecker(settled(h), opts)
	if err != nil {
		return res, err
	}
	if why := c.structure(); why != nil {
		res.add(why)
		res.Verdict = Violation
		return res, nil
	}
	c.versions()
	c.divergences(&res)
	c.repeatedReads(&res)
	if skip := c.graphTooLarge(); skip != "" {
		res.Skipped = skip
	} else {
		c.cycles(&res)
	}
	if res.Found > 0 {
		res.Verdict = Violation
	}
	return res, nil
}

// add records a violation and its explanation (within the limit).
func (r *MiniResult) add(why *Explanation) {
	r.Found++
	r.Anomalies[why.Anomaly]++
	if len(r.Violations) < maxMiniExplained {
		r.Violations = append(r.Violations, why)
	}
}

// miniChecker holds what the checks of one history share.
type miniChecker struct {
	h    *history.History
	opts Options
	ix   *index
	n    int
	// Each transaction's first reads of other transactions' versions,
	// one per key: reads[start[t]:start[t+1]].
	start []int32
	reads []miniRead
	// repeats lists the reads of a key from a second writer.
	repeats []miniRepeat
	// Versions: a committed transaction's write of a key is version p,
	// its place in ix.wKeys; Init's unlisted version of key x is
	// len(ix.wKeys)+x. Each version's overwriters (transactions that read
	// it and wrote its key) are owList[owStart[v]:owStart[v+1]], and
	// readers counts its readers.
	owStart []int32
	owList  []history.TxnID
	readers []int32
	// divergent lists the versions with two overwriters or more.
	divergent []int32
}

// miniRead is a transaction's first read of a key from another
// transaction.
type miniRead struct {
	key       history.KeyID
	src       history.TxnID
	op        int32
	ver       int32
	overwrite bool // the (committed) reader writes the key too
}

// miniRepeat is a read of a key from a writer other than the one the
// transaction's first read of the key saw.
type miniRepeat struct {
	txn   history.TxnID
	first int32 // index in reads
	op    int32
	src   history.TxnID
}

// newMiniChecker checks that h is a read-modify-write history and
// collects each transaction's first reads, in one pass over the
// operations.
func newMiniChecker(h *history.History, opts Options) (*miniChecker, error) {
	if len(h.IncompatibleOrders) > 0 {
		return nil, notMini("it records incompatible list orders")
	}
	for _, o := range h.VersionOrder {
		if o != nil {
			return nil, notMini("it records version orders (list-append)")
		}
	}
	if h.HasClientReads() {
		return nil, notMini("it has client reads")
	}
	n := len(h.Txns)
	c := &miniChecker{h: h, opts: opts, n: n, start: make([]int32, n+1)}
	reads := 0
	for i := 1; i < n; i++ {
		for j := range h.Txns[i].Ops {
			if h.Txns[i].Ops[j].Kind == history.OpRead {
				reads++
			}
		}
	}
	c.reads = make([]miniRead, 0, reads)
	stamp := make([]uint32, len(h.Keys))
	slot := make([]int32, len(h.Keys))
	for i := 1; i < n; i++ {
		t := &h.Txns[i]
		c.start[i] = int32(len(c.reads))
		if t.Outcome == history.ServerAborted {
			continue
		}
		cur := uint32(i)
		for j := range t.Ops {
			op := &t.Ops[j]
			x := op.Key
			if int(x) >= len(h.Keys) {
				continue // malformed: checkWellFormed says so
			}
			if stamp[x] != cur {
				stamp[x], slot[x] = cur, -1
			}
			switch {
			case op.Kind == history.OpWrite:
				if t.Outcome != history.Committed {
					continue
				}
				if slot[x] < 0 {
					return nil, notMini("%s writes %s without reading it first", txnName(h, t.ID), keyName(h, x))
				}
				c.reads[slot[x]].overwrite = true
			case op.Writer == t.ID:
				// A read of its own write: no dependency.
			case slot[x] < 0:
				slot[x] = int32(len(c.reads))
				c.reads = append(c.reads, miniRead{key: x, src: op.Writer, op: int32(j)})
			case c.reads[slot[x]].src != op.Writer:
				c.repeats = append(c.repeats, miniRepeat{txn: t.ID, first: slot[x], op: int32(j), src: op.Writer})
			}
		}
	}
	c.start[n] = int32(len(c.reads))
	return c, nil
}

// txnReads returns t's first reads.
func (c *miniChecker) txnReads(t history.TxnID) []miniRead {
	return c.reads[c.start[t]:c.start[t+1]]
}

// structure runs Check's well-formedness and structural checks.
func (c *miniChecker) structure() *Explanation {
	if why := checkWellFormed(c.h); why != nil {
		return why
	}
	levels := make([]history.Level, c.n)
	for i := range levels {
		levels[i] = c.opts.Level
	}
	c.ix = newIndex(c.h, levels)
	return checkStructure(c.ix)
}

// versions numbers the version each first read saw and lists each
// version's overwriters. The structural checks passed, so every read names
// a committed writer of its key.
func (c *miniChecker) versions() {
	nv := len(c.ix.wKeys) + len(c.h.Keys)
	c.owStart = make([]int32, nv+1)
	c.readers = make([]int32, nv)
	for i := range c.reads {
		r := &c.reads[i]
		p := c.ix.writeEntry(r.src, r.key)
		if p < 0 {
			p = len(c.ix.wKeys) + int(r.key) // Init's unlisted version
		}
		r.ver = int32(p)
		c.readers[p]++
		if r.overwrite {
			c.owStart[p+1]++
		}
	}
	for v := 1; v <= nv; v++ {
		c.owStart[v] += c.owStart[v-1]
	}
	c.owList = make([]history.TxnID, c.owStart[nv])
	next := make([]int32, nv)
	copy(next, c.owStart[:nv])
	for t := 1; t < c.n; t++ {
		for _, r := range c.txnReads(history.TxnID(t)) {
			if r.overwrite {
				c.owList[next[r.ver]] = history.TxnID(t)
				next[r.ver]++
			}
		}
	}
	for v := 0; v < nv; v++ {
		if c.owStart[v+1]-c.owStart[v] >= 2 {
			c.divergent = append(c.divergent, int32(v))
		}
	}
}

// overwriters returns the transactions that read version v and wrote its
// key.
func (c *miniChecker) overwriters(v int32) []history.TxnID {
	return c.owList[c.owStart[v]:c.owStart[v+1]]
}

// isDivergent reports whether version v has two overwriters or more.
func (c *miniChecker) isDivergent(v int32) bool { return c.owStart[v+1]-c.owStart[v] >= 2 }

// divergences reports each Divergence: a version read and overwritten by
// two transactions or more, a lost update (paper 001, Lemma 1).
func (c *miniChecker) divergences(res *MiniResult) {
	for _, v := range c.divergent {
		ow := c.overwriters(v)
		res.add(c.lostUpdate(ow[0], ow[1], v, len(ow)))
	}
}

// repeatedReads reports each transaction that read a key from two writers
// (a non-repeatable read: paper 001's Int axiom, which SI and SER assume).
func (c *miniChecker) repeatedReads(res *MiniResult) {
	for _, rp := range c.repeats {
		first := c.reads[rp.first]
		edges := []Edge{
			{From: first.src, To: rp.src, Kind: EdgeWW, Key: first.key, FromOp: NoOp, ToOp: rp.op, Via: rp.txn},
			{From: rp.src, To: first.src, Kind: EdgeWW, Key: first.key, FromOp: NoOp, ToOp: first.op, Via: rp.txn},
		}
		for i := range edges {
			e := &edges[i]
			e.Reason = fmt.Sprintf("%s read %s%s from %s and%s from %s, so each version must precede the other",
				txnName(c.h, rp.txn), keyName(c.h, first.key), opValue(c.h, rp.txn, first.op), txnName(c.h, first.src),
				opValue(c.h, rp.txn, rp.op), txnName(c.h, rp.src))
		}
		fallback := &Explanation{Level: history.ReadAtomic, Anomaly: "non-repeatable read", Cycle: edges,
			vis: []visibility{visRepeat, visRepeat}}
		res.add(c.explain(fallback, []history.TxnID{rp.txn, first.src, rp.src}, len(res.Violations) < maxMiniExplained))
	}
}
