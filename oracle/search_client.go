package oracle

import (
	"fmt"
	"slices"

	"github.com/fickle-db/fickle/history"
)

// ClientReads describes what a client history leaves out (paper 000, Def.
// 4): a predicate read that observed a row only through the rows it returned
// has no read op for the keys it inspected but did not return. Each such
// (statement, key) pair is Missing; Matches says whether a writer's version
// of the key satisfies the statement's predicate, so that the checker knows
// which writers the statement may have seen without returning the row.
type ClientReads struct {
	// Missing lists the keys each read statement may have inspected and
	// filtered out, without a read op in the history.
	Missing []MissingRead
	// Matches reports whether writer's version of key (Init's: the initial
	// row, or a tombstone, which matches nothing) satisfies the predicate of
	// statement event of reader. It must be deterministic.
	Matches func(reader history.TxnID, event uint32, key history.KeyID, writer history.TxnID) bool

	rows *rowMatcher // recorded client reads: whose row images Matches reads
	_    struct{}
}

// MissingRead is a key a read statement may have inspected without
// returning it.
type MissingRead struct {
	Txn   history.TxnID
	Event uint32 // the statement, as in Op.Event
	Key   history.KeyID
}

// CheckClient decides a client history by paper 000's Algorithm 3. It
// saturates the history as recorded; a missing pair is a conflict when some
// writer of the key that saturation does not place after the statement
// would have made the row match (the statement must then have seen a
// non-matching version, and which one matters); a pair no such writer
// matches needs no write-read edge at all. With no non-matching writer left
// for a conflict the history is inconsistent; otherwise every choice of a
// non-matching writer per conflict is tried with the search, exponential
// only in the number of conflicts. Verdicts and witness are as for Search.
func CheckClient(h *history.History, c ClientReads, opts Options) (Verdict, []history.TxnID, *Explanation) {
	if len(c.Missing) == 0 || c.Matches == nil {
		return Search(h, opts)
	}
	if err := h.Validate(); err != nil {
		return Unknown, nil, malformed(err)
	}
	levels := levelsFor(h, opts)
	ix := newTxnIndex(h, levels).withRC(opts.RC)
	g, ok := buildSearchGraph(ix, nil, opts.RealTime)
	if ok {
		ok = g.saturate()
	}
	if !ok {
		return Violation, nil, g.explain()
	}
	type conflict struct {
		m       MissingRead
		choices []history.TxnID
	}
	var conflicts []conflict
	for _, m := range c.Missing {
		if int(m.Txn) >= len(h.Txns) || !ix.get(m.Txn).live || int(m.Key) >= len(h.Keys) {
			continue
		}
		var zeros []history.TxnID
		ones := false
		for _, t := range append([]history.TxnID{history.Init}, g.writers[m.Key]...) {
			if t == m.Txn || g.reaches(g.readOf[m.Txn], g.commitOf[t]) {
				continue // t is certainly not visible to the statement
			}
			if c.Matches(m.Txn, m.Event, m.Key, t) {
				ones = true
			} else {
				zeros = append(zeros, t)
			}
		}
		switch {
		case !ones:
		case len(zeros) == 0:
			return Violation, nil, &Explanation{Level: levels[m.Txn], Anomaly: fmt.Sprintf(
				"%s filtered out %s, but every version it could have seen satisfies its predicate", txnLabel(h, m.Txn), h.Keys[m.Key])}
		default:
			conflicts = append(conflicts, conflict{m, zeros})
		}
	}
	choice := make([]int, len(conflicts))
	var steps int64
	unknown := false
	var last *Explanation
	for {
		ext := extendHistory(h, func(yield func(MissingRead, history.TxnID)) {
			for i, cf := range conflicts {
				yield(cf.m, cf.choices[choice[i]])
			}
		})
		o := opts
		if opts.MaxSteps > 0 {
			if o.MaxSteps = opts.MaxSteps - steps; o.MaxSteps <= 0 {
				return Unknown, nil, nil
			}
		}
		co, v, why, n := searchCommitOrder(ext, levels, o)
		steps += n + 1
		switch v {
		case Consistent:
			return Consistent, co, nil
		case Unknown:
			unknown = true
		default:
			last = why
		}
		i := 0
		for ; i < len(choice); i++ {
			if choice[i]++; choice[i] < len(conflicts[i].choices) {
				break
			}
			choice[i] = 0
		}
		if i == len(choice) {
			break
		}
	}
	if unknown {
		return Unknown, nil, nil
	}
	return Violation, nil, last
}

// extendHistory returns a copy of h with a read op for every (missing pair,
// writer) given, placed with the ops of its statement. h is not modified.
func extendHistory(h *history.History, added func(yield func(MissingRead, history.TxnID))) *history.History {
	ext := *h
	ext.Txns = slices.Clone(h.Txns)
	copied := map[history.TxnID]bool{}
	added(func(m MissingRead, w history.TxnID) {
		t := &ext.Txns[m.Txn]
		if !copied[m.Txn] {
			t.Ops = slices.Clone(t.Ops)
			t.ClearRows()
			copied[m.Txn] = true
		}
		at := len(t.Ops)
		for i, op := range t.Ops {
			if op.Event > m.Event {
				at = i
				break
			}
		}
		t.Ops = slices.Insert(t.Ops, at, history.Op{Kind: history.OpRead, Key: m.Key, Event: m.Event, Writer: w})
	})
	return &ext
}
