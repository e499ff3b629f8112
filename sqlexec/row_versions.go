package sqlexec

import (
	"strings"

	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The system columns xmin, xmax and ctid: the transaction that wrote the
// version of a row a statement read, the one that replaced, deleted or
// locked it, and the version's place in the table's heap
// (isolation.RowVersion; the store decides all three). A table read by a
// statement whose text names any of them gets the three as hidden columns
// past its own (before tableoid's slot, tableoid.go), filled at each read
// and lock; a statement that does not name them reads rows of the table's
// own width. cmin and cmax stay refused: fickle has no command ids to
// show.

// rowVersionNames are the system columns the store answers.
var rowVersionNames = [...]string{"xmin", "xmax", "ctid"}

// readsRowVersions reports whether the statement being compiled, or a view
// it is expanding or writing through, names xmin, xmax or ctid anywhere
// (its text, case-insensitively): only then do its table items carry them.
func (b *binder) readsRowVersions() bool {
	if b.viewVersions {
		return true
	}
	for _, v := range b.expanding {
		if v.rowVersions {
			return true
		}
	}
	if b.versionsText != b.full {
		b.versionsText, b.versionsNamed = b.full, namesRowVersion(b.full)
	}
	return b.versionsNamed
}

// namesRowVersion reports whether text holds "xmin", "xmax" or "ctid" in
// any case.
func namesRowVersion(text string) bool {
	for i := 0; i+4 <= len(text); i++ {
		switch text[i] {
		case 'x', 'X':
			if w := text[i+1 : i+4]; strings.EqualFold(w, "min") || strings.EqualFold(w, "max") {
				return true
			}
		case 'c', 'C':
			if strings.EqualFold(text[i+1:i+4], "tid") {
				return true
			}
		}
	}
	return false
}

// rowVersionCols returns the hidden columns xmin, xmax and ctid of table t
// read as rel. The ctid of a table with a column whose values' on-disk
// size fickle does not model (tuple_size.go) is refused: the places of its
// rows past the first page would not be PostgreSQL's.
func rowVersionCols(t *tableDesc, rel string) []scopeCol {
	xid := types.Type{Oid: types.OidXID, Typmod: -1}
	cols := make([]scopeCol, len(rowVersionNames))
	for i, name := range rowVersionNames {
		cols[i] = scopeCol{rel: rel, name: name, typ: xid, hidden: true, system: true}
	}
	cols[2].typ = types.Type{Oid: types.OidTID, Typmod: -1}
	for _, c := range t.cols {
		if !sizeModeled(c.typ) {
			cols[2].refused = "ctid of a table with a column of type " + c.typ.String() + " (fickle does not size its values as PostgreSQL stores them)"
			break
		}
	}
	return cols
}

// withRowVersion returns row, a row of a table item, followed by the
// values of its version's xmin, xmax and ctid.
func withRowVersion(row []any, v isolation.RowVersion) []any {
	return append(row[:len(row):len(row)], types.XID(v.Xmin), types.XID(v.Xmax), tidOf(v.Ctid))
}

// tidOf is a place in the store's heap as a tid datum.
func tidOf(t isolation.Tid) types.TID { return types.TID{Block: t.Block, Offset: t.Offset} }

// readVersions makes ro give the versions' xmin, xmax and ctid when item
// it carries them, and returns what turns a row the store returned into
// the item's row.
func readVersions(it *fromItem, ro *isolation.ReadOptions) func(row []any) []any {
	if !it.versions {
		return func(row []any) []any { return row }
	}
	v := ro.Version
	if v == nil {
		v = new(isolation.RowVersion)
		ro.Version = v
	}
	return func(row []any) []any { return withRowVersion(row, *v) }
}

// setRowVersion sets the xmin, xmax and ctid slots of item it in full, a
// joined row, to v.
func setRowVersion(full []any, it *fromItem, v isolation.RowVersion) {
	at := it.off + len(it.table.cols)
	full[at], full[at+1], full[at+2] = types.XID(v.Xmin), types.XID(v.Xmax), tidOf(v.Ctid)
}
