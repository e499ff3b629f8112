package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The system column tableoid: the OID of the table a row lives in. A table
// read without inheritance children gives its own OID for every row, a
// constant. A read of an inheritance parent or partitioned table (its
// members, inherit.go) ends each row with the OID of the member it came
// from, one slot past the table's columns. The target of an UPDATE or
// DELETE with members has no such slot, since its rows are written back,
// so tableoid is not a column there.

// tableoidCol returns the tableoid column of the table item it, read from
// rv as alias; ok is false where it has none.
func (b *binder) tableoidCol(it *fromItem, rv *pg_query.RangeVar, alias string) (c scopeCol, ok bool) {
	c = scopeCol{rel: alias, name: "tableoid", typ: types.OidType, hidden: true, system: true}
	if it.members == nil {
		c.relOID = it.table.oid
		return c, true
	}
	if b.modifying == rv {
		return c, false
	}
	it.oidSlot = true
	return c, true
}

// setTableoid sets the tableoid slot of the current row of it to t's OID
// while t's rows are read, for the conditions checked as they are.
func setTableoid(x *execCtx, it *fromItem, t *tableDesc) {
	if it.oidSlot {
		x.row[it.off+it.width-1] = int64(t.oid)
	}
}

// withTableoid ends each of rows, read from member t of it, with t's OID.
func withTableoid(it *fromItem, t *tableDesc, rows []keyedRow) {
	if !it.oidSlot {
		return
	}
	for i := range rows {
		r := rows[i].row
		rows[i].row = append(r[:len(r):len(r)], int64(t.oid))
	}
}
