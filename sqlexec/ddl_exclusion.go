package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// EXCLUDE constraints whose every element is a column compared WITH =
// under btree (the default access method) forbid two rows with equal
// values in those columns: a unique index under another name and error.
// fickle builds them so; other operators and access methods (gist's &&,
// <>) are refused with 0A000.

// addExclusion adds the EXCLUDE constraint c to t.
func (d *ddl) addExclusion(t *tableDesc, c *pg_query.Constraint) error {
	if t.part != nil {
		return pgerror.New(pgerror.FeatureNotSupported, "exclusion constraints are not supported on partitioned tables")
	}
	if c.AccessMethod != "" && c.AccessMethod != "btree" {
		return pgerror.Unsupported("EXCLUDE USING " + c.AccessMethod)
	}
	if c.WhereClause != nil {
		return pgerror.Unsupported("EXCLUDE constraints with WHERE")
	}
	if len(c.Including) > 0 {
		return pgerror.Unsupported("INCLUDE in constraints")
	}
	var cols []int
	for _, n := range c.Exclusions {
		pair := n.GetList().GetItems()
		if len(pair) != 2 {
			return pgerror.Unsupported("this form of EXCLUDE constraint")
		}
		ie := pair[0].GetIndexElem()
		name := ie.GetName()
		if cr := ie.GetExpr().GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
			name = cr.Fields[0].GetString_().GetSval()
		}
		if name == "" || len(ie.Opclass) > 0 || len(ie.Collation) > 0 || ie.Ordering != pg_query.SortByDir_SORTBY_DEFAULT ||
			ie.NullsOrdering != pg_query.SortByNulls_SORTBY_NULLS_DEFAULT {
			return pgerror.Unsupported("EXCLUDE constraints over expressions, operator classes or orderings")
		}
		op := strs(pair[1].GetList().GetItems())
		if len(op) == 2 && op[0] == "pg_catalog" {
			op = op[1:]
		}
		if len(op) != 1 || op[0] != "=" {
			return pgerror.Unsupported("EXCLUDE constraints with operator " + strings.Join(op, "."))
		}
		i := t.colIndex(name)
		if i < 0 {
			return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" named in key does not exist", name)
		}
		if defaultOpclass("btree", t.cols[i].typ) == 0 {
			return pgerror.Unsupported("EXCLUDE constraints over type " + t.cols[i].typ.String())
		}
		cols = append(cols, i)
	}
	name := c.Conname
	if name == "" {
		name = d.uniqueRelName(t.schema, t.name+"_"+strings.Join(colNameList(t, cols), "_")+"_excl")
	} else if d.relationExists(t.schema, name) {
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", name)
	}
	ix := &indexDesc{name: name, table: t.oid, cols: cols, unique: true, constraint: true, exclusion: true,
		deferrable: c.Deferrable, initiallyDeferred: c.Initdeferred}
	return d.registerIndex(t, ix)
}

// exclusionDef is pg_get_constraintdef of an exclusion constraint.
func exclusionDef(t *tableDesc, ix *indexDesc) string {
	parts := make([]string, len(ix.cols))
	for i, c := range ix.cols {
		parts[i] = types.QuoteIdent(t.cols[c].name) + " WITH ="
	}
	return "EXCLUDE USING btree (" + strings.Join(parts, ", ") + ")"
}
