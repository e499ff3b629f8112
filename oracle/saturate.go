package oracle

import (
	"slices"

	"github.com/fickle-db/fickle/history"
)

// pair is an edge of the commit relation co' by its ends.
type pair struct{ from, to uint32 }

// saturation computes a saturated and minimal commit relation co' for a
// history whose checked transactions are all at RC, RA or CC (paper 003,
// Def. 3.1), each transaction by its own level's axiom: Alg. 1 for RC
// (extended with fickle's session-order visibility and statement-level
// events), Alg. 2 for RA, Alg. 3 for CC. co' is so ∪ wr plus the inferred
// pairs plus the version order's ww edges when the history reveals one; the
// history is consistent iff co' is acyclic (Lemma 3.2: the axioms of these
// levels, and a known version order, are pairs co must hold whatever co is).
type saturation struct {
	ix *index
	wi *writerIndex
	// inferred holds the derived pairs t2 -> t1: t2 writes a key that a
	// transaction t3 read from t1 while t2 was visible to t3.
	inferred []pair
	// capture, when non-nil, asks for the reasons of these pairs.
	capture map[pair]*inference
	steps   int64
	opts    Options
	rt      *realTime // nil unless Options.RealTime
	// lastW[x] is the last writer of x in the session being visited, when
	// lastWS[x] is that session + 1 (without CC transactions only).
	lastW  []history.TxnID
	lastWS []uint32

	// Scratch state for one reader, reset by bumping cur.
	cur       uint32
	txnStamp  []uint32 // per transaction: == cur when seen by this reader
	keyStamp  []uint32 // per key: == cur when in readKeys / readFrom
	first     []int32  // per op of the reader: true (1) for the first read from its writer
	readKeys  []history.KeyID
	e0, e1    []history.TxnID // per key: the two earliest distinct later writers (RC)
	readFrom  []history.TxnID // per key: the writer the reader read it from (RA, CC)
	readFrom2 []history.TxnID // per key: a second, different writer (non-repeatable read)
	readOp    []int32         // per key: the read that saw readFrom
}

// newSaturation prepares the scratch state for ix.
func newSaturation(ix *index, opts Options) *saturation {
	nk := len(ix.h.Keys)
	return &saturation{
		ix: ix, opts: opts,
		txnStamp: make([]uint32, len(ix.h.Txns)),
		keyStamp: make([]uint32, nk),
		e0:       make([]history.TxnID, nk), e1: make([]history.TxnID, nk),
		readFrom: make([]history.TxnID, nk), readFrom2: make([]history.TxnID, nk),
		readOp: make([]int32, nk),
		rt:     rtFor(ix, opts),
	}
}

func rtFor(ix *index, opts Options) *realTime {
	if !opts.RealTime {
		return nil
	}
	return newRealTime(ix)
}

// saturate checks a structurally sound history whose checked transactions
// are all at RC, RA or CC, and explains a violation.
func saturate(ix *index, opts Options) (Verdict, *Explanation, int64) {
	s := newSaturation(ix, opts)
	s.run()
	g := s.graph()
	cycle := g.findCycle()
	if cycle == nil {
		return Consistent, nil, s.steps
	}
	cycle = throughInit(g.shortestCycle(cycle), len(ix.h.Txns))
	return Violation, s.explainCycle(cycle), s.steps
}

// throughInit shortens a cycle through Init to Init, the last transaction
// before it, and the virtual nodes in between (real time): Init precedes
// every transaction in session order, so that edge closes the cycle at once
// (co' holds it only transitively, through the first transaction of each
// session). n is the number of transactions; larger nodes are virtual.
func throughInit(cycle []uint32, n int) []uint32 {
	for i, v := range cycle {
		if v != uint32(history.Init) || len(cycle) <= 2 {
			continue
		}
		j := (i + len(cycle) - 1) % len(cycle)
		var virtual []uint32
		for int(cycle[j]) >= n {
			virtual = append([]uint32{cycle[j]}, virtual...)
			j = (j + len(cycle) - 1) % len(cycle)
		}
		if cycle[j] == v {
			return cycle
		}
		return append([]uint32{v, cycle[j]}, virtual...)
	}
	return cycle
}

// run derives every inferred pair, and adds the ww edges of the history's
// version order (version_order.go).
func (s *saturation) run() {
	ix := s.ix
	n := len(ix.h.Txns)
	var hb *happensBefore
	for t := 1; t < n; t++ {
		if ix.checked(history.TxnID(t)) && ix.levels[t] == history.Causal {
			hb = newHappensBefore(ix, s.rt)
			break
		}
	}
	var order []uint32
	if hb != nil {
		s.wi = newWriterIndex(ix)
		order = hb.topoOrder()
	} else {
		// Session by session, so that each session's last writers can be
		// tracked in one array (AWDIT's lastWrite).
		order = make([]uint32, 0, n)
		for _, list := range ix.sess {
			for _, t := range list {
				order = append(order, uint32(t))
			}
		}
		s.lastW = make([]history.TxnID, len(ix.h.Keys))
		s.lastWS = make([]uint32, len(ix.h.Keys))
	}
	for i, v := range order {
		if s.opts.Progress != nil && i&0xffff == 0 {
			s.opts.Progress(int64(i), int64(len(order)))
		}
		if int(v) >= n {
			hb.visitTimeline(v)
			continue
		}
		t := history.TxnID(v)
		if !ix.checked(t) {
			continue
		}
		if hb != nil {
			hb.visit(t)
		}
		switch ix.levels[t] {
		case history.ReadCommitted:
			if s.opts.RC != RCBiswasEnea { // Biswas and Enea: session order makes nothing visible
				s.sessionCase(t)
			}
			s.readCommitted(t)
		case history.ReadAtomic:
			s.sessionCase(t)
			s.readAtomic(t)
		default:
			if hb != nil && hb.clock(t) != nil {
				s.causal(t, hb.clock(t), hb)
			} else {
				// so ∪ wr is cyclic: the cycle check reports it.
				s.sessionCase(t)
				s.readAtomic(t)
			}
		}
		if s.rt != nil && timed(&ix.h.Txns[t]) {
			for j := range ix.h.Txns[t].Ops {
				if external(t, &ix.h.Txns[t].Ops[j]) {
					s.realTimeRead(t, j)
				}
			}
		}
		if hb != nil {
			hb.done(t)
		} else if ix.visibleWriter(t) {
			stamp := uint32(ix.h.Txns[t].Session) + 1
			for _, x := range ix.writes(t) {
				s.lastW[x], s.lastWS[x] = t, stamp
			}
		}
	}
	s.addVersionOrder()
	if s.opts.Progress != nil {
		s.opts.Progress(int64(len(order)), int64(len(order)))
	}
}

// visibility says why t2 was visible to the reader t3 when a pair t2 -> t1
// was inferred.
type visibility uint8

const (
	visSession        visibility = iota // t2 so t3
	visEarlierRead                      // an earlier statement of t3 read from t2 (RC)
	visRead                             // t3 read from t2 (RA)
	visCausal                           // t2 (so ∪ wr)+ t3 (CC)
	visRepeat                           // t3 read the key from both t1 and t2
	visRealTime                         // t2 committed before t3 began (Options.RealTime)
	visCausalRealTime                   // t2 (so ∪ wr ∪ rt)+ t3 through rt (set by explanations)
	visVersionOrder                     // not a visibility: the history's version order shows t2's version before t1's
)

// inference is a captured reason for an inferred pair.
type inference struct {
	edge Edge
	vis  visibility
}

// infer adds t2 -> t1, forced because t3's read op of x saw t1 while t2,
// which writes x, was visible to it.
func (s *saturation) infer(t2, t1, t3 history.TxnID, x history.KeyID, op int32, vis visibility) {
	// Pairs that so already implies are left out (co' need only hold them
	// transitively): from Init, or from a session predecessor.
	if t2 == history.Init || (s.ix.session[t2] == s.ix.session[t1] && s.ix.pos[t2] < s.ix.pos[t1] && t1 != history.Init) {
		return
	}
	p := pair{uint32(t2), uint32(t1)}
	s.inferred = append(s.inferred, p)
	if s.capture != nil {
		if e, ok := s.capture[p]; ok && e == nil {
			s.capture[p] = &inference{
				edge: Edge{From: t2, To: t1, Kind: EdgeWW, Key: x, FromOp: s.ix.lastWrite(t2, x), ToOp: op, Via: t3},
				vis:  vis,
			}
		}
	}
}

// sessionCase applies vis(t2, r) for t2 so t3, common to RC, RA and CC: for
// each read of x from t1, the so-latest earlier writer of x in t3's own
// session precedes t1 (its so-predecessors then do too, transitively). The
// writer is tracked in lastW when sessions are visited one by one, and
// found by binary search in the writer index otherwise.
func (s *saturation) sessionCase(t3 history.TxnID) {
	ix := s.ix
	sess := uint32(ix.h.Txns[t3].Session)
	bound := ix.pos[t3] - 1
	ops := ix.h.Txns[t3].Ops
	for j := range ops {
		op := &ops[j]
		if !external(t3, op) {
			continue
		}
		s.steps++
		if s.wi == nil {
			if x := op.Key; s.lastWS[x] == sess+1 && s.lastW[x] != op.Writer {
				s.infer(s.lastW[x], op.Writer, t3, x, int32(j), visSession)
			}
			continue
		}
		g, ok := s.wi.group(op.Key, sess)
		if !ok {
			continue
		}
		if p := s.wi.latest(g, bound); p >= 0 {
			if t2 := ix.sess[sess][p]; t2 != op.Writer {
				s.infer(t2, op.Writer, t3, op.Key, int32(j), visSession)
			}
		}
	}
}

// begin starts the scratch state for reader t3.
func (s *saturation) begin() {
	s.cur++
	if s.cur == 0 { // wrapped: clear the stamps
		clear(s.txnStamp)
		clear(s.keyStamp)
		s.cur = 1
	}
	s.readKeys = s.readKeys[:0]
}

// readCommitted is Alg. 1 of paper 003 for reader t3 with statement-level
// events: a read r of t3 makes r's writer t2 visible to every read in a
// later statement. For each writer t2, only t3's first read from t2
// matters; scanning the reads backwards, the keys read in later statements
// and the two earliest distinct writers of each are known, and t2 must
// precede the earliest writer other than itself of every key it writes.
func (s *saturation) readCommitted(t3 history.TxnID) {
	ix := s.ix
	ops := ix.h.Txns[t3].Ops
	s.begin()
	s.first = slices.Grow(s.first[:0], len(ops))[:len(ops)]
	for j := range ops {
		s.first[j] = 0
		op := &ops[j]
		if external(t3, op) && op.Writer != history.Init && s.txnStamp[op.Writer] != s.cur {
			s.txnStamp[op.Writer] = s.cur
			s.first[j] = 1
		}
	}
	for end := len(ops); end > 0; {
		start := end - 1
		for start > 0 && ops[start-1].Event == ops[end-1].Event {
			start--
		}
		for j := start; j < end; j++ {
			if s.first[j] == 1 {
				s.rcIntersect(t3, ops[j].Writer)
			}
		}
		for j := start; j < end; j++ {
			op := &ops[j]
			if !external(t3, op) {
				continue
			}
			y, t2 := op.Key, op.Writer
			switch {
			case s.keyStamp[y] != s.cur:
				s.keyStamp[y] = s.cur
				s.readKeys = append(s.readKeys, y)
				s.e0[y], s.e1[y] = history.NoWriter, t2
				s.readOp[y] = int32(j)
			case s.e1[y] != t2:
				s.e0[y], s.e1[y] = s.e1[y], t2
				s.readOp[y] = int32(j)
			}
		}
		end = start
	}
}

// rcIntersect infers, for every key x that t2 writes and t3 reads in a later
// statement, t2 before the earliest such writer of x other than t2,
// iterating over the smaller of the two key sets.
func (s *saturation) rcIntersect(t3, t2 history.TxnID) {
	w := s.ix.writes(t2)
	if !s.ix.visibleWriter(t2) {
		return
	}
	emit := func(x history.KeyID) {
		t1 := s.e1[x]
		if t1 == t2 {
			t1 = s.e0[x]
		}
		if t1 != history.NoWriter {
			s.infer(t2, t1, t3, x, s.opOfWriter(t3, x, t1), visEarlierRead)
		}
	}
	if len(s.readKeys) <= len(w) {
		for _, x := range s.readKeys {
			s.steps++
			if _, ok := slices.BinarySearch(w, x); ok {
				emit(x)
			}
		}
		return
	}
	for _, x := range w {
		s.steps++
		if s.keyStamp[x] == s.cur {
			emit(x)
		}
	}
}

// opOfWriter returns the index of a read of x by t3 that saw t1, for
// explanations; it is only called when capturing reasons.
func (s *saturation) opOfWriter(t3 history.TxnID, x history.KeyID, t1 history.TxnID) int32 {
	if s.capture == nil {
		return NoOp
	}
	for j, op := range s.ix.h.Txns[t3].Ops {
		if op.Kind == history.OpRead && op.Key == x && op.Writer == t1 {
			return int32(j)
		}
	}
	return NoOp
}

// collectReads records, per key, which writers t3 read it from.
func (s *saturation) collectReads(t3 history.TxnID) {
	ops := s.ix.h.Txns[t3].Ops
	s.begin()
	for j := range ops {
		op := &ops[j]
		if !external(t3, op) {
			continue
		}
		x := op.Key
		switch {
		case s.keyStamp[x] != s.cur:
			s.keyStamp[x] = s.cur
			s.readKeys = append(s.readKeys, x)
			s.readFrom[x], s.readFrom2[x], s.readOp[x] = op.Writer, history.NoWriter, int32(j)
		case s.readFrom[x] != op.Writer && s.readFrom2[x] == history.NoWriter:
			s.readFrom2[x] = op.Writer
		}
	}
}

// readAtomic is the wr case of Alg. 2 of paper 003 for reader t3: every
// transaction t2 that t3 reads from precedes the writer t3 read each key x
// of t2's from. A key read from two writers (a non-repeatable read) yields
// both orders, a cycle.
func (s *saturation) readAtomic(t3 history.TxnID) {
	s.collectReads(t3)
	s.repeatableReads(t3)
	ops := s.ix.h.Txns[t3].Ops
	for j := range ops {
		op := &ops[j]
		if !external(t3, op) || op.Writer == history.Init || s.txnStamp[op.Writer] == s.cur {
			continue
		}
		t2 := op.Writer
		s.txnStamp[t2] = s.cur
		if !s.ix.visibleWriter(t2) {
			continue
		}
		w := s.ix.writes(t2)
		if len(s.readKeys) <= len(w) {
			for _, x := range s.readKeys {
				s.steps++
				if _, ok := slices.BinarySearch(w, x); ok {
					s.raInfer(t3, t2, x)
				}
			}
			continue
		}
		for _, x := range w {
			s.steps++
			if s.keyStamp[x] == s.cur {
				s.raInfer(t3, t2, x)
			}
		}
	}
}

func (s *saturation) raInfer(t3, t2 history.TxnID, x history.KeyID) {
	if t1 := s.readFrom[x]; t1 != t2 {
		s.infer(t2, t1, t3, x, s.readOp[x], visRead)
	}
}

// repeatableReads makes a key read from two writers a two-edge cycle:
// each writer, visible through its own read, precedes the other.
func (s *saturation) repeatableReads(t3 history.TxnID) {
	for _, x := range s.readKeys {
		a, b := s.readFrom[x], s.readFrom2[x]
		if b == history.NoWriter {
			continue
		}
		s.infer(a, b, t3, x, s.opOfWriter(t3, x, b), visRepeat)
		s.infer(b, a, t3, x, s.readOp[x], visRepeat)
	}
}

// causal is Alg. 3 of paper 003 for reader t3 with happens-before clock
// vc: for each read of x from t1 and each session that writes x, the
// so-latest writer of x in t3's causal past precedes t1.
func (s *saturation) causal(t3 history.TxnID, vc []int32, hb *happensBefore) {
	ix := s.ix
	s.collectReads(t3)
	s.repeatableReads(t3)
	ops := ix.h.Txns[t3].Ops
	for j := range ops {
		op := &ops[j]
		if !external(t3, op) {
			continue
		}
		// t1's own causal past: a writer already in it precedes t1 through
		// so ∪ wr, so the pair would be redundant (co' need only hold it
		// transitively). t1's clock is kept while t3, its reader, is open.
		var past []int32
		if op.Writer != history.Init {
			past = hb.clocks[op.Writer]
		}
		for _, g := range s.wi.groupsOf(op.Key) {
			s.steps++
			p := s.wi.latest(g, vc[g.sess])
			if p < 0 || (past != nil && past[g.sess] >= p) {
				continue
			}
			if t2 := ix.sess[g.sess][p]; t2 != op.Writer {
				s.infer(t2, op.Writer, t3, op.Key, int32(j), visCausal)
			}
		}
	}
}
