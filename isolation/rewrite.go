package isolation

import (
	"cmp"
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// ALTER TABLE rewrites a table's rows (ADD or DROP COLUMN, ALTER COLUMN TYPE)
// in three steps, so that its function, which may run SQL (a default calling
// nextval or a function that reads another table), runs without the engine's
// lock: the rows are collected under the lock, their new values computed
// outside it, and put in place under the lock again. The caller's table lock
// (ACCESS EXCLUSIVE) keeps every other writer of the table out meanwhile.

// rowRef names a stored row value: the key it belongs to and its backing
// array. A row value is never changed in place, so the places that share
// one (a version and the base row of the write that replaced it) share its
// rewrite.
type rowRef struct {
	ks    *keyState
	first *any
	n     int
}

func refOf(ks *keyState, row []any) rowRef {
	r := rowRef{ks: ks, n: len(row)}
	if cap(row) > 0 {
		r.first = &row[:1][0]
	}
	return r
}

// RowRewrite is one stored row of a table being rewritten: its key, its
// value, and whether it is the key's latest state (the pending write of the
// transaction that holds the table, else the newest committed version).
type RowRewrite struct {
	Key    string
	Row    []any
	Latest bool
	ks     *keyState
}

// rewriteInputs lists the live rows of tb, each value once: for each key
// in key order its latest row first, then its older versions, then the
// pending transactions' earlier own writes and the base rows their writes
// replaced.
func (e *engine) rewriteInputs(tb *table) []RowRewrite {
	pending := map[*keyState]*write{}
	extra := map[*keyState][][]any{}
	for _, t := range e.activeByID() {
		for w := range t.tableWrites(tb.id) {
			pending[w.ks] = w
		}
		e.eachRowSite(t, tb, func(ks *keyState, row *[]any) { extra[ks] = append(extra[ks], *row) })
	}
	var in []RowRewrite
	seen := map[rowRef]bool{}
	add := func(ks *keyState, row []any, latest bool) {
		if r := refOf(ks, row); !seen[r] {
			seen[r] = true
			in = append(in, RowRewrite{Key: ks.key, Row: row, Latest: latest, ks: ks})
		}
	}
	tb.keys.Scan(func(_ string, ks *keyState) bool {
		if w := pending[ks]; w != nil {
			if !w.tomb {
				add(ks, w.row, true)
			}
		} else if v := ks.latest(); !v.tomb() {
			add(ks, v.row, true)
		}
		for _, v := range ks.versions() {
			if !v.tomb() {
				add(ks, v.row, false)
			}
		}
		for _, row := range extra[ks] {
			add(ks, row, false)
		}
		return true
	})
	return in
}

// activeByID returns the transactions in progress in the order they began,
// so that what is done for each of them happens in a reproducible order.
func (e *engine) activeByID() []*txn {
	ts := make([]*txn, 0, len(e.active))
	for t := range e.active {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b *txn) int { return cmp.Compare(a.id, b.id) })
	return ts
}

// eachRowSite calls visit with every place transaction t keeps a live row
// of tb: its pending writes, the earlier own writes a savepoint rollback may
// restore, and the versions its first writes replaced (a read at an earlier
// write mark sees them). A place may come more than once.
func (e *engine) eachRowSite(t *txn, tb *table, visit func(ks *keyState, row *[]any)) {
	sites := func(w *write) {
		if !w.tomb {
			visit(w.ks, &w.row)
		}
		if w.before == nil && w.baseLive {
			visit(w.ks, &w.baseRow)
		}
	}
	for w := range t.tableWrites(tb.id) {
		sites(w)
	}
	for u := range t.undo.from(0) {
		if u.ks.tab == tb.id && u.prev != nil {
			sites(u.prev)
		}
	}
}

// replaceRows gives every place a live row of tb is stored (its committed
// versions and the places eachRowSite names) the value repl has for its
// current value. It returns how many places held a value that neither
// repl nor done (the values already replaced) knows: those are left alone.
func (e *engine) replaceRows(tb *table, repl, done map[rowRef][]any) (unknown int) {
	replace := func(ks *keyState, row *[]any) {
		r := refOf(ks, *row)
		if nr, ok := repl[r]; ok {
			if nr == nil {
				nr = noColumns // a live row, never a tombstone
			}
			*row = nr
		} else if _, ok := done[r]; !ok {
			unknown++
		}
	}
	tb.keys.Scan(func(_ string, ks *keyState) bool {
		vs := ks.versions()
		for i := range vs {
			if !vs[i].tomb() {
				replace(ks, &vs[i].row)
			}
		}
		return true
	})
	for t := range e.active {
		e.eachRowSite(t, tb, replace)
	}
	e.refreshStatementReads(tb.id)
	return unknown
}

func (e *engine) rewriteRows(id TableID, f func(RowRewrite) []any) (restore func(), err error) {
	e.mu.Lock()
	tb, err := e.table(id)
	if err != nil {
		e.mu.Unlock()
		return nil, err
	}
	in := e.rewriteInputs(tb)
	e.mu.Unlock()

	next := make(map[rowRef][]any, len(in))
	prev := make(map[rowRef][]any, len(in))
	for _, r := range in {
		nr := f(r)
		if cap(nr) == 0 {
			nr = make([]any, 0, 1) // a row of its own, for the restore to find
		}
		next[refOf(r.ks, r.Row)] = nr
		prev[refOf(r.ks, nr)] = r.Row
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.table(id); err != nil {
		return nil, err
	}
	if e.replaceRows(tb, next, prev) > 0 {
		e.replaceRows(tb, prev, next)
		return nil, pgerror.New(pgerror.ObjectInUse, "cannot rewrite the rows of a table that was written while their new values were computed")
	}
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.replaceRows(tb, prev, next)
	}, nil
}
