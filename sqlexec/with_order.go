package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// PostgreSQL runs the rest of a statement with data-modifying WITH queries
// first; a WITH query runs when a part first reads it, a row at a time as
// that part pulls its rows, and the ones no part read to completion run
// when the rest is done, the last first (ExecPostprocessPlan); the AFTER
// triggers of every part fire at the end, in the order their events were
// queued. fickle runs the rest first and the WITH queries nobody read
// after it, the last first, with one list of AFTER events, and a WITH
// query whole where a part first reads it. So the order of side effects
// is PostgreSQL's except between a WITH query that another part reads and
// the rest, whose rows PostgreSQL interleaves (and which part it pulls
// first depends on its plan): a statement where both sides have effects
// whose order shows (triggers, volatile routines, a sequence both draw
// from) is refused (checkInterleavedEffects).

// partEffects are what a part of a statement does beside computing rows
// that another part could tell the order of: opaque for triggers and
// volatile routines, which may do anything (raise notices, write tables,
// draw from sequences), seqs for the sequences it draws values from.
type partEffects struct {
	opaque bool
	seqs   map[uint32]bool
	// afterStmt says the part has AFTER STATEMENT triggers, whose event
	// PostgreSQL queues when its last row is read; afterRow that it
	// queues AFTER ROW events.
	afterStmt, afterRow bool
}

// interleaves reports whether the order of e's effects, a WITH query's,
// and o's, the rest of its statement's, shows.
func (e *partEffects) interleaves(o *partEffects) bool {
	if e.opaque && (o.opaque || len(o.seqs) > 0) || o.opaque && len(e.seqs) > 0 || e.afterStmt && o.afterRow {
		return true
	}
	for s := range e.seqs {
		if o.seqs[s] {
			return true
		}
	}
	return false
}

// harmlessVolatile are the volatile built-in functions (and uuid-ossp's,
// which ORMs use as column defaults) whose calls no other part can tell
// the order of.
var harmlessVolatile = []string{"random", "gen_random_uuid", "clock_timestamp", "timeofday", "pg_sleep",
	"uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v4"}

// addCalls adds the effects of the function calls in n, leaving out the
// subtrees skip reports.
func (b *binder) addCalls(e *partEffects, n *pg_query.Node, skip func(*pg_query.Node) bool) {
	walk(n, func(c *pg_query.Node) bool {
		if skip != nil && skip(c) {
			return false
		}
		fc := c.GetFuncCall()
		if fc == nil {
			return true
		}
		var schema, name string
		for _, p := range fc.Funcname {
			schema, name = name, p.GetString_().GetSval()
		}
		switch {
		case name == "nextval" && len(fc.Args) == 1:
			if seq := b.constSequence(fc.Args[0]); seq != 0 {
				if e.seqs == nil {
					e.seqs = map[uint32]bool{}
				}
				e.seqs[seq] = true
				return true
			}
			e.opaque = true
		case slices.Contains(harmlessVolatile, name):
		case b.volatileName(schema, name):
			e.opaque = true
		}
		return true
	})
}

// constSequence is the OID of the sequence a nextval argument names as a
// constant ('s', 's'::regclass), 0 for any other argument.
func (b *binder) constSequence(arg *pg_query.Node) uint32 {
	if tc := arg.GetTypeCast(); tc != nil {
		arg = tc.Arg
	}
	s := arg.GetAConst().GetSval()
	if s == nil {
		return 0
	}
	parts, err := parseQualifiedName(s.Sval)
	var schema, name string
	switch {
	case err != nil:
		return 0
	case len(parts) == 1:
		name = parts[0]
	case len(parts) == 2:
		schema, name = parts[0], parts[1]
	default:
		return 0
	}
	if q := b.s.lookupSequence(b.cat, schema, name); q != nil {
		return q.oid
	}
	return 0
}

// volatileName reports whether a function called name (in schema, "" for
// any) may be volatile: a built-in one of PostgreSQL's volatile system
// functions, or a user-defined one declared VOLATILE.
func (b *binder) volatileName(schema, name string) bool {
	for _, f := range sysFuncs[name] {
		if f.volatile {
			return true
		}
	}
	for sn, sc := range b.cat.schemas {
		if schema != "" && sn != schema {
			continue
		}
		for _, f := range sc.funcs[name] {
			if f.volatility == 'v' {
				return true
			}
		}
	}
	return false
}

// addWrites adds the effects of writing t (and its members) for the
// trigger events in events: its triggers and the actions of the foreign
// keys referencing it fire, and an insert draws its columns' defaults.
// Statement triggers count as opaque only when whole is set: a WITH
// query's BEFORE STATEMENT triggers fire when it is first read and the
// rest's around all its rows, as in PostgreSQL.
func (b *binder) addWrites(e *partEffects, t *tableDesc, events int, whole bool) {
	for _, m := range append([]*tableDesc{t}, b.cat.descendants(t)...) {
		for _, tr := range m.triggers {
			switch {
			case tr.tgtype&events == 0:
			case whole || tr.tgtype&(tgRow|tgInstead) != 0:
				e.opaque = true
				e.afterRow = e.afterRow || tr.tgtype&(tgRow|tgBefore|tgInstead) == tgRow
			case tr.tgtype&tgBefore == 0:
				e.afterStmt = true
			}
		}
		if events&(tgUpdate|tgDelete) != 0 && len(b.cat.referencing(m.oid)) > 0 {
			e.opaque, e.afterRow = true, true
		}
		if events&tgInsert == 0 {
			continue
		}
		for _, col := range m.cols {
			if col.def != nil {
				b.addCalls(e, col.def, nil)
			}
			if col.identity != 0 {
				for _, q := range b.cat.ownedSequences(m) {
					if _, attnum := q.owner(); attnum == col.attnum {
						if e.seqs == nil {
							e.seqs = map[uint32]bool{}
						}
						e.seqs[q.oid] = true
					}
				}
			}
		}
	}
}

// writeEvents are the trigger events a part, stmt, fires on its target.
func writeEvents(stmt *pg_query.Node) int {
	switch v := stmt.GetNode().(type) {
	case *pg_query.Node_InsertStmt:
		if v.InsertStmt.OnConflictClause.GetAction() == pg_query.OnConflictAction_ONCONFLICT_UPDATE {
			return tgInsert | tgUpdate
		}
		return tgInsert
	case *pg_query.Node_UpdateStmt:
		return tgUpdate
	case *pg_query.Node_DeleteStmt:
		return tgDelete
	case *pg_query.Node_MergeStmt:
		return tgInsert | tgUpdate | tgDelete
	}
	return 0
}

// checkInterleavedEffects refuses (0A000) a statement where a part reads
// a data-modifying WITH query m and both m and the rest of the statement
// have effects whose order shows: PostgreSQL interleaves them row by row,
// where fickle runs m whole when it is first read.
func (b *binder) checkInterleavedEffects(stmt *pg_query.Node, mods []*dataModifyingCTE) error {
	for _, m := range mods {
		name := ""
		walk(stmt, func(n *pg_query.Node) bool {
			if c := n.GetCommonTableExpr(); c != nil && c.Ctequery == m.query {
				name = c.Ctename
			}
			return name == ""
		})
		read := false
		walk(stmt, func(n *pg_query.Node) bool {
			if n == m.query {
				return false
			}
			if rv := n.GetRangeVar(); rv != nil && rv.Schemaname == "" && rv.Relname == name {
				read = true
			}
			return !read
		})
		if !read {
			continue
		}
		own, rest := &partEffects{}, &partEffects{}
		b.addCalls(own, m.query, nil)
		b.addWrites(own, m.target, writeEvents(m.query), false)
		b.addCalls(rest, stmt, func(n *pg_query.Node) bool { return n == m.query })
		for _, o := range mods {
			if o != m {
				b.addWrites(rest, o.target, writeEvents(o.query), true)
			}
		}
		if rv := mainTarget(stmt); rv != nil {
			if t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname); t != nil {
				b.addWrites(rest, t, writeEvents(stmt), false)
			} else {
				rest.opaque = true // a view's INSTEAD OF triggers or rules
			}
		}
		if own.interleaves(rest) {
			return pgerror.Unsupported("a data-modifying WITH query that another part of the statement reads, where both fire triggers, call volatile functions or draw from one sequence (PostgreSQL interleaves their rows)")
		}
	}
	return nil
}
