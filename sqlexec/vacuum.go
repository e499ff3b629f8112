package sqlexec

import (
	"cmp"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// This file runs VACUUM and ANALYZE. fickle keeps no statistics and no
// dead tuples, so they change nothing but VACUUM FULL's new places of the
// rows (their ctids, isolation/tid.go), but they check what PostgreSQL
// checks: the options, the relations and their column lists, and that
// VACUUM runs outside a transaction block.

// vacuumOptions are the options VACUUM accepts; ANALYZE accepts the ones
// marked true.
var vacuumOptions = map[string]bool{"verbose": true, "skip_locked": true, "analyze": false, "freeze": false, "full": false,
	"disable_page_skipping": false, "index_cleanup": false, "process_toast": false, "truncate": false, "parallel": false}

func (b *binder) vacuumPlan(vs *pg_query.VacuumStmt) (*stmtPlan, error) {
	tag := "VACUUM"
	if !vs.IsVacuumcmd {
		tag = "ANALYZE"
	}
	analyze := !vs.IsVacuumcmd
	full, processToast, disablePageSkipping, parallel := false, true, false, 0
	for _, o := range vs.Options {
		de := o.GetDefElem()
		forAnalyze, known := vacuumOptions[de.Defname]
		if !known || (!vs.IsVacuumcmd && !forAnalyze) {
			return nil, b.errAt(pgerror.Newf(pgerror.SyntaxError, "unrecognized %s option \"%s\"", tag, de.Defname), de.Location)
		}
		switch de.Defname {
		case "parallel":
			if de.Arg != nil && de.Arg.GetInteger() == nil {
				return nil, pgerror.Newf(pgerror.SyntaxError, "%s requires an integer value", de.Defname)
			}
			n, err := vacuumParallelWorkers(de)
			if err != nil {
				return nil, b.errAt(err, de.Location)
			}
			parallel = n
		case "index_cleanup":
			if de.Arg == nil || strings.EqualFold(defArgString(de), "auto") {
				continue
			}
			fallthrough
		default:
			on, err := defBoolean(de)
			if err != nil {
				return nil, err
			}
			switch de.Defname {
			case "analyze":
				analyze = on
			case "full":
				full = on
			case "process_toast":
				processToast = on
			case "disable_page_skipping":
				disablePageSkipping = on
			}
		}
	}
	switch {
	case full && parallel > 0:
		return nil, pgerror.New(pgerror.FeatureNotSupported, "VACUUM FULL cannot be performed in parallel")
	case full && disablePageSkipping:
		return nil, pgerror.New(pgerror.FeatureNotSupported, "VACUUM option DISABLE_PAGE_SKIPPING cannot be used with FULL")
	case full && !processToast:
		return nil, pgerror.New(pgerror.FeatureNotSupported, "PROCESS_TOAST required with VACUUM FULL")
	}
	var notices []*pgerror.Error
	var rewrite []*tableDesc // VACUUM FULL's tables
	var analyzeErr error     // a foreign table's, which ANALYZE cannot sample
	for _, r := range vs.Rels {
		vr := r.GetVacuumRelation()
		rv := vr.Relation
		sys := b.s.systemRelationOf(b.cat, rv)
		if sys != nil && sys.kind == relTable {
			// A system catalog: nothing to do, as for a table.
			if len(vr.VaCols) > 0 {
				return nil, pgerror.Unsupported("a column list of " + tag + " of a system catalog")
			}
			continue
		}
		var t *tableDesc
		if sys == nil {
			t = b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname)
		}
		if t == nil {
			if sys == nil && b.s.lookupView(b.cat, rv.Schemaname, rv.Relname) == nil && b.s.lookupSequence(b.cat, rv.Schemaname, rv.Relname) == nil {
				return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
			}
			w := pgerror.Newf(pgerror.Warning, "skipping \"%s\" --- cannot %s non-tables or special system tables", rv.Relname, strings.ToLower(tag))
			w.Severity = "WARNING"
			notices = append(notices, w)
			continue
		}
		if t.foreign != nil && vs.IsVacuumcmd {
			w := pgerror.Newf(pgerror.Warning, "skipping \"%s\" --- cannot vacuum non-tables or special system tables", rv.Relname)
			w.Severity = "WARNING"
			notices = append(notices, w)
			continue
		}
		if analyze && analyzeErr == nil {
			// Analyzing a foreign table, or a parent's sample from one,
			// asks its wrapper's handler.
			for _, m := range append([]*tableDesc{t}, b.cat.descendants(t)...) {
				if analyzeErr = b.cat.foreignReadError(m); analyzeErr != nil {
					break
				}
			}
		}
		if full {
			rewrite = append(rewrite, t)
		}
		if len(vr.VaCols) == 0 {
			continue
		}
		if !analyze {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "ANALYZE option must be specified when a column list is provided")
		}
		seen := map[string]bool{}
		for _, c := range strs(vr.VaCols) {
			if t.colIndex(c) < 0 {
				return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", c, t.name)
			}
			if seen[c] {
				return nil, pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" of relation \"%s\" appears more than once", c, t.name)
			}
			seen[c] = true
		}
	}
	if full && len(vs.Rels) == 0 {
		for _, t := range b.cat.tables {
			if t.foreign != nil {
				continue // a database-wide VACUUM leaves foreign tables alone
			}
			if !isTempSchema(t.schema) || t.schema == b.s.tempSchemaIfAny() {
				rewrite = append(rewrite, t)
			}
		}
		slices.SortFunc(rewrite, func(a, b *tableDesc) int { return cmp.Compare(a.oid, b.oid) })
	}
	if analyze && len(vs.Rels) == 0 {
		for _, t := range sortedTables(b.cat) {
			if analyzeErr = b.cat.foreignReadError(t); analyzeErr != nil {
				break
			}
		}
	}
	var leaves []*tableDesc
	for _, t := range rewrite {
		if t.part == nil {
			leaves = append(leaves, t)
		}
		for _, ch := range b.cat.descendants(t) {
			if ch.part == nil && ch.foreign == nil && !slices.Contains(leaves, ch) {
				leaves = append(leaves, ch)
			}
		}
	}
	for _, t := range leaves {
		b.useTable(t, isolation.TableLockAccessExclusive)
	}
	return &stmtPlan{noTxn: len(leaves) == 0, exec: func(x *execCtx) (*Result, error) {
		if vs.IsVacuumcmd && x.s.txn != nil && x.s.txn.explicit {
			return nil, pgerror.New(pgerror.ActiveSqlTransaction, "VACUUM cannot run inside a transaction block")
		}
		if analyzeErr != nil {
			return nil, analyzeErr
		}
		// VACUUM FULL writes each table anew: its live rows take the first
		// places, in the order of their places now.
		for _, t := range leaves {
			if err := x.txn.Relayout(t.id, isolation.LayoutOrder{Index: isolation.NoIndex}); err != nil {
				return nil, err
			}
		}
		if slices.ContainsFunc(leaves, func(t *tableDesc) bool { return t.missing != nil }) {
			// The rewrite writes every column: no missing values are left.
			if _, err := x.s.runDDL(x, func(d *ddl) error { d.clearMissing(leaves...); return nil }); err != nil {
				return nil, err
			}
		}
		return &Result{Tag: tag, Notices: notices}, nil
	}}, nil
}

// vacuumParallelWorkers reads VACUUM's PARALLEL option, an integer or no
// value, as PostgreSQL does: an integer from 0 to 1024 must be given.
func vacuumParallelWorkers(de *pg_query.DefElem) (int, *pgerror.Error) {
	const maxWorkers = 1024
	if de.Arg == nil {
		return 0, pgerror.Newf(pgerror.SyntaxError, "parallel option requires a value between 0 and %d", maxWorkers)
	}
	i := de.Arg.GetInteger()
	if i.Ival < 0 || i.Ival > maxWorkers {
		return 0, pgerror.Newf(pgerror.SyntaxError, "parallel workers for vacuum must be between 0 and %d", maxWorkers)
	}
	return int(i.Ival), nil
}

// systemRelationOf returns the system catalog or view rv names, as the
// search path finds it in catalog c, nil when it names none (or a user
// relation comes first on the path).
func (s *Session) systemRelationOf(c *catalog, rv *pg_query.RangeVar) *systemRelation {
	path := s.searchPath()
	if rv.Schemaname != "" {
		path = []string{s.schemaAlias(rv.Schemaname)}
	}
	for _, p := range path {
		if r, ok := systemRelationNamed(p, rv.Relname); ok {
			return r
		}
		if sc := c.schemas[p]; sc != nil && (sc.tables[rv.Relname] != nil || sc.views[rv.Relname] != nil || sc.seqs[rv.Relname] != nil) {
			return nil
		}
	}
	return nil
}
