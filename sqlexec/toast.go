package sqlexec

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// TOAST tables as pg_class shows them. fickle keeps every value in memory
// and has no TOAST storage, but PostgreSQL gives a table a TOAST table
// (relkind t, in schema pg_toast, with a unique index) when a row could
// outgrow a page, and catalog queries read that through reltoastrelid and
// the TOAST relations' relpersistence. fickle derives it from the table's
// columns as PostgreSQL decides it (needs_toast_table) when the table is
// created, adds one at the end of an ALTER TABLE that makes it needed, and
// keeps it (toastKept) when a DROP COLUMN or SET STORAGE makes it needless
// until a command rewrites the table. A temporary table's TOAST table
// would live in a pg_toast_temp_N schema fickle does not show, so
// temporary tables show none.

// toastThreshold is TOAST_TUPLE_THRESHOLD for 8 kB pages.
const toastThreshold = 2032

// toastRelationOIDs are the OIDs of a table's TOAST table and its index,
// beside the table's constraints' (synthesizedOID) at places no table's
// constraints reach in practice.
func toastRelationOIDs(t *tableDesc) (table, index uint32) {
	return synthesizedOID(t.oid, 61), synthesizedOID(t.oid, 62)
}

// hasToastTable reports whether t has a TOAST table in PostgreSQL: one
// it needs, or one it keeps.
func hasToastTable(t *tableDesc) bool {
	return t.toastKept || needsToastTable(t)
}

// needsToastTable reports whether PostgreSQL would give t a TOAST table: a
// plain table with a column stored out of line whose rows could exceed
// the threshold (any column of unbounded length can).
func needsToastTable(t *tableDesc) bool {
	if t.part != nil || t.foreign != nil || isTempSchema(t.schema) {
		return false
	}
	dataLen, toastable, unbounded := 0, false, false
	for _, col := range t.cols {
		align := "i"
		if bt := builtinIndex().types[uint32(col.typ.Oid)]; bt != nil {
			align = bt.align
		}
		storage := columnStorage(col)
		dataLen = alignTo(dataLen, map[string]int{"c": 1, "s": 2, "i": 4, "d": 8}[align])
		if size := col.typ.Size(); size > 0 {
			dataLen += size
			continue
		}
		if m := maximumVarlenaSize(col.typ); m < 0 {
			unbounded = true
		} else {
			dataLen += m
		}
		toastable = toastable || storage != "p"
	}
	switch {
	case !toastable:
		return false
	case unbounded:
		return true
	}
	const heapTupleHeader = 23
	return alignTo(heapTupleHeader+(len(t.cols)+7)/8, 8)+alignTo(dataLen, 8) > toastThreshold
}

// maximumVarlenaSize is PostgreSQL's type_maximum_size for the types
// fickle has: the largest stored size of a varchar(n), char(n) (UTF8, four
// bytes a character) or numeric(p,s) value, -1 for unbounded types.
func maximumVarlenaSize(t types.Type) int {
	const varHdr = 4
	if n := t.Length(); n >= 0 {
		return n*4 + varHdr
	}
	if p, _, ok := t.PrecisionScale(); ok {
		const decDigits, numericHdr = 4, 8
		return numericHdr + (p+2*(decDigits-1))/decDigits*2
	}
	return -1
}

func alignTo(n, a int) int { return (n + a - 1) / a * a }

// toastRelationRows are the pg_class rows of t's TOAST table and index,
// none when it has no TOAST table.
func toastRelationRows(t *tableDesc) []relationRow {
	if !hasToastTable(t) {
		return nil
	}
	table, index := toastRelationOIDs(t)
	return []relationRow{
		{oid: table, name: fmt.Sprintf("pg_toast_%d", t.oid), namespace: oidPgToast, kind: "t", am: 2, hasIndex: true, natts: 3,
			unlogged: t.unlogged, options: t.toastOptions},
		{oid: index, name: fmt.Sprintf("pg_toast_%d_index", t.oid), namespace: oidPgToast, kind: "i", am: 403, pages: 1, natts: 2,
			unlogged: t.unlogged},
	}
}

// toastIndexRow is the pg_index row of t's TOAST index (unique over
// chunk_id and chunk_seq), nil when t has no TOAST table.
func toastIndexRow(t *tableDesc) []any {
	if !hasToastTable(t) {
		return nil
	}
	table, index := toastRelationOIDs(t)
	const oidOps, int4Ops = 1981, 1978
	return []any{int64(index), int64(table), int64(2), int64(2), true, false, false, false, true, false,
		true, false, true, true, false, []any{int64(1), int64(2)}, []any{int64(0), int64(0)}, []any{int64(oidOps), int64(int4Ops)},
		[]any{int64(0), int64(0)}, nil, nil}
}

// columnStorage is a column's attstorage: its SET STORAGE, or its type's.
func columnStorage(col *columnDesc) string {
	if col.storage != 0 {
		return string(col.storage)
	}
	if bt := builtinIndex().types[uint32(col.typ.Oid)]; bt != nil {
		return bt.storage
	}
	if col.typ.IsEnum() {
		return "p" // an enum's value is its 4-byte OID, as pg_type says
	}
	return "x"
}

// storageTypes are SET STORAGE's names for attstorage.
var storageTypes = map[string]byte{"plain": 'p', "external": 'e', "extended": 'x', "main": 'm'}

// storageName is PostgreSQL's storage_name of an attstorage, as its
// messages print it.
var storageName = map[string]string{"p": "PLAIN", "e": "EXTERNAL", "x": "EXTENDED", "m": "MAIN"}

// setStorage runs ALTER TABLE ... ALTER COLUMN ... SET STORAGE on t, a
// clone of the catalog's descriptor. fickle stores no value out of line;
// the setting shows in pg_attribute (the column's and its indexes') and
// decides the TOAST table.
func (d *ddl) setStorage(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	i, err := d.column(t, cmd.Name)
	if err != nil {
		return err
	}
	name := cmd.Def.GetString_().GetSval()
	s, ok := storageTypes[strings.ToLower(name)]
	if !ok {
		return pgerror.Newf(pgerror.InvalidParameterValue, "invalid storage type \"%s\"", name)
	}
	col := t.cols[i]
	if col.typ.Size() != -1 && s != 'p' {
		return pgerror.Newf(pgerror.FeatureNotSupported, "column data type %s can only have storage PLAIN", col.typ)
	}
	nc := *col
	nc.storage = s
	t.cols[i] = &nc
	return nil
}

// keepsToastTable says whether t, which had a TOAST table (had) before an
// ALTER TABLE subcommand changed it, keeps it: PostgreSQL removes a TOAST
// table only when a command rewrites the table and it is no longer needed.
func keepsToastTable(t *tableDesc, had, rewrote bool) bool {
	return had && !needsToastTable(t) && !rewrote
}
