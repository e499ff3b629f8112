package sqlexec

import (
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Row triggers of the tables below the one a statement names: the members
// an UPDATE or DELETE of an inheritance parent or partitioned table reaches
// (inherit.go) and the partitions an INSERT routes rows to
// (partition_route.go). As in PostgreSQL, each row fires the row triggers
// of the table it lives in, with OLD and NEW in that table's shape; the
// statement triggers fire on the named table only. An UPDATE that moves a
// row to another partition deletes it from its partition and inserts it
// into the new one, firing their DELETE and INSERT row triggers instead of
// the AFTER UPDATE ones. AFTER ROW triggers fire when the statement ends,
// in the order the rows were written, before the named table's AFTER
// STATEMENT triggers.

// rowTriggersOf returns the row triggers of event on t, without its
// statement triggers; nil when it has none.
func (b *binder) rowTriggersOf(t *tableDesc, event int, updated []int) (*triggerSet, error) {
	ts, err := b.triggersFor(t, event, updated)
	if err != nil || ts == nil {
		return nil, err
	}
	return rowPart(ts), nil
}

// rowPart is ts without its statement triggers; nil when no row trigger
// is left.
func rowPart(ts *triggerSet) *triggerSet {
	if ts == nil || len(ts.beforeRow)+len(ts.afterRow) == 0 {
		return nil
	}
	row := *ts
	row.beforeStmt, row.afterStmt, row.insteadRow = nil, nil, nil
	return &row
}

// memberTriggers returns the row triggers of event of each member of the
// target m, by member index; the target's own (the first) are those of
// own, the named table's. It is nil when the target has no member with
// row triggers, and the named table's triggers then fire as for a table
// without members.
func (b *binder) memberTriggers(m *modifyTarget, own *triggerSet, event int, updated []int) ([]*triggerSet, error) {
	ms := m.items[0].members
	if ms == nil {
		return nil, nil
	}
	sets := []*triggerSet{rowPart(own)}
	for _, mem := range ms[1:] {
		var cols []int
		for _, c := range updated {
			cols = append(cols, mem.col(c))
		}
		ts, err := b.rowTriggersOf(mem.t, event, cols)
		if err != nil {
			return nil, err
		}
		sets = append(sets, ts)
	}
	if !slices.ContainsFunc(sets[1:], func(ts *triggerSet) bool { return ts != nil }) {
		return nil, nil
	}
	if own != nil && slices.ContainsFunc(own.afterRow, func(f firing) bool { return f.tr.oldTable != "" || f.tr.newTable != "" }) {
		// Its own rows would fire it from the members' queue, with
		// transition tables of one row.
		return nil, pgerror.Unsupported("row triggers with transition tables on a table whose inheritance children have row triggers")
	}
	return sets, nil
}

// rowBefore fires the BEFORE ROW triggers of ts (none for nil) for a row
// write: the row to write, nil when a trigger skipped it.
func rowBefore(x *execCtx, ts *triggerSet, old, new []any) ([]any, error) {
	if ts == nil {
		if new == nil {
			return old, nil
		}
		return new, nil
	}
	return (&triggerRun{triggerSet: ts}).before(x, old, new)
}

// rowQueue holds a statement's AFTER ROW events on several tables in the
// order the rows were written.
type rowQueue struct {
	events []rowEvent
}

type rowEvent struct {
	ts       *triggerSet
	old, new []any
}

// add queues the AFTER ROW triggers of ts (none for nil) for a row
// written.
func (q *rowQueue) add(ts *triggerSet, old, new []any) {
	if ts != nil && len(ts.afterRow) > 0 {
		q.events = append(q.events, rowEvent{ts: ts, old: old, new: new})
	}
}

// fire fires the queued events, first queued first.
func (q *rowQueue) fire(x *execCtx) error {
	events := q.events
	q.events = nil
	for _, ev := range events {
		run := &triggerRun{triggerSet: ev.ts, queued: [][2][]any{{ev.old, ev.new}}}
		if err := run.afterStatement(x); err != nil {
			return err
		}
	}
	return nil
}

// hasBeforeRow reports whether a row of the target's member fires BEFORE
// ROW triggers: its member's (mtrg) when the target has members with
// triggers, the named table's (trg) for its own rows otherwise.
func (trg *triggerRun) hasBeforeRow(mtrg []*triggerSet, member int) bool {
	switch {
	case mtrg != nil:
		return mtrg[member] != nil && len(mtrg[member].beforeRow) > 0
	case member == 0:
		return trg != nil && len(trg.beforeRow) > 0
	}
	return false
}

// memberDeleteBefore fires the BEFORE DELETE row triggers for the matched
// row mt: the named table's (trg) for its own rows, its member's when the
// target has members with triggers (mtrg); nil when a trigger skipped it.
func memberDeleteBefore(x *execCtx, trg *triggerRun, mtrg []*triggerSet, mt match) ([]any, error) {
	switch {
	case mtrg != nil:
		return rowBefore(x, mtrg[mt.member], mt.phys, nil)
	case mt.member == 0:
		return trg.before(x, mt.row, nil)
	}
	return mt.phys, nil
}

// set is the trigger set of the run, nil for a nil run.
func (ts *triggerRun) set() *triggerSet {
	if ts == nil {
		return nil
	}
	return ts.triggerSet
}
