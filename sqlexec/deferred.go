package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// Deferred foreign keys: a DEFERRABLE constraint in deferred mode
// (INITIALLY DEFERRED, or SET CONSTRAINTS ... DEFERRED) is not checked when
// a row changes but when the transaction commits, or when SET CONSTRAINTS
// ... IMMEDIATE makes it immediate again. Each change that would have been
// checked queues the referenced key; at the check, a key whose parent row
// exists passes, and one whose parent is missing fails (23503) if a child
// row still references it: rows inserted and deleted again in the
// transaction, or a parent deleted and inserted again, pass, as in
// PostgreSQL. Only NO ACTION is deferred: RESTRICT and the referential
// actions (CASCADE, SET NULL, SET DEFAULT) run at once.

// constraintKey identifies a foreign key: its table and name.
type constraintKey struct {
	table uint32
	name  string
}

// deferredFK is a foreign key check waiting for the transaction's end.
type deferredFK struct {
	con constraintKey
	// vals is the referenced key, in the parent's column types.
	vals []any
	// child says a referencing row changed (else a referenced one).
	child bool
}

// deferredState is a transaction's SET CONSTRAINTS modes and its queued
// checks.
type deferredState struct {
	// all is the mode SET CONSTRAINTS ALL chose (nil for none); modes
	// those set by name since, true meaning deferred.
	all     *bool
	modes   map[constraintKey]bool
	pending []deferredFK
	// uniques are the deferred unique constraints' checks
	// (deferred_unique.go).
	uniques []uniqueCheck
	// triggers are the deferred constraint triggers' events
	// (triggers_constraint.go).
	triggers []deferredTrigger
}

// mark returns a copy for a savepoint.
func (d deferredState) mark() deferredState {
	m := deferredState{all: d.all, pending: d.pending[:len(d.pending):len(d.pending)], uniques: d.uniques[:len(d.uniques):len(d.uniques)],
		triggers: d.triggers[:len(d.triggers):len(d.triggers)]}
	if d.modes != nil {
		m.modes = make(map[constraintKey]bool, len(d.modes))
		for k, v := range d.modes {
			m.modes[k] = v
		}
	}
	return m
}

// fkDeferred reports whether the session's transaction defers con, the
// foreign key fk.
func (s *Session) fkDeferred(con constraintKey, fk *fkDesc) bool {
	return s.constraintKeyDeferred(con, fk.deferrable, fk.initiallyDeferred)
}

// deferFK queues a check of foreign key con for the parent key vals.
func (s *Session) deferFK(con constraintKey, vals []any, childSide bool) {
	s.txn.deferred.pending = append(s.txn.deferred.pending, deferredFK{con: con, vals: vals, child: childSide})
}

// fkChecksPending reports whether the transaction has deferred checks of
// foreign key con queued, and whether one is of the referencing side (a
// row of con's table changed; else a referenced row).
func (s *Session) fkChecksPending(con constraintKey) (pending, childSide bool) {
	if s.txn == nil {
		return false, false
	}
	for _, p := range s.txn.deferred.pending {
		if p.con == con {
			pending, childSide = true, childSide || p.child
		}
	}
	return pending, childSide
}

// runDeferred runs the queued checks that only (nil for all) selects and
// forgets them; the first violation is the error.
func (s *Session) runDeferred(kv *isolation.Txn, only func(constraintKey) bool) error {
	if err := s.fireDeferredTriggers(kv, only); err != nil {
		return err
	}
	d := &s.txn.deferred
	var keep []deferredFK
	var todo []deferredFK
	for _, p := range d.pending {
		if only == nil || only(p.con) {
			todo = append(todo, p)
		} else {
			keep = append(keep, p)
		}
	}
	d.pending = keep
	var keepUniques, uniques []uniqueCheck
	for _, c := range d.uniques {
		if only == nil || only(c.con) {
			uniques = append(uniques, c)
		} else {
			keepUniques = append(keepUniques, c)
		}
	}
	d.uniques = keepUniques
	if err := s.runUniqueChecks(kv, uniques); err != nil {
		return err
	}
	return s.runFKChecks(kv, todo, "-- deferred foreign key checks")
}

// checkStatementFKs runs the foreign-key checks queued since the
// statement's first from (the whole statement's at 0), as PostgreSQL's
// NO ACTION triggers run when a statement ends: what the statement did
// after the change that queued a check counts.
func (s *Session) checkStatementFKs(kv *isolation.Txn, from int) error {
	if s.txn == nil || len(s.txn.stmtFKs) <= from {
		return nil
	}
	todo := s.txn.stmtFKs[from:]
	s.txn.stmtFKs = s.txn.stmtFKs[:from:from]
	return s.runFKChecks(kv, todo, "-- end-of-statement foreign key checks")
}

// runFKChecks runs the foreign-key checks todo as one event of the store,
// named label in the history; the first violation is the error.
func (s *Session) runFKChecks(kv *isolation.Txn, todo []deferredFK, label string) error {
	if len(todo) == 0 {
		return nil
	}
	cat, _ := s.catalog()
	b := &binder{s: s, cat: cat}
	x := &execCtx{ctx: bgctx, s: s, txn: kv, caches: &stmtCaches{}}
	x.env = s.newEnv()
	kv.Statement(history.Statement{SQL: label})
	done := map[string]bool{}
	for _, p := range todo {
		child := cat.tables[p.con.table]
		if child == nil {
			continue // dropped since
		}
		fk := foreignKeyNamed(child, p.con.name)
		if fk == nil {
			continue
		}
		seen := p.con.name + "\x00" + string(encodeVals(cat.tables[fk.refTable], fk.refCols, p.vals))
		if done[seen] {
			continue
		}
		done[seen] = true
		if err := b.checkDeferred(x, child, fk, p); err != nil {
			return err
		}
	}
	return nil
}

// encodeVals encodes a key of t's cols for de-duplication.
func encodeVals(t *tableDesc, cols []int, vals []any) []byte {
	if t == nil {
		return nil
	}
	k, _ := encodeKey(nil, t, cols, keyRow(t, cols, vals))
	return k
}

// checkDeferred checks one queued key: its parent exists, or no row of
// child references it.
func (b *binder) checkDeferred(x *execCtx, child *tableDesc, fk *fkDesc, p deferredFK) error {
	fc, err := b.fkCheckFor(child, fk)
	if err != nil {
		return err
	}
	found, err := fc.parentExists(x, p.vals)
	if err != nil || found {
		return err
	}
	ref := newFKRef(b.cat, child, fk)
	children, err := findChildren(x, ref, fc.parent, p.vals)
	if err != nil || len(children) == 0 {
		return err
	}
	if p.child {
		return fc.checkNow(x, child, p.vals)
	}
	return stillReferenced(fc.parent, ref.named, ref.namedFK, keyRow(fc.parent, fk.refCols, p.vals))
}

// setConstraintsPlan compiles SET CONSTRAINTS { ALL | name, ... } {
// DEFERRED | IMMEDIATE }. Making constraints immediate checks their queued
// changes at once.
func (b *binder) setConstraintsPlan(cs *pg_query.ConstraintsSetStmt) (*stmtPlan, error) {
	return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
		s := x.s
		var named map[constraintKey]bool
		if len(cs.Constraints) > 0 {
			cat, _ := s.catalog()
			var err error
			if named, err = s.namedConstraints(cat, cs.Constraints); err != nil {
				return nil, err
			}
		}
		if s.txn == nil || !s.txn.explicit {
			w := pgerror.New(pgerror.NoActiveSqlTransaction, "SET CONSTRAINTS can only be used in transaction blocks")
			w.Severity = "WARNING"
			return &Result{Tag: "SET CONSTRAINTS", Notices: []*pgerror.Error{w}}, nil
		}
		d := &s.txn.deferred
		if len(cs.Constraints) == 0 {
			v := cs.Deferred
			d.all, d.modes = &v, nil
		} else {
			if d.modes == nil {
				d.modes = map[constraintKey]bool{}
			}
			for k := range named {
				d.modes[k] = cs.Deferred
			}
		}
		if !cs.Deferred {
			kv, err := s.kvTxn(x.ctx)
			if err != nil {
				return nil, err
			}
			only := func(k constraintKey) bool { return named == nil || named[k] }
			if err := s.runDeferred(kv, only); err != nil {
				return nil, err
			}
		}
		return &Result{Tag: "SET CONSTRAINTS"}, nil
	}}, nil
}

// namedConstraints resolves SET CONSTRAINTS' names as PostgreSQL does: an
// unqualified name means the constraints of that name in the first schema
// of the search path that has any; 42704 for none, 55000 for one that is
// not deferrable.
func (s *Session) namedConstraints(cat *catalog, names []*pg_query.Node) (map[constraintKey]bool, error) {
	out := map[constraintKey]bool{}
	for _, n := range names {
		rv := n.GetRangeVar()
		path := s.searchPath()
		if rv.Schemaname != "" {
			path = []string{rv.Schemaname}
		}
		found := false
		for _, schema := range path {
			sc := cat.schemas[schema]
			if sc == nil {
				continue
			}
			for _, t := range sc.tables {
				for _, fk := range t.fks {
					if fk.name != rv.Relname {
						continue
					}
					if !fk.deferrable {
						return nil, pgerror.Newf(pgerror.WrongObjectType, "constraint \"%s\" is not deferrable", fk.name)
					}
					out[constraintKey{t.oid, fk.name}] = true
					found = true
				}
				other := t.pk != nil && t.pkName == rv.Relname
				for _, ix := range t.indexes {
					if ix.constraint && ix.name == rv.Relname && ix.deferrable {
						out[constraintKey{t.oid, ix.name}] = true
						for _, k := range childConstraints(cat, t, ix.name) {
							out[k] = true
						}
						found = true
						continue
					}
					other = other || ix.constraint && ix.name == rv.Relname
				}
				for _, ck := range t.checks {
					other = other || ck.name == rv.Relname
				}
				for _, tr := range t.triggers {
					if tr.constraint && tr.name == rv.Relname {
						if !tr.deferrable {
							return nil, pgerror.Newf(pgerror.WrongObjectType, "constraint \"%s\" is not deferrable", tr.name)
						}
						out[constraintKey{t.oid, tr.name}] = true
						found = true
					}
				}
				if other {
					return nil, pgerror.Newf(pgerror.WrongObjectType, "constraint \"%s\" is not deferrable", rv.Relname)
				}
			}
			if found {
				break
			}
		}
		if !found {
			name := rv.Relname
			if rv.Schemaname != "" {
				name = rv.Schemaname + "." + name
			}
			return nil, pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" does not exist", strings.TrimSpace(name))
		}
	}
	return out, nil
}
