package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// Constraint triggers (CREATE CONSTRAINT TRIGGER ... AFTER ... [DEFERRABLE]
// [INITIALLY DEFERRED | IMMEDIATE] FOR EACH ROW): AFTER ROW triggers that
// are also a constraint of their table (pg_constraint contype 't'). In
// immediate mode they fire at the end of the statement like any AFTER ROW
// trigger; deferred (INITIALLY DEFERRED, or SET CONSTRAINTS name | ALL
// DEFERRED) their events wait in the transaction's deferred state and
// fire at COMMIT, where an error aborts the transaction, or when SET
// CONSTRAINTS ... IMMEDIATE makes them immediate again.

// deferredTrigger is a constraint trigger's event waiting for the
// transaction's end: the trigger (its table and name) and the row.
type deferredTrigger struct {
	con      constraintKey
	event    int
	old, new []any
}

// constraintTrigger fills in CREATE CONSTRAINT TRIGGER's part of tr:
// INITIALLY DEFERRED implies DEFERRABLE, and FROM names a table.
func (d *ddl) constraintTrigger(tr *triggerDesc, ct *pg_query.CreateTrigStmt) error {
	tr.constraint = true
	tr.deferrable, tr.initDeferred = ct.Deferrable || ct.Initdeferred, ct.Initdeferred
	if rv := ct.Constrrel; rv != nil {
		from := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname)
		if from == nil {
			return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", rv.Relname)
		}
		tr.constrRel = from.oid
	}
	return nil
}

// triggerConstraints are the pg_constraint rows of t's constraint
// triggers.
func triggerConstraints(t *tableDesc) []constraintRow {
	var out []constraintRow
	for _, tr := range t.triggers {
		if !tr.constraint {
			continue
		}
		def := "TRIGGER"
		if tr.deferrable {
			def += " DEFERRABLE"
		}
		if tr.initDeferred {
			def += " INITIALLY DEFERRED"
		}
		out = append(out, constraintRow{name: tr.name, kind: 't', table: t, deferrable: tr.deferrable, deferred: tr.initDeferred, def: def})
	}
	return out
}

// refuseDropOfTriggerConstraint refuses ALTER TABLE ... DROP CONSTRAINT
// of a constraint trigger's constraint (2BP01, CASCADE or not), as
// PostgreSQL does: DROP TRIGGER drops both.
func refuseDropOfTriggerConstraint(t *tableDesc, name string) error {
	for _, tr := range t.triggers {
		if tr.constraint && tr.name == name {
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop constraint %s on table %s because trigger %s on table %s requires it",
				name, t.name, tr.name, t.name).WithHint("You can drop trigger %s on table %s instead.", tr.name, t.name)
		}
	}
	return nil
}

// triggerConstraintOID is pg_trigger.tgconstraint: the OID of the
// constraint a constraint trigger is, 0 for other triggers.
func triggerConstraintOID(c *catalog, t *tableDesc, tr *triggerDesc) uint32 {
	if !tr.constraint {
		return 0
	}
	for _, r := range tableConstraints(c, t) {
		if r.kind == 't' && r.name == tr.name {
			return r.oid
		}
	}
	return 0
}

// deferTrigger queues an AFTER ROW event of a constraint trigger that the
// transaction defers, and reports whether it did.
func (ts *triggerSet) deferTrigger(x *execCtx, f firing, old, new []any) bool {
	tr := f.tr
	if !tr.constraint || !x.s.constraintDeferred(ts.t, tr.name, tr.deferrable, tr.initDeferred) {
		return false
	}
	d := &x.s.txn.deferred
	d.triggers = append(d.triggers, deferredTrigger{con: constraintKey{ts.t.oid, tr.name}, event: ts.event, old: old, new: new})
	return true
}

// fireDeferredTriggers fires the queued events of the constraint triggers
// only selects (nil: all), in the order they were queued, and the events
// that firing them queues in turn; the first error stops them.
func (s *Session) fireDeferredTriggers(kv *isolation.Txn, only func(constraintKey) bool) error {
	recorded := false
	for {
		d := &s.txn.deferred
		var todo, keep []deferredTrigger
		for _, ev := range d.triggers {
			if only == nil || only(ev.con) {
				todo = append(todo, ev)
			} else {
				keep = append(keep, ev)
			}
		}
		if len(todo) == 0 {
			return nil
		}
		d.triggers = keep
		cat, _ := s.catalog()
		x := &execCtx{ctx: bgctx, s: s, txn: kv, caches: &stmtCaches{}}
		x.env = s.newEnv()
		if !recorded {
			// The trigger bodies' statements are named after this event
			// (runRoutineStatement), not the last client statement.
			prev := s.stmt
			s.stmt = history.Statement{SQL: "-- deferred constraint triggers"}
			defer func() { s.stmt = prev }()
			kv.Statement(s.stmt)
			recorded = true
		}
		for _, ev := range todo {
			t := cat.tables[ev.con.table]
			if t == nil {
				continue // dropped since
			}
			for _, tr := range t.triggers {
				if tr.name != ev.con.name || !tr.constraint {
					continue
				}
				fn := cat.funcByOID(tr.fn)
				if fn == nil && !builtinTriggerFunc(tr.fn) {
					return pgerror.Newf(pgerror.UndefinedFunction, "function of trigger \"%s\" does not exist", tr.name)
				}
				ts := &triggerSet{t: t, event: ev.event}
				if _, err := ts.fire(x, firing{tr: tr, fn: fn}, "AFTER", "ROW", ev.old, ev.new); err != nil {
					return err
				}
			}
		}
	}
}
