package oracle

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/fickle-db/fickle/history"
)

// When a recorded commit order fails at PC, SI or SER, the failure is
// usually local: the transactions around the read it names are ordered
// badly, or cannot be ordered at all. Searching a window of the recorded
// order around that read decides such a failure cheaply and exactly:
//
//   - consistency is monotone under taking sub-histories: a subset of the
//     transactions, with session order restricted to them and the reads of
//     versions written outside the subset dropped, is consistent whenever
//     the whole history is (restrict the whole history's witness to the
//     subset; every relation a visibility formula quantifies over only
//     shrinks, so every axiom still holds). A window that admits no commit
//     order proves that the whole history admits none;
//   - a window that admits one is spliced into the order (its transactions
//     take the window's places in the order the search found). Every
//     failure of the order gets a window, disjoint windows in one round,
//     and the whole order is verified again after each round: an order
//     that passes is a witness. A failure that outlives its window's
//     splice gets a larger window in the next round.
//
// Windows stop short of half the history, where the search of the whole is
// no dearer, and the repairs stop after maxRepairRounds rounds.

// coreWindows are the margins, in transactions on either side of each
// transaction the failure names, of the windows of the order tried in
// turn.
var coreWindows = [...]int{64, 512, 4096}

// maxRepairRounds bounds the rounds of repairOrder.
const maxRepairRounds = 32

// coreStepsPerTxn bounds each window's search, in steps per transaction of
// the window: enough for the search to walk a consistent window straight
// through, and for saturation to close a cycle; a window whose search needs
// more gives way to the next.
const coreStepsPerTxn = 16

// repairOrder decides h at levels from a commit order of h that fails there
// (the recorded one, or a witness of a weaker level), by windows around
// its failures (see above). It returns Consistent with a witness order,
// Violation with an explanation in h's terms, or Unknown when the windows
// decide nothing, with the search steps it spent; budget bounds those steps
// (0: none).
func repairOrder(h *history.History, start []history.TxnID, levels []history.Level, opts Options, budget int64) ([]history.TxnID, Verdict, *Explanation, int64) {
	if start == nil {
		return nil, Unknown, nil, 0
	}
	co := slices.Clone(start)
	pos := make([]int32, len(h.Txns))
	for i := range pos {
		pos[i] = -1
	}
	for p, t := range co {
		pos[t] = int32(p)
	}
	sessPos := sessionPositions(h)
	ix := newTxnIndex(h, levels).withRC(opts.RC)
	var steps int64
	size := map[history.TxnID]int{} // by failing reader: the window size to try next
	for range maxRepairRounds {
		o, err := NewSliceOrder(h, co)
		if err != nil {
			break
		}
		failures := orderFailuresIn(ix, o, levels, opts, len(h.Txns))
		if len(failures) == 0 {
			return co, Consistent, nil, steps
		}
		used := make([]bool, len(co))
		progress := false
		for _, f := range failures {
			if f.Structural != nil || len(f.Cycle) == 0 {
				return nil, Unknown, nil, steps
			}
			reader := f.Cycle[0].Via
			w := size[reader]
			if w == len(coreWindows) {
				return nil, Unknown, nil, steps
			}
			places := windowPlaces(failurePlaces(f, pos), coreWindows[w], len(co))
			if 2*len(places) > len(co) {
				return nil, Unknown, nil, steps
			}
			if slices.ContainsFunc(places, func(p int) bool { return used[p] }) {
				continue
			}
			for _, p := range places {
				used[p] = true
			}
			size[reader] = w + 1
			keep := []history.TxnID{history.Init}
			for _, p := range places {
				keep = append(keep, co[p])
			}
			order, v, why, n := searchWindow(h, sessPos, levels, opts, keep, budget-steps)
			steps += n
			switch {
			case v == Violation:
				return nil, Violation, why, steps
			case budget > 0 && steps >= budget:
				return nil, Unknown, nil, steps
			case v != Consistent:
				continue
			}
			progress = true
			inWindow := make(map[history.TxnID]bool, len(keep))
			for _, t := range keep[1:] {
				inWindow[t] = true
			}
			i := 0
			for _, t := range order {
				if inWindow[t] {
					co[places[i]], pos[t] = t, int32(places[i])
					i++
				}
			}
		}
		if !progress {
			break
		}
	}
	return nil, Unknown, nil, steps
}

// windowPlaces returns the positions, ascending, within margin of the
// positions at (ascending), Init's excluded.
func windowPlaces(at []int, margin, n int) []int {
	var places []int
	next := 1
	for _, p := range at {
		for q := max(next, p-margin); q <= p+margin && q < n; q++ {
			places = append(places, q)
		}
		next = max(next, min(p+margin+1, n))
	}
	return places
}

// failurePlaces returns the positions, ascending, of the transactions a
// failure's cycle names.
func failurePlaces(failure *Explanation, pos []int32) []int {
	var at []int
	for _, e := range failure.Cycle {
		for _, t := range []history.TxnID{e.From, e.To, e.Via} {
			if int(t) < len(pos) && pos[t] >= 0 && !slices.Contains(at, int(pos[t])) {
				at = append(at, int(pos[t]))
			}
		}
	}
	slices.Sort(at)
	return at
}

// searchWindow searches the sub-history of the transactions keep and the
// writers of what they read (see subHistory) with at most coreStepsPerTxn
// steps a transaction (and at most budget, when opts.MaxSteps is set). It
// returns Consistent with the order found (in h's ids), Violation with an
// explanation in h's terms, or Unknown.
func searchWindow(h *history.History, sessPos []int32, levels []history.Level, opts Options, keep []history.TxnID, budget int64) ([]history.TxnID, Verdict, *Explanation, int64) {
	sub, orig := subHistory(h, withSources(h, keep), sessPos)
	o := opts
	o.Progress = nil
	o.MaxSteps = int64(coreStepsPerTxn * len(orig))
	if opts.MaxSteps > 0 {
		if o.MaxSteps = min(o.MaxSteps, budget); o.MaxSteps <= 0 {
			return nil, Unknown, nil, 0
		}
	}
	subLevels := make([]history.Level, len(orig))
	for i, t := range orig {
		subLevels[i] = levels[t]
	}
	order, v, why, n := searchCommitOrder(sub, subLevels, o)
	switch v {
	case Consistent:
		for i, t := range order {
			order[i] = orig[t]
		}
		return order, v, nil, n
	case Violation:
		if e := explainSearchCycle(sub, subLevels, opts, strongest(sub, subLevels)); e != nil {
			why = e
		}
		return nil, v, liftExplanation(h, why, orig), n
	}
	return nil, Unknown, nil, n
}

// sessionPositions returns each transaction's index in its session's list.
func sessionPositions(h *history.History) []int32 {
	pos := make([]int32, len(h.Txns))
	for _, s := range h.Sessions {
		for i, t := range s.Txns {
			if int(t) < len(pos) {
				pos[t] = int32(i)
			}
		}
	}
	return pos
}

// withSources adds to keep the writers of the versions keep's transactions
// read, so that a window keeps its reads of old versions (without their
// writers, the reads would be dropped and constrain nothing).
func withSources(h *history.History, keep []history.TxnID) []history.TxnID {
	in := make(map[history.TxnID]bool, len(keep))
	for _, t := range keep {
		in[t] = true
	}
	out := keep
	for _, t := range keep {
		for _, op := range h.Txns[t].Ops {
			if op.Kind == history.OpRead && int(op.Writer) < len(h.Txns) && !in[op.Writer] {
				in[op.Writer] = true
				out = append(out, op.Writer)
			}
		}
	}
	return out
}

// subHistory returns the sub-history of h made of the transactions keep
// (Init first, each once; sessPos gives each transaction's index in its
// session, see sessionPositions): their sessions in session order, their
// operations less the reads of versions written outside keep, the recorded
// commit order restricted to them. orig maps the sub-history's transaction
// ids back to h's. Transactions keep their names (T<id> in h when they have
// none), so that explanations built on the sub-history read as h's. Keys
// are shared with h.
func subHistory(h *history.History, keep []history.TxnID, sessPos []int32) (sub *history.History, orig []history.TxnID) {
	keep = slices.Clone(keep)
	slices.Sort(keep)
	newID := make(map[history.TxnID]history.TxnID, len(keep))
	bySession := map[history.SessionID][]history.TxnID{}
	for i, t := range keep {
		newID[t] = history.TxnID(i)
		if t != history.Init {
			s := h.Txns[t].Session
			bySession[s] = append(bySession[s], t)
		}
	}
	sub = &history.History{Keys: h.Keys}
	sessionOf := map[history.SessionID]history.SessionID{}
	for _, s := range slices.Sorted(maps.Keys(bySession)) {
		list := bySession[s]
		slices.SortFunc(list, func(a, b history.TxnID) int { return cmp.Compare(sessPos[a], sessPos[b]) })
		id := history.SessionID(len(sub.Sessions))
		sessionOf[s] = id
		txns := make([]history.TxnID, len(list))
		for i, t := range list {
			txns[i] = newID[t]
		}
		sub.Sessions = append(sub.Sessions, history.Session{ID: id, Name: h.Sessions[s].Name, Txns: txns})
	}
	sub.Txns = make([]history.Txn, len(keep))
	for i, t := range keep {
		src := &h.Txns[t]
		x := *src
		x.ID = history.TxnID(i)
		if t != history.Init {
			x.Session = sessionOf[src.Session]
			if x.Name == "" {
				x.Name = fmt.Sprintf("T%d", t)
			}
		}
		x.Ops = nil
		var kept []int
		for j, op := range src.Ops {
			if op.Kind == history.OpRead {
				n, ok := newID[op.Writer]
				if !ok {
					continue
				}
				op.Writer = n
			}
			x.Ops = append(x.Ops, op)
			kept = append(kept, j)
		}
		x.KeepRows(src, kept)
		sub.Txns[i] = x
	}
	for _, t := range h.CommitOrder {
		if n, ok := newID[t]; ok {
			sub.CommitOrder = append(sub.CommitOrder, n)
		}
	}
	if h.VersionOrder != nil {
		sub.VersionOrder = make([][]history.TxnID, len(h.VersionOrder))
		for k, order := range h.VersionOrder {
			for _, t := range order {
				if n, ok := newID[t]; ok {
					sub.VersionOrder[k] = append(sub.VersionOrder[k], n)
				}
			}
		}
		// A prefix stays one: a kept writer the order does not list came
		// after every listed one, the kept ones included.
		sub.VersionOrderPrefix = h.VersionOrderPrefix
	}
	return sub, keep
}

// liftExplanation rewrites an explanation found on a sub-history (see
// subHistory) in the terms of h: transaction ids mapped back through orig,
// operation indices recomputed on h. The reasons' texts already name h's
// transactions.
func liftExplanation(h *history.History, e *Explanation, orig []history.TxnID) *Explanation {
	if e == nil {
		return nil
	}
	lift := func(t history.TxnID) history.TxnID {
		if int(t) < len(orig) {
			return orig[t]
		}
		return t
	}
	out := *e
	out.vis = nil
	out.Cycle = make([]Edge, len(e.Cycle))
	for i, edge := range e.Cycle {
		edge.From, edge.To, edge.Via = lift(edge.From), lift(edge.To), lift(edge.Via)
		fillEdgeOps(h, &edge)
		out.Cycle[i] = edge
	}
	if e.levels != nil {
		out.levels = make(map[history.TxnID]history.Level, len(e.levels))
		for t, l := range e.levels {
			out.levels[lift(t)] = l
		}
	}
	if e.Structural != nil {
		s := *e.Structural
		s.Txn, s.Writer = lift(s.Txn), lift(s.Writer)
		out.Structural = &s
	}
	return &out
}
