package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// currtid2(relation, tid), which ODBC drivers call: the place of the
// version of the row at tid that a reader sees now, following the row's
// updates (the store's Txn.LatestTid), through a view whose ctid column is
// its table's.

func init() {
	tid := types.Type{Oid: types.OidTID, Typmod: -1}
	addSysFunc("currtid2", sysFunc{args: []types.Type{types.Text, tid}, result: tid, volatile: true,
		eval: func(x *execCtx, a []any) (any, error) {
			oid, err := catalogNames{s: x.s}.RegIn(types.OidRegclass, a[0].(string))
			if err != nil {
				return nil, err
			}
			c, _ := x.s.catalog()
			return currtid(x, c, uint32(oid), a[1].(types.TID))
		}})
}

// currtid answers currtid2 for the relation with OID oid.
func currtid(x *execCtx, c *catalog, oid uint32, at types.TID) (any, error) {
	schema, name, _ := relationByOid(c, int64(oid))
	if t := c.tables[oid]; t != nil {
		if t.part != nil {
			return nil, pgerror.Newf(pgerror.InternalError, "cannot look at latest visible tid for relation \"%s.%s\"", schema, name)
		}
		if !x.s.hasPrivilege(x.s.currentRole(), aclTable, oid, []byte{'r'}) {
			return nil, pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for table %s", name)
		}
		latest, valid, err := x.txn.LatestTid(t.id, isolation.Tid{Block: at.Block, Offset: at.Offset})
		if err != nil {
			return nil, err
		}
		if !valid {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "tid (%d, %d) is not valid for relation \"%s\"", at.Block, at.Offset, name)
		}
		return tidOf(latest), nil
	}
	for _, sc := range c.schemas {
		for _, v := range sc.views {
			if v.oid == oid {
				return currtidOfView(x, c, v, at)
			}
		}
		for _, q := range sc.seqs {
			if q.oid == oid {
				// A sequence's one row is never updated: a place on its
				// one page is its own latest.
				if at.Block > 0 || at.Offset == 0 {
					return nil, pgerror.Newf(pgerror.InvalidParameterValue, "tid (%d, %d) is not valid for relation \"%s\"", at.Block, at.Offset, name)
				}
				return at, nil
			}
		}
	}
	if kind, ok := relationKindIn(c, []string{schema}, name); ok && kind == relIndex {
		return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is an index", name)
	}
	return nil, pgerror.Unsupported("currtid2 of a relation of this kind")
}

// currtidOfView answers currtid2 for a view: its column ctid must be a tid
// that its query reads as its one table's system column.
func currtidOfView(x *execCtx, c *catalog, v *viewDesc, at types.TID) (any, error) {
	col := -1
	for i, vc := range v.cols {
		if vc.name == "ctid" {
			if vc.typ.Oid != types.OidTID {
				return nil, pgerror.New(pgerror.InternalError, "ctid isn't of type TID")
			}
			col = i
			break
		}
	}
	if col < 0 {
		return nil, pgerror.New(pgerror.InternalError, "currtid cannot handle views with no CTID")
	}
	sel := v.query.GetSelectStmt()
	if sel != nil && len(sel.FromClause) == 1 && col < len(sel.TargetList) {
		rv := sel.FromClause[0].GetRangeVar()
		cr := sel.TargetList[col].GetResTarget().GetVal().GetColumnRef()
		if rv != nil && cr != nil && columnRefName(cr) == "ctid" {
			if t := x.s.lookupTable(c, rv.Schemaname, rv.Relname); t != nil && t.colIndex("ctid") < 0 {
				return currtid(x, c, t.oid, at)
			}
		}
	}
	return nil, pgerror.New(pgerror.InternalError, "currtid cannot handle this view")
}

// columnRefName is the column a reference names, its last field; "" for
// a whole-row reference.
func columnRefName(cr *pg_query.ColumnRef) string {
	return cr.Fields[len(cr.Fields)-1].GetString_().GetSval()
}
