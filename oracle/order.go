package oracle

import (
	"fmt"
	"slices"

	"github.com/fickle-db/fickle/history"
)

// CheckOrder verifies that the total commit order co (Init first, every
// committed and client-rolled-back transaction once) witnesses that h
// satisfies opts.Level, or each transaction's own level when it is zero
// (DESIGN §3): co extends so ∪ wr (and real time with opts.RealTime), and for
// every read r of t3 from t1 and every other writer t2 of the key, vis(t2, r)
// implies t2 <co t1.
//
// With subset nil every transaction is checked, in O((n + w) log n) for n
// transactions and w operations, plus O(n·k) memory for k sessions when
// causal transactions are present. With a subset, only the reads of those
// transactions and their own place in co are checked; the isolation engine
// uses this to test a candidate position for a committing SER transaction
// against the transactions it affects (DESIGN §4). It returns nil when co
// witnesses consistency, an explanation of the first failure otherwise, and
// an error when co is not a commit order of h. h must pass
// history.Validate; reads no order can justify (thin-air reads, reads of
// uncommitted writes) fail every order.
func CheckOrder(h *history.History, co []history.TxnID, opts Options, subset []history.TxnID) (*Explanation, error) {
	o, err := NewSliceOrder(h, co)
	if err != nil {
		return nil, err
	}
	return VerifyOrder(h, o, opts, subset), nil
}

// VerifyOrder is CheckOrder over any OrderView. With a subset it touches
// only those transactions and their sources, so its cost does not grow with
// the history for PC, SI and SER (microseconds a transaction), except for
// RC and RA transactions (a walk back through their session), causal ones
// (their causal past between the source and the reader) and the strict
// variants (an O(n log n) real-time index per call).
func VerifyOrder(h *history.History, view OrderView, opts Options, subset []history.TxnID) *Explanation {
	if subset == nil {
		return verifyCommitOrderView(h, view, levelsFor(h, opts), opts)
	}
	if why := versionOrderContradicts(h, view, subset); why != nil {
		return why
	}
	c := &orderChecker{ix: newLazyTxnIndex(h, opts.Level).withRC(opts.RC), view: view, realTime: opts.RealTime}
	for _, t := range subset {
		if int(t) >= len(h.Txns) || t == history.Init || !c.ix.get(t).live {
			continue
		}
		if v := c.checkTxn(t, nil); v != nil {
			return v.explain(h)
		}
	}
	return nil
}

// verifyCommitOrder is the hook Check calls (see oracle.go): it checks every
// transaction of h at levels[t] against co.
func verifyCommitOrder(h *history.History, co []history.TxnID, levels []history.Level, opts Options) *Explanation {
	o, err := NewSliceOrder(h, co)
	if err != nil {
		return &Explanation{Level: history.ReadCommitted, Anomaly: "malformed commit order: " + err.Error()}
	}
	return verifyCommitOrderView(h, o, levels, opts)
}

func init() { verifyCommitOrderHook = verifyCommitOrder }

func verifyCommitOrderView(h *history.History, view OrderView, levels []history.Level, opts Options) *Explanation {
	if all := orderFailures(h, view, levels, opts, 1); len(all) > 0 {
		return all[0]
	}
	return nil
}

// orderFailures checks every transaction of h at levels[t] against view and
// explains the first failure of each failing transaction, in session order,
// up to limit of them.
func orderFailures(h *history.History, view OrderView, levels []history.Level, opts Options, limit int) []*Explanation {
	return orderFailuresIn(newTxnIndex(h, levels).withRC(opts.RC), view, levels, opts, limit)
}

// orderFailuresIn is orderFailures with the index of h at levels built by
// the caller, who checks several orders of one history.
func orderFailuresIn(ix *txnIndex, view OrderView, levels []history.Level, opts Options, limit int) []*Explanation {
	h := ix.h
	if why := versionOrderContradicts(h, view, nil); why != nil {
		return []*Explanation{why}
	}
	c := &orderChecker{ix: ix, view: view, realTime: opts.RealTime}
	if so, ok := view.(*SliceOrder); ok {
		c.so = so
		c.buildClocks(so)
	}
	needLast := false
	for t := 1; t < len(h.Txns); t++ {
		if l := levels[t]; l == history.ReadCommitted || l == history.ReadAtomic {
			needLast = true
			break
		}
	}
	var last map[history.KeyID]history.TxnID
	var failures []*Explanation
	for _, list := range c.ix.sess {
		if needLast {
			last = make(map[history.KeyID]history.TxnID)
		}
		for _, t := range list {
			if v := c.checkTxn(t, last); v != nil {
				if failures = append(failures, v.explain(h)); len(failures) >= limit {
					return failures
				}
			}
			if needLast {
				for _, k := range c.ix.get(t).writes {
					last[k] = t
				}
			}
		}
	}
	return failures
}

// orderChecker checks transactions' reads against one commit order.
type orderChecker struct {
	ix       *txnIndex
	view     OrderView
	so       *SliceOrder // view, when it is one
	realTime bool
	rt       *rtIndex
	// clocks, when built, hold each transaction's causal past as a vector
	// over sessions: clocks[t][s] is the highest index in session s of a
	// transaction in t's strict (so ∪ wr)+ past, -1 for none.
	clocks [][]int32
}

// orderViolation is the first failure found: either co does not extend a
// base relation (so, wr, rt: Writer is the predecessor co puts after
// Reader), or a read's source is overwritten in co by a writer visible to it.
type orderViolation struct {
	level  history.Level
	reader history.TxnID
	read   *extRead // nil for a session-order or real-time failure
	writer history.TxnID
	base   EdgeKind // EdgeSO, EdgeWR or EdgeRT for a base failure; EdgeWW for an axiom
	why    string   // how writer is visible to the read
}

func (c *orderChecker) rtIndex() *rtIndex {
	if c.rt == nil {
		c.rt = buildRTIndex(c.ix, c.view)
	}
	return c.rt
}

// checkTxn checks t3's place in co and every read of t3. last, when not
// nil, maps each key to t3's latest session predecessor writing it.
func (c *orderChecker) checkTxn(t3 history.TxnID, last map[history.KeyID]history.TxnID) *orderViolation {
	in := c.ix.get(t3)
	level := c.ix.levelOf(t3)
	p3, ok := c.view.Pos(t3)
	if !ok {
		if c.ix.h.Txns[t3].Outcome == history.Pending {
			return nil
		}
		return &orderViolation{level: level, reader: t3, writer: t3, base: EdgeSO, why: "is missing from the commit order"}
	}
	prev := c.ix.sessPrev(t3)
	front, ok := c.view.Pos(prev)
	if !ok || front >= p3 {
		return &orderViolation{level: level, reader: t3, writer: prev, base: EdgeSO, why: "precedes it in its session"}
	}
	frontTxn := prev
	for i := range in.reads {
		r := &in.reads[i]
		if c.badRead(r) {
			return &orderViolation{level: level, reader: t3, read: r, writer: r.src, base: EdgeWR, why: "wrote no visible version of the key"}
		}
		p, ok := c.view.Pos(r.src)
		if !ok || p >= p3 {
			return &orderViolation{level: level, reader: t3, read: r, writer: r.src, base: EdgeWR, why: "wrote the version it read"}
		}
		if p > front {
			front, frontTxn = p, r.src
		}
	}
	start := c.ix.h.Txns[t3].Start
	if c.realTime {
		if t, p, ok := c.rtIndex().latestBefore(start); ok {
			if p >= p3 {
				return &orderViolation{level: level, reader: t3, writer: t, base: EdgeRT, why: "committed before it began"}
			}
			if p > front {
				front, frontTxn = p, t
			}
		}
	}
	switch level {
	case history.Serializable:
		return c.checkBelow(t3, level, in.reads, p3, false, history.Init)
	case history.Snapshot:
		if p3 > 0 {
			for _, k := range in.writes {
				if t, p, ok := c.view.PrevWriter(k, p3); ok && p > front {
					front, frontTxn = p, t
				}
			}
		}
		fallthrough
	case history.Prefix:
		return c.checkBelow(t3, level, in.reads, front, true, frontTxn)
	case history.Causal:
		return c.checkCausal(t3, in.reads, p3)
	}
	return c.checkAtomic(t3, level, in.reads, last, start)
}

// badRead is txnIndex.badRead, answered from the order's per-key writer
// lists when it has them.
func (c *orderChecker) badRead(r *extRead) bool {
	switch {
	case c.so == nil:
		return c.ix.badRead(r)
	case int(r.src) >= len(c.ix.h.Txns) || !c.ix.get(r.src).commit:
		return true
	}
	return r.src != history.Init && !c.so.writes(r.key, r.src)
}

// checkBelow checks the SER, PC and SI axioms: every writer of a read's key
// at a position below bound (at or below, with inclusive: the prefix ending
// at frontTxn) is visible, so none may come after the read's source.
func (c *orderChecker) checkBelow(t3 history.TxnID, level history.Level, reads []extRead, bound uint64, inclusive bool, frontTxn history.TxnID) *orderViolation {
	for i := range reads {
		r := &reads[i]
		p1, _ := c.view.Pos(r.src)
		t2, p2, ok := c.view.NextWriter(r.key, p1)
		if ok && t2 != t3 && (p2 < bound || inclusive && p2 == bound) {
			why := "precedes it in the commit order"
			if inclusive {
				why = "is in the prefix it saw, which ends at " + txnLabel(c.ix.h, frontTxn)
			}
			return &orderViolation{level: level, reader: t3, read: r, writer: t2, base: EdgeWW, why: why}
		}
	}
	return nil
}

// checkAtomic checks the RC and RA axioms: the visible writers are t3's
// session predecessors (and real-time predecessors) and the sources of its
// reads (for RC, of its earlier reads only).
func (c *orderChecker) checkAtomic(t3 history.TxnID, level history.Level, reads []extRead, last map[history.KeyID]history.TxnID, start int64) *orderViolation {
	seen := sourceSet{c: c}
	if level == history.ReadAtomic {
		for i := range reads {
			seen.add(reads[i].src)
		}
	}
	next := 0 // RC: reads[:next] are the earlier statements' reads
	for i := range reads {
		r := &reads[i]
		if level == history.ReadCommitted {
			for next < len(reads) && reads[next].event < r.event {
				seen.add(reads[next].src)
				next++
			}
		}
		p1, _ := c.view.Pos(r.src)
		if c.ix.sessionVisible(level) {
			if last == nil {
				last = c.sessionLastWriters(t3, reads)
			}
			if p, ok := c.view.Pos(last[r.key]); ok && p > p1 {
				return &orderViolation{level: level, reader: t3, read: r, writer: last[r.key], base: EdgeWW, why: "precedes it in its session"}
			}
		}
		if t2, ok := seen.writerAfter(r.key, p1); ok {
			return &orderViolation{level: level, reader: t3, read: r, writer: t2, base: EdgeWW, why: "wrote a version it read earlier"}
		}
		if c.realTime {
			if w, p, ok := c.rtIndex().latestWriterBefore(r.key, start); ok && p > p1 {
				return &orderViolation{level: level, reader: t3, read: r, writer: w, base: EdgeWW, why: "committed before it began"}
			}
		}
	}
	return nil
}

// sourceSet is the set of transactions an RC or RA reader saw through its
// reads, asked for the co-latest of them writing a key. A few sources are a
// list; past smallSources, each source writing at most bigWriter keys is
// indexed by key (its writes are expanded once), and only the big writers
// stay in the list, so a transaction reading from many sources is checked
// in time linear in its reads and their sources' writes.
type sourceSet struct {
	c     *orderChecker
	list  []sourcePos
	in    map[history.TxnID]bool
	byKey map[history.KeyID]sourcePos
}

type sourcePos struct {
	t   history.TxnID
	pos uint64
}

const (
	smallSources = 16
	bigWriter    = 64
)

func (s *sourceSet) add(t history.TxnID) {
	if t == history.Init {
		return
	}
	if s.in == nil {
		for _, x := range s.list {
			if x.t == t {
				return
			}
		}
		p, _ := s.c.view.Pos(t)
		s.list = append(s.list, sourcePos{t, p})
		if len(s.list) > smallSources {
			all := s.list
			s.list, s.in, s.byKey = nil, map[history.TxnID]bool{}, map[history.KeyID]sourcePos{}
			for _, x := range all {
				s.in[x.t] = true
				s.index(x)
			}
		}
		return
	}
	if s.in[t] {
		return
	}
	s.in[t] = true
	p, _ := s.c.view.Pos(t)
	s.index(sourcePos{t, p})
}

func (s *sourceSet) index(x sourcePos) {
	w := s.c.ix.get(x.t).writes
	if len(w) > bigWriter {
		s.list = append(s.list, x)
		return
	}
	for _, k := range w {
		if cur, ok := s.byKey[k]; !ok || x.pos > cur.pos {
			s.byKey[k] = x
		}
	}
}

// writerAfter returns a source that writes key at a position above p1.
func (s *sourceSet) writerAfter(key history.KeyID, p1 uint64) (history.TxnID, bool) {
	if x, ok := s.byKey[key]; ok && x.pos > p1 {
		return x.t, true
	}
	for _, x := range s.list {
		if x.pos > p1 && s.c.ix.writesKey(x.t, key) {
			return x.t, true
		}
	}
	return 0, false
}

// sessionLastWriters maps each key t3 reads to t3's latest session
// predecessor that commits a write of it (keys without one are absent), in
// one walk back through t3's session that stops once every key is found.
func (c *orderChecker) sessionLastWriters(t3 history.TxnID, reads []extRead) map[history.KeyID]history.TxnID {
	want := make(map[history.KeyID]bool, len(reads))
	for _, r := range reads {
		want[r.key] = true
	}
	last := make(map[history.KeyID]history.TxnID, len(want))
	list := c.ix.h.Sessions[c.ix.h.Txns[t3].Session].Txns
	i := len(list) - 1
	for i >= 0 && list[i] != t3 {
		i--
	}
	for i--; i >= 0 && len(last) < len(want); i-- {
		t := list[i]
		if !c.ix.get(t).commit {
			continue
		}
		for _, k := range c.ix.get(t).writes {
			if _, done := last[k]; want[k] && !done {
				last[k] = t
			}
		}
	}
	return last
}

// checkCausal checks the CC axiom: the visible writers are t3's causal past.
// With clocks, membership is a lookup and the writers between the source
// and t3 are scanned; without, the past above the source is walked.
func (c *orderChecker) checkCausal(t3 history.TxnID, reads []extRead, p3 uint64) *orderViolation {
	for i := range reads {
		r := &reads[i]
		p1, _ := c.view.Pos(r.src)
		if c.clocks != nil {
			for t2, p2, ok := c.view.NextWriter(r.key, p1); ok && p2 < p3; t2, p2, ok = c.view.NextWriter(r.key, p2) {
				if c.inPast(t2, t3) {
					return &orderViolation{level: history.Causal, reader: t3, read: r, writer: t2, base: EdgeWW, why: "is in its causal past"}
				}
			}
			continue
		}
		if t2, ok := c.walkPast(t3, p1, r.key); ok {
			return &orderViolation{level: history.Causal, reader: t3, read: r, writer: t2, base: EdgeWW, why: "is in its causal past"}
		}
	}
	return nil
}

func (c *orderChecker) inPast(t2, t3 history.TxnID) bool {
	if t2 == history.Init {
		return true
	}
	s := c.ix.h.Txns[t2].Session
	return c.clocks[t3] != nil && c.clocks[t3][s] >= c.ix.get(t2).sessIdx
}

// walkPast searches t3's strict causal past, pruned to positions above p1,
// for a committed writer of x.
func (c *orderChecker) walkPast(t3 history.TxnID, p1 uint64, x history.KeyID) (history.TxnID, bool) {
	seen := map[history.TxnID]bool{t3: true}
	stack := []history.TxnID{t3}
	push := func(t history.TxnID) {
		if p, ok := c.view.Pos(t); ok && p > p1 && !seen[t] {
			seen[t] = true
			stack = append(stack, t)
		}
	}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if u != t3 && c.ix.writesKey(u, x) {
			return u, true
		}
		push(c.ix.sessPrev(u))
		for _, r := range c.ix.get(u).reads {
			push(r.src)
		}
		if c.realTime {
			for _, t := range c.rtIndex().before(c.ix.h.Txns[u].Start) {
				push(t)
			}
		}
	}
	return 0, false
}

// causalClockBudget bounds the entries of the clocks buildClocks keeps, one
// per transaction and session: 2^25 entries are 128 MB. A 30-minute soak's
// history (200,000 transactions of 10,000 short sessions) would have needed
// 8 GB; past the budget checkCausal walks each reader's pruned causal past
// instead, with the same verdicts in memory linear in the history.
var causalClockBudget int64 = 1 << 25

// buildClocks computes every transaction's causal-past vector in co order,
// when some transaction is checked at CC and the clocks fit the budget. A
// predecessor that co puts later (a base failure checkTxn reports)
// contributes nothing.
func (c *orderChecker) buildClocks(o *SliceOrder) {
	h := c.ix.h
	need := false
	for t := 1; t < len(h.Txns) && !need; t++ {
		need = c.ix.get(history.TxnID(t)).live && c.ix.levelOf(history.TxnID(t)) == history.Causal
	}
	k := len(h.Sessions)
	if !need || int64(len(h.Txns))*int64(k) > causalClockBudget {
		return
	}
	c.clocks = make([][]int32, len(h.Txns))
	var rtPrefix [][]int32 // rtPrefix[i]: join of the first i real-time entries' inclusive clocks
	join := func(v []int32, u history.TxnID) {
		if u == history.Init || c.clocks[u] == nil {
			return
		}
		for s, x := range c.clocks[u] {
			v[s] = max(v[s], x)
		}
		s := h.Txns[u].Session
		v[s] = max(v[s], c.ix.get(u).sessIdx)
	}
	for _, t := range o.co[1:] {
		v := make([]int32, k)
		for s := range v {
			v[s] = -1
		}
		join(v, c.ix.sessPrev(t))
		for _, r := range c.ix.get(t).reads {
			if int(r.src) < len(h.Txns) {
				join(v, r.src)
			}
		}
		if c.realTime {
			rt := c.rtIndex()
			n := len(rt.before(h.Txns[t].Start))
			if rtPrefix == nil {
				rtPrefix = [][]int32{slices.Repeat([]int32{-1}, k)}
			}
			for len(rtPrefix) <= n {
				p := slices.Clone(rtPrefix[len(rtPrefix)-1])
				join(p, rt.txns[len(rtPrefix)-1])
				rtPrefix = append(rtPrefix, p)
			}
			for s, x := range rtPrefix[n] {
				v[s] = max(v[s], x)
			}
		}
		c.clocks[t] = v
	}
}

// explain turns a failure into an Explanation: a two-edge cycle between the
// order the level forces and the order co has.
func (v *orderViolation) explain(h *history.History) *Explanation {
	e := &Explanation{Level: v.level, Anomaly: "commit order violates " + v.level.String()}
	t3 := txnLabel(h, v.reader)
	if v.base != EdgeWW {
		key, fromOp := history.KeyID(0), NoOp
		if v.read != nil {
			key, fromOp = v.read.key, v.read.op
		}
		e.Cycle = []Edge{
			{From: v.writer, To: v.reader, Kind: v.base, Key: key, FromOp: NoOp, ToOp: fromOp, Via: v.reader,
				Reason: fmt.Sprintf("%s %s %s", txnLabel(h, v.writer), v.why, t3)},
			{From: v.reader, To: v.writer, Kind: EdgeWW, FromOp: NoOp, ToOp: NoOp, Via: v.reader,
				Reason: fmt.Sprintf("the commit order puts %s before %s", t3, txnLabel(h, v.writer))},
		}
		return e
	}
	r := v.read
	key := h.Keys[r.key].String()
	t1, t2 := txnLabel(h, r.src), txnLabel(h, v.writer)
	e.Cycle = []Edge{
		{From: v.writer, To: r.src, Kind: EdgeWW, Key: r.key, FromOp: NoOp, ToOp: NoOp, Via: v.reader,
			Reason: fmt.Sprintf("%s reads %s from %s at %s and %s, which writes %s, %s, so %s must commit before %s",
				t3, key, t1, v.level, t2, key, v.why, t2, t1)},
		{From: r.src, To: v.writer, Kind: EdgeWW, Key: r.key, FromOp: NoOp, ToOp: NoOp, Via: v.reader,
			Reason: fmt.Sprintf("the commit order puts %s before %s", t1, t2)},
	}
	return e
}

// txnLabel names a transaction for explanations: its name in the source
// format when it has one, else T<id>, with its session.
func txnLabel(h *history.History, t history.TxnID) string {
	if t == history.Init {
		return "init"
	}
	x := &h.Txns[t]
	name := x.Name
	if name == "" {
		name = fmt.Sprintf("T%d", t)
	}
	if int(x.Session) < len(h.Sessions) {
		return fmt.Sprintf("%s (session %s)", name, h.Sessions[x.Session].Name)
	}
	return name
}
