package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// This file runs VACUUM and ANALYZE. fickle keeps no statistics and no
// dead tuples, so they change nothing, but they check what PostgreSQL
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
	for _, o := range vs.Options {
		de := o.GetDefElem()
		forAnalyze, known := vacuumOptions[de.Defname]
		if !known || (!vs.IsVacuumcmd && !forAnalyze) {
			return nil, b.errAt(pgerror.Newf(pgerror.SyntaxError, "unrecognized %s option \"%s\"", tag, de.Defname), de.Location)
		}
		if de.Defname == "analyze" {
			analyze = defElemTrue(de)
		}
	}
	var notices []*pgerror.Error
	for _, r := range vs.Rels {
		vr := r.GetVacuumRelation()
		rv := vr.Relation
		t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname)
		if t == nil {
			if b.s.lookupView(b.cat, rv.Schemaname, rv.Relname) == nil && b.s.lookupSequence(b.cat, rv.Schemaname, rv.Relname) == nil {
				return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
			}
			w := pgerror.Newf(pgerror.Warning, "skipping \"%s\" --- cannot %s non-tables or special system tables", rv.Relname, strings.ToLower(tag))
			w.Severity = "WARNING"
			notices = append(notices, w)
			continue
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
	return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
		if vs.IsVacuumcmd && x.s.txn != nil && x.s.txn.explicit {
			return nil, pgerror.New(pgerror.ActiveSqlTransaction, "VACUUM cannot run inside a transaction block")
		}
		return &Result{Tag: tag, Notices: notices}, nil
	}}, nil
}

// defElemTrue reads a boolean option the way PostgreSQL's defGetBoolean
// does: no value, true, on or a non-zero number mean true.
func defElemTrue(de *pg_query.DefElem) bool {
	if de.Arg == nil {
		return true
	}
	if i := de.Arg.GetInteger(); i != nil {
		return i.Ival != 0
	}
	switch strings.ToLower(de.Arg.GetString_().GetSval()) {
	case "false", "off", "0":
		return false
	}
	return true
}
