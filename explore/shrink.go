package explore

import (
	"fmt"

	"github.com/fickle-db/fickle/history"
)

// ShrinkStats says how a failure was reduced: from how many stale reads to
// how many, in how many runs.
type ShrinkStats struct {
	From int `json:"from"`
	To   int `json:"to"`
	Runs int `json:"runs"`
	// Complete is false when the run budget ran out first: the result
	// still fails but may not be minimal.
	Complete bool `json:"complete"`
}

// staleChoice is one stale read of a recorded history: op Op of Txn.
type staleChoice struct {
	txn history.TxnID
	op  int
}

// Shrink looks for a smallest set of the failing run's stale reads that
// still makes the command fail when every other read is served the latest
// version: delta debugging (ddmin) over the stale reads, each candidate
// replayed in the recorded order of steps with the same seed. It returns
// the last failing run (the shrunk failure, whose history and schedule
// replay it) and the statistics; budget bounds the runs it spends.
func Shrink(opts Options, failing *Run, budget int) (*Run, *ShrinkStats, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	rec, err := LoadRecording(failing.History)
	if err != nil {
		return nil, nil, err
	}
	if o.Server, err = rec.ServerConfig(o.Server); err != nil {
		return nil, nil, err
	}
	o.Server = latestServer(o.Server)
	var all []staleChoice
	for i := 1; i < len(rec.History.Txns); i++ {
		t := &rec.History.Txns[i]
		for _, s := range t.Stale {
			all = append(all, staleChoice{t.ID, int(s.Op)})
		}
	}
	stats := &ShrinkStats{From: len(all), To: len(all), Complete: true}
	if len(all) == 0 {
		return failing, stats, nil
	}
	best := failing
	try := func(set []staleChoice) bool {
		if stats.Runs >= budget {
			stats.Complete = false
			return false
		}
		stats.Runs++
		kept := make(map[staleChoice]bool, len(set))
		for _, c := range set {
			kept[c] = true
		}
		replay := withReadsKept(rec.History, func(t history.TxnID, op int) bool { return kept[staleChoice{t, op}] })
		path := runFileName(o.Dir, failing.Number, fmt.Sprintf("-shrink-%d", stats.Runs))
		r := execute(o, runSpec{number: failing.Number, seed: failing.Seed, historyPath: path, replay: replay, script: rec.Schedule})
		if r.ServerError == "" && r.Failed() && sameFailure(failing, r) {
			if best != failing {
				best.removeFiles()
			}
			best = r
			return true
		}
		r.removeFiles()
		return false
	}
	minimal := ddmin(all, try)
	stats.To = len(minimal)
	if !stats.Complete && best == failing {
		stats.To = len(all)
	}
	return best, stats, nil
}

// sameFailure reports whether a candidate fails the way the original did:
// the command failing (or timing out), or the history violating the levels.
func sameFailure(orig, r *Run) bool {
	return (orig.Violation != nil) == (r.Violation != nil)
}

// ddmin is Zeller and Hildebrandt's delta debugging minimization: it
// returns a subset of items for which fails holds and from which removing
// any one chunk at the finest granularity tried makes it pass. It tries the
// empty set first: a failure that needs no stale read at all.
func ddmin[T any](items []T, fails func([]T) bool) []T {
	if fails(nil) {
		return nil
	}
	n := 2
	for len(items) >= 2 {
		chunks := split(items, n)
		reduced := false
		for _, c := range chunks {
			if fails(c) {
				items, n, reduced = c, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range chunks {
				rest := complement(chunks, i)
				if fails(rest) {
					items, n, reduced = rest, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(items) {
				break
			}
			n = min(2*n, len(items))
		}
	}
	return items
}

// split cuts items into n chunks of nearly equal size.
func split[T any](items []T, n int) [][]T {
	var out [][]T
	start := 0
	for i := range n {
		end := start + (len(items)-start)/(n-i)
		if end > start {
			out = append(out, items[start:end:end])
		}
		start = end
	}
	return out
}

// complement concatenates every chunk but the i-th.
func complement[T any](chunks [][]T, i int) []T {
	var out []T
	for j, c := range chunks {
		if j != i {
			out = append(out, c...)
		}
	}
	return out
}
