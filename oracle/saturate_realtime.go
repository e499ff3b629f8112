package oracle

import (
	"slices"

	"github.com/fickle-db/fickle/history"
)

// realTime adds the strict variants' constraints to a saturation (Options.
// RealTime): the real-time order rt (t1 rt t2 when t1 ended before t2
// began) is part of co, and a transaction sees every transaction that
// committed before it began, whatever its level. Transactions without times
// (Start and End both zero) are not constrained.
//
// Both are encoded with virtual nodes so that co' stays linear in size:
//   - a timeline: one node per start and commit event in time order,
//     chained, with start(t) -> t -> end(t), so that t1 reaches t2 through
//     it exactly when t1 committed before t2 began (a start sorts before an
//     end at the same time);
//   - per key, a prefix chain over its timed writers in order of end: writer
//     i -> P(x,i) -> P(x,i+1), so that "every writer of x that ended before
//     t3 began precedes t1" is the single edge P(x,j-1) -> t1.
type realTime struct {
	base      uint32 // the first virtual node: len(h.Txns)
	nTimeline uint32
	// timeline lists the events in time order: the transaction, and
	// whether the event is its end (only committed transactions have one).
	timeline []rtEvent
	// Per key x, its timed committed writers sorted by end time:
	// wTxn[kOff[x]:kOff[x+1]], with their end times in wEnd.
	kOff  []uint32
	wTxn  []history.TxnID
	wEnd  []int64
	edges []pair // edges with a virtual end
}

// rtEvent is one node of the timeline.
type rtEvent struct {
	txn history.TxnID
	end bool
}

// timed reports whether t has wall-clock times.
func timed(t *history.Txn) bool { return t.Start != 0 || t.End != 0 }

// newRealTime builds the timeline and the prefix chains' edges.
func newRealTime(ix *index) *realTime {
	h := ix.h
	n := len(h.Txns)
	rt := &realTime{base: uint32(n)}
	type event struct {
		at   int64
		end  bool
		txn  history.TxnID
		node uint32
	}
	var events []event
	for i := 1; i < n; i++ {
		t := history.TxnID(i)
		if ix.checked(t) && timed(&h.Txns[i]) {
			// Only a commit makes a transaction visible in real time, and
			// a time that is not known (0) is no event.
			if h.Txns[i].Start != 0 {
				events = append(events, event{at: h.Txns[i].Start, txn: t})
			}
			if ix.visibleWriter(t) && h.Txns[i].End != 0 {
				events = append(events, event{at: h.Txns[i].End, end: true, txn: t})
			}
		}
	}
	slices.SortFunc(events, func(a, b event) int {
		switch {
		case a.at != b.at:
			if a.at < b.at {
				return -1
			}
			return 1
		case a.end != b.end:
			if !a.end {
				return -1
			}
			return 1
		}
		return int(a.txn) - int(b.txn)
	})
	for i, e := range events {
		rt.timeline = append(rt.timeline, rtEvent{txn: e.txn, end: e.end})
		v := rt.base + uint32(i)
		if i > 0 {
			rt.edges = append(rt.edges, pair{v - 1, v})
		}
		if e.end {
			rt.edges = append(rt.edges, pair{uint32(e.txn), v})
		} else {
			rt.edges = append(rt.edges, pair{v, uint32(e.txn)})
		}
	}
	rt.nTimeline = uint32(len(events))

	nk := len(h.Keys)
	rt.kOff = make([]uint32, nk+1)
	for i := 1; i < n; i++ {
		t := history.TxnID(i)
		if ix.checked(t) && ix.visibleWriter(t) && h.Txns[i].End != 0 {
			for _, x := range ix.writes(t) {
				rt.kOff[x+1]++
			}
		}
	}
	for x := 1; x <= nk; x++ {
		rt.kOff[x] += rt.kOff[x-1]
	}
	rt.wTxn = make([]history.TxnID, rt.kOff[nk])
	rt.wEnd = make([]int64, rt.kOff[nk])
	fill := append([]uint32(nil), rt.kOff[:nk]...)
	for i := 1; i < n; i++ {
		t := history.TxnID(i)
		if ix.checked(t) && ix.visibleWriter(t) && h.Txns[i].End != 0 {
			for _, x := range ix.writes(t) {
				rt.wTxn[fill[x]] = t
				fill[x]++
			}
		}
	}
	for x := 0; x < nk; x++ {
		lo, hi := rt.kOff[x], rt.kOff[x+1]
		ws := rt.wTxn[lo:hi]
		slices.SortFunc(ws, func(a, b history.TxnID) int {
			ea, eb := h.Txns[a].End, h.Txns[b].End
			switch {
			case ea < eb:
				return -1
			case ea > eb:
				return 1
			}
			return int(a) - int(b)
		})
		for i, w := range ws {
			p := lo + uint32(i)
			rt.wEnd[p] = h.Txns[w].End
			rt.edges = append(rt.edges, pair{uint32(w), rt.prefixNode(p)})
			if i > 0 {
				rt.edges = append(rt.edges, pair{rt.prefixNode(p - 1), rt.prefixNode(p)})
			}
		}
	}
	return rt
}

// nodes returns the number of virtual nodes.
func (rt *realTime) nodes() uint32 { return rt.nTimeline + uint32(len(rt.wTxn)) }

// prefixNode returns the virtual node of position p of the prefix chains.
func (rt *realTime) prefixNode(p uint32) uint32 { return rt.base + rt.nTimeline + p }

// isTimeline reports whether virtual node v belongs to the timeline.
func (rt *realTime) isTimeline(v uint32) bool { return v >= rt.base && v < rt.base+rt.nTimeline }

// realTimeRead adds the real-time visibility of t3's read op (of x, from t1):
// every timed writer of x that ended before t3 began precedes t1.
func (s *saturation) realTimeRead(t3 history.TxnID, j int) {
	rt, h := s.rt, s.ix.h
	op := &h.Txns[t3].Ops[j]
	x, t1 := op.Key, op.Writer
	lo, hi := rt.kOff[x], rt.kOff[x+1]
	start := h.Txns[t3].Start
	end := rt.firstEndingAtOrAfter(lo, hi, start)
	if end == lo {
		return
	}
	k := hi // t1's position, when it is one of the writers before end
	if t1 != history.Init && int(t1) < len(h.Txns) && h.Txns[t1].End != 0 {
		for p := rt.firstEndingAtOrAfter(lo, end, h.Txns[t1].End); p < end && rt.wEnd[p] == h.Txns[t1].End; p++ {
			if rt.wTxn[p] == t1 {
				k = p
				break
			}
		}
	}
	if k == hi {
		s.virtualInfer(rt.prefixNode(end-1), t1, t3, x, int32(j))
		return
	}
	if k > lo {
		s.virtualInfer(rt.prefixNode(k-1), t1, t3, x, int32(j))
	}
	for p := k + 1; p < end; p++ {
		s.infer(rt.wTxn[p], t1, t3, x, int32(j), visRealTime)
	}
}

// firstEndingAtOrAfter returns the first position in [lo, hi) whose
// writer ended at or after at, or hi.
func (rt *realTime) firstEndingAtOrAfter(lo, hi uint32, at int64) uint32 {
	for lo < hi {
		m := (lo + hi) / 2
		if rt.wEnd[m] < at {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// virtualInfer adds the edge from prefix node v to t1 for t3's read j of x.
func (s *saturation) virtualInfer(v uint32, t1, t3 history.TxnID, x history.KeyID, j int32) {
	p := pair{v, uint32(t1)}
	s.rt.edges = append(s.rt.edges, p)
	if s.capture != nil {
		if e, ok := s.capture[p]; ok && e == nil {
			s.capture[p] = &inference{edge: Edge{To: t1, Kind: EdgeWW, Key: x, ToOp: j, Via: t3}, vis: visRealTime}
		}
	}
}
