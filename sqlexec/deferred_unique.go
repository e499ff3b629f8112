package sqlexec

import (
	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// Deferrable UNIQUE constraints. The store leaves their indexes unchecked
// at each write (isolation.IndexSpec.Deferred); every row written to such
// a table queues a check of its index key instead. As in PostgreSQL, an
// immediate DEFERRABLE constraint is checked when the statement ends (so
// UPDATE t SET i = i + 1 passes where a NOT DEFERRABLE one may fail on a
// row in between), and a deferred one (INITIALLY DEFERRED, SET CONSTRAINTS
// ... DEFERRED) when the transaction commits or SET CONSTRAINTS ...
// IMMEDIATE makes it immediate again. A check passes when the row is gone
// or no other live row shares its key.

// uniqueCheck is a queued check of one written row against one deferrable
// unique index.
type uniqueCheck struct {
	con   constraintKey
	index isolation.IndexID
	// key is the row's store key; row the version written, for the
	// error's detail.
	key []byte
	row []any
}

// constraintDeferred reports whether the session's transaction defers the
// constraint name of table t, given its DEFERRABLE and INITIALLY DEFERRED.
func (s *Session) constraintDeferred(t *tableDesc, name string, deferrable, initially bool) bool {
	return s.constraintKeyDeferred(constraintKey{t.oid, name}, deferrable, initially)
}

// constraintKeyDeferred is constraintDeferred of the constraint con.
func (s *Session) constraintKeyDeferred(con constraintKey, deferrable, initially bool) bool {
	if !deferrable || s.txn == nil {
		return false
	}
	d := &s.txn.deferred
	if v, ok := d.modes[con]; ok {
		return v
	}
	if d.all != nil {
		return *d.all
	}
	return initially
}

// queueUniqueChecks queues the checks of row, written at key of t, against
// t's deferrable unique constraints: for the statement's end or, deferred,
// for the transaction's.
func (s *Session) queueUniqueChecks(t *tableDesc, key []byte, row []any) {
	if s.txn == nil {
		return
	}
	for _, ix := range t.indexes {
		if !ix.deferrable {
			continue
		}
		c := uniqueCheck{con: constraintKey{t.oid, ix.name}, index: ix.id, key: append([]byte(nil), key...), row: row}
		if s.constraintDeferred(t, ix.name, true, ix.initiallyDeferred) {
			s.txn.deferred.uniques = append(s.txn.deferred.uniques, c)
		} else {
			s.txn.stmtUniques = append(s.txn.stmtUniques, c)
		}
	}
}

// checkStatementUniques runs the checks the statement queued for its end.
func (s *Session) checkStatementUniques(kv *isolation.Txn) error {
	if s.txn == nil || len(s.txn.stmtUniques) == 0 {
		return nil
	}
	todo := s.txn.stmtUniques
	s.txn.stmtUniques = nil
	return s.runUniqueChecks(kv, todo)
}

// runUniqueChecks runs checks; the first violation is the error.
func (s *Session) runUniqueChecks(kv *isolation.Txn, todo []uniqueCheck) error {
	if len(todo) == 0 {
		return nil
	}
	cat, _ := s.catalog()
	kv.Statement(history.Statement{SQL: "-- deferred unique checks"})
	for _, c := range todo {
		t := cat.tables[c.con.table]
		if t == nil {
			continue // dropped since
		}
		if err := kv.CheckUnique(bgctx, c.index, c.key); err != nil {
			return (&writer{t: t, b: &binder{s: s, cat: cat}}).uniqueError(err, c.row)
		}
	}
	return nil
}
