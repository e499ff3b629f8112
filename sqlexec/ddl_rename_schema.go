package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// renameSchema runs ALTER SCHEMA ... RENAME TO. The schema keeps its OID
// and its objects; their descriptors are copied under the new name.
// PostgreSQL's stored expressions name relations by OID, fickle's by
// qualified name, so the view queries, column defaults, CHECK constraints
// and partition keys that name the schema's relations (FROM items, and
// nextval's sequence given as text) are rewritten to the new name. A
// schema holding functions or types, or a stored expression naming the
// schema elsewhere (a column qualified with it), is refused with 0A000
// rather than leave a reference behind.
func (d *ddl) renameSchema(rs *pg_query.RenameStmt) error {
	old, renamed := rs.Subname, rs.Newname
	sc := d.cat.schemas[old]
	switch {
	case old == "pg_catalog" || old == "information_schema" || sc != nil && isTempSchema(old):
		return pgerror.Unsupported("ALTER SCHEMA ... RENAME of a system schema")
	case sc == nil:
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", old)
	case d.cat.schemas[renamed] != nil || renamed == "information_schema" || renamed == "pg_catalog":
		return pgerror.Newf(pgerror.DuplicateSchema, "schema \"%s\" already exists", renamed)
	case strings.HasPrefix(renamed, "pg_"):
		return pgerror.Newf(pgerror.ReservedName, "unacceptable schema name \"%s\"", renamed).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	case len(sc.funcs) > 0 || len(sc.types) > 0:
		return pgerror.Unsupported("ALTER SCHEMA ... RENAME of a schema holding functions or types")
	}
	if err := d.s.requireOwner(schemaOwner(sc), "schema", old); err != nil {
		return err
	}
	if err := d.requireDatabaseCreate(); err != nil {
		return err
	}
	rw := schemaRewriter{d: d, old: old, renamed: renamed}
	ns := newSchema(renamed, sc.oid)
	ns.owner = sc.owner
	var tables []*tableDesc
	for _, t := range sortedTables(d.cat) {
		nt, err := rw.table(t)
		if err != nil {
			return err
		}
		if nt != nil {
			tables = append(tables, nt)
		}
	}
	for name, q := range sc.seqs {
		nq := *q
		nq.schema = renamed
		ns.seqs[name] = &nq
	}
	for name, ix := range sc.indexes {
		ns.indexes[name] = ix
	}
	views := map[*schemaDesc]map[string]*viewDesc{}
	for _, other := range d.cat.schemas {
		for name, v := range other.views {
			query, changed, err := rw.rewrite(v.query)
			if err != nil {
				return err
			}
			if !changed && other != sc {
				continue
			}
			nv := *v
			nv.query = query
			if other == sc {
				nv.schema = renamed
				ns.views[name] = &nv
				continue
			}
			if views[other] == nil {
				views[other] = map[string]*viewDesc{}
			}
			views[other][name] = &nv
		}
	}
	for other, changed := range views {
		for name, nv := range changed {
			other.views[name] = nv
		}
	}
	delete(d.cat.schemas, old)
	d.cat.schemas[renamed] = ns
	for _, nt := range tables {
		if nt.schema == old {
			nt.schema = renamed
		}
		d.cat.putTable(nt)
	}
	return nil
}

// schemaRewriter rewrites stored expressions that name relations of the
// schema old to name them in the schema renamed.
type schemaRewriter struct {
	d            *ddl
	old, renamed string
}

// table returns a copy of t with its stored expressions rewritten, nil
// when t is outside the schema and none of them names it.
func (rw schemaRewriter) table(t *tableDesc) (*tableDesc, error) {
	nt := t.clone()
	moved := t.schema == rw.old
	for i, col := range nt.cols {
		def, changed, err := rw.rewrite(col.def)
		if err != nil {
			return nil, err
		}
		if changed {
			nc := *col
			nc.def = def
			nt.cols[i] = &nc
			moved = true
		}
	}
	for i, ck := range nt.checks {
		expr, changed, err := rw.rewrite(ck.expr)
		if err != nil {
			return nil, err
		}
		if changed {
			nck := *ck
			nck.expr = expr
			nt.checks[i] = &nck
			moved = true
		}
	}
	if nt.part != nil {
		for _, e := range nt.part.exprs {
			if _, changed, err := rw.rewrite(e); err != nil || changed {
				return nil, pgerror.Unsupported("ALTER SCHEMA ... RENAME of a schema a partition key expression names")
			}
		}
	}
	if !moved {
		return nil, nil
	}
	return nt, nil
}

// rewrite returns a copy of n naming the schema renamed where it named
// old: a FROM item's schema, and the sequence nextval is given as text.
// changed is false when n names no relation of old; a name qualified with
// old anywhere else fails with 0A000.
func (rw schemaRewriter) rewrite(n *pg_query.Node) (out *pg_query.Node, changed bool, err error) {
	if n == nil {
		return nil, false, nil
	}
	names := catalogNames{s: rw.d.s, cat: rw.d.cat}
	out = proto.Clone(n).(*pg_query.Node)
	walk(out, func(m *pg_query.Node) bool {
		switch v := m.Node.(type) {
		case *pg_query.Node_RangeVar:
			if v.RangeVar.Schemaname == rw.old {
				v.RangeVar.Schemaname, changed = rw.renamed, true
			}
		case *pg_query.Node_ColumnRef:
			if f := v.ColumnRef.Fields; len(f) >= 3 && f[0].GetString_().GetSval() == rw.old {
				err = pgerror.Unsupported("ALTER SCHEMA ... RENAME of a schema that a stored expression qualifies a column with")
			}
		case *pg_query.Node_FuncCall:
			fc := v.FuncCall
			if len(fc.Funcname) >= 2 && fc.Funcname[0].GetString_().GetSval() == rw.old {
				err = pgerror.Unsupported("ALTER SCHEMA ... RENAME of a schema a stored expression calls a function of")
			}
			s := nextvalText(fc)
			if s == nil {
				return true
			}
			oid, lookupErr := names.RelationOid(s.Sval)
			if lookupErr != nil {
				return true
			}
			if schema, name, ok := relationByOid(rw.d.cat, oid); ok && schema == rw.old {
				s.Sval, changed = types.QuoteIdent(rw.renamed)+"."+types.QuoteIdent(name), true
			}
		}
		return err == nil
	})
	return out, changed, err
}
