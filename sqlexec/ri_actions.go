package sqlexec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// PostgreSQL runs a foreign key's ON DELETE and ON UPDATE actions
// (CASCADE, SET NULL, SET DEFAULT) as AFTER ROW triggers of the referenced
// table, named RI_ConstraintTrigger_a_<oid>: when the statement ends, for
// each row it deleted or whose key it changed, in the row's turn and in
// name order among the table's other AFTER ROW triggers. Each action is a
// query on the referencing table (DELETE FROM child WHERE fk = $1, or an
// UPDATE) run at the same query level: it fires the child's BEFORE ROW
// triggers as it writes, its BEFORE STATEMENT triggers once a level, and
// adds the child's AFTER ROW events, and its AFTER STATEMENT event (moved
// to the end each time), to the end of the level's event list, which
// fires on until it is empty. So a statement first writes all its own
// rows (DELETE FROM tree deletes every row it matched, then cascades),
// and the triggers of every table an action reaches fire as PostgreSQL's.
//
// fickle keeps that list for the statements whose target is a table that
// is neither partitioned nor a partition, and for the plain tables the
// actions reach (afterLevel); the writes of other paths (partition
// members, MERGE, ON CONFLICT DO UPDATE) apply the actions at once and
// refuse where a trigger would see the difference (actionFiresTriggers).

// inlineActionsWhy says where fickle applies actions inside the write.
const inlineActionsWhy = "from a partitioned table, an inheritance parent, MERGE or INSERT ... ON CONFLICT, or on a partition"

// afterLevel is one query level's list of AFTER events that referential
// actions take part in: the statement's own trigger runs that carry
// actions, and the runs of the tables the actions write.
type afterLevel struct {
	events []levelEvent
	// runs are the level's trigger runs by table and event, which fire
	// BEFORE STATEMENT triggers once and keep one AFTER STATEMENT event.
	runs map[runKey]*triggerRun
}

type runKey struct {
	table uint32
	event int
}

// levelEvent is a run's AFTER ROW triggers for one written row, or (stmt)
// its AFTER STATEMENT triggers; done once fired or replaced by a later
// statement event of the run.
type levelEvent struct {
	run      *triggerRun
	old, new []any
	stmt     bool
	done     bool
}

// afterEvents returns the current query level's event list, started on
// first use.
func (s *Session) afterEvents() *afterLevel {
	if s.queryLevel == nil {
		s.queryLevel = &afterLevel{runs: map[runKey]*triggerRun{}}
	}
	return s.queryLevel
}

// queueStatement queues run's AFTER STATEMENT event at the end of the
// list, in place of one not yet fired.
func (l *afterLevel) queueStatement(run *triggerRun) {
	for i := range l.events {
		if ev := &l.events[i]; ev.stmt && ev.run == run {
			ev.done = true
		}
	}
	l.events = append(l.events, levelEvent{run: run, stmt: true})
}

// fireAfterLevel fires the current query level's events in order, the
// ones they add included, and ends the level.
func (s *Session) fireAfterLevel(x *execCtx) error {
	l := s.queryLevel
	if l == nil {
		return nil
	}
	defer func() { s.queryLevel = nil }()
	for i := 0; i < len(l.events); i++ {
		ev := l.events[i]
		if ev.done {
			continue
		}
		l.events[i].done = true
		var err error
		if ev.stmt {
			err = ev.run.fireAfterStatement(x)
		} else {
			err = ev.run.fireAfterRow(x, ev.old, ev.new)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// queuesActions reports whether t's writes leave the foreign keys'
// actions to trigger runs at the end of the statement (withActions): t is
// neither partitioned nor a partition.
func queuesActions(t *tableDesc) bool {
	return t.part == nil && t.bound == nil
}

// actionOf is the action of ref's key for a delete (newRow nil) or a key
// update of the referenced row, and its trigger's index (0 and 1 are the
// ON DELETE and ON UPDATE triggers).
func (ref *fkRef2) actionOf(deleting bool) (action byte, k int) {
	if deleting {
		return ref.fk.onDelete, riActionDelete
	}
	return ref.fk.onUpdate, riActionUpdate
}

// writes reports whether action writes the referencing rows.
func actionWrites(action byte) bool {
	return action == fkCascade || action == fkSetNull || action == fkDefault
}

// withActions adds to ts, the triggers of event (tgDelete or tgUpdate) on
// w's table for a statement, the actions of the foreign keys that
// reference the table as AFTER ROW firings in their triggers' name order,
// and marks w to leave those actions to them. It returns ts unchanged for
// a table whose writes apply actions at once (queuesActions) or that no
// action references.
func (w *writer) withActions(ts *triggerSet, event int, updated []int) *triggerSet {
	if !queuesActions(w.t) || event != tgDelete && event != tgUpdate {
		return ts
	}
	var actions []firing
	for _, ref := range w.refs {
		if action, k := ref.actionOf(event == tgDelete); actionWrites(action) {
			actions = append(actions, firing{ri: ref, riWriter: w, name: riTriggerName(w.b.cat, ref, k)})
		}
	}
	if len(actions) == 0 {
		return ts
	}
	if ts == nil {
		ts = &triggerSet{t: w.t, event: event, updated: updated}
	} else {
		c := *ts
		ts = &c
	}
	ts.afterRow = append(slices.Clone(ts.afterRow), actions...)
	slices.SortStableFunc(ts.afterRow, func(a, b firing) int { return strings.Compare(a.firingName(), b.firingName()) })
	ts.inLevel = true
	w.queueActions = true
	return ts
}

// riTriggerName is the name of the action trigger k of ref's key, as
// pg_trigger lists it (ri_triggers.go).
func riTriggerName(c *catalog, ref *fkRef2, k int) string {
	for _, r := range tableConstraints(c, ref.child) {
		if r.kind == 'f' && r.name == ref.fk.name {
			return fmt.Sprintf("RI_ConstraintTrigger_a_%d", riTriggerOID(r.oid, k))
		}
	}
	return "RI_ConstraintTrigger_a_"
}

// actionRun returns the run of the child's triggers at the current query
// level through which the action of ref writes the child's rows: event
// is tgDelete or tgUpdate of the columns cols. The first action on a
// table and event at the level starts the run, firing its BEFORE
// STATEMENT triggers.
func (ref *fkRef2) actionRun(x *execCtx, event int, cols []int) (*triggerRun, error) {
	cw := ref.cw
	cw.queueActions = true
	l := x.s.afterEvents()
	key := runKey{ref.child.oid, event}
	if run := l.runs[key]; run != nil {
		// An action's rows join the transition tables of the level's
		// run, as PostgreSQL's do, while no trigger has read them.
		if run.transition != nil {
			return nil, actionTriggersRefused(ref.child, "that read transition tables")
		}
		if event == tgUpdate && !slices.Equal(run.updated, cols) && slices.ContainsFunc(ref.child.triggers, func(tr *triggerDesc) bool { return len(tr.cols) > 0 }) {
			return nil, actionTriggersRefused(ref.child, "for columns another action of the statement does not update")
		}
		return run, nil
	}
	ts, err := cw.b.triggersFor(ref.child, event, cols)
	if err != nil {
		return nil, err
	}
	ts = cw.withActions(ts, event, cols)
	if ts == nil {
		ts = &triggerSet{t: ref.child, event: event, updated: cols}
	}
	ts.inLevel = true
	return ts.start(x)
}

// actionTriggersRefused is the 0A000 of a referential action that would
// fire triggers of child that fickle cannot fire as PostgreSQL does; why
// says which.
func actionTriggersRefused(child *tableDesc, why string) error {
	return pgerror.Unsupported(fmt.Sprintf("a foreign key action (CASCADE, SET NULL, SET DEFAULT) firing triggers of table \"%s\" %s", child.name, why))
}
